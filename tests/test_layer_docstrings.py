"""Every package's docstring names its layer (issue 8 "Give every package
docstring its layer"), in the order tests/test_layering.py enforces."""

from __future__ import annotations

import ast

import pytest

from test_layering import LAYERS, MODULES, _part

#: Each layer's package (or module, for ``match``) and the root package.
HEADS = sorted(n for n in MODULES if n.count(".") == 1 and _part(n) in LAYERS) + ["liars_dice"]


def test_every_layer_present_is_found() -> None:
    assert {"liars_dice.engine", "liars_dice.bots", "liars_dice.cli", "liars_dice.match"} <= set(HEADS)


@pytest.mark.parametrize("name", HEADS)
def test_package_docstring_names_its_layer(name: str) -> None:
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text(encoding="utf-8"))) or ""
    part = _part(name)
    expected = "Layer: the root package" if part == "" else f"Layer: {part}"
    assert expected in doc, f"{name}: the docstring should say {expected!r}"
    if part:
        lower = [p for p, r in LAYERS.items() if r == LAYERS[part] - 1]
        assert not lower or f"above {lower[0]}" in doc or part == "engine", f"{name}: say which layer it sits above"
