"""Layering (developers' guide, STYLE.md "What to absorb" 1): the engine imports
nothing of the project, and each layer imports only layers below it:

    engine < records < solver < batch < bots < match < protocol < arena < server < cli < integrations

(the batched engine reads only the engine; the arena seats an external command as a bot, so it sits just above the protocol;
the ``liars-dice`` command is the entry point to every part, ``serve`` included,
so the CLI sits above the server).

Imports are read with ``ast`` from every module under src/liars_dice (function-
level and TYPE_CHECKING imports included). Layers not present yet are fine; a
new top-level module must be placed in LAYERS before it can pass.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from liars_dice.engine import PRESETS

SRC = Path(__file__).resolve().parent.parent / "src" / "liars_dice"

#: Rank of each top-level part of the package; a module may import only parts of
#: a lower rank, or its own part.
LAYERS: dict[str, int] = {
    "engine": 0,
    "records": 1,
    "solver": 2,
    "batch": 3,  # the batched engine: numpy arrays over the engine's Rules
    "bots": 4,
    "match": 5,
    "protocol": 6,
    "arena": 7,  # the arena seats external bots through the protocol
    "server": 8,
    "cli": 9,
    "integrations": 10,
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _imports(name: str, path: Path) -> list[tuple[str, int]]:
    """Absolute names of every module imported by ``name``, with line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if node.module is None or node.level and not node.module:
                # `from . import x`: each name may be a submodule
                out += [(f"{mod}.{a.name}", node.lineno) for a in node.names]
            else:
                out.append((mod, node.lineno))
    return out


def _first(node: ast.Import | ast.ImportFrom) -> str:
    return node.names[0].name if isinstance(node, ast.Import) else (node.module or "")


def _part(module: str) -> str | None:
    """The top-level part of a project module (``liars_dice.bots.base`` -> ``bots``)."""
    parts = module.split(".")
    if parts[0] != "liars_dice":
        return None
    return parts[1] if len(parts) > 1 else ""


def test_modules_found() -> None:
    assert "liars_dice.engine.state" in MODULES and "liars_dice.records.replay" in MODULES


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_imports_only_downward(name: str) -> None:
    """Each layer imports only from layers below it (developers' guide "Layering")."""
    part = _part(name)
    if part == "":
        # The root package stays cheap to import: project modules only lazily,
        # inside functions (e.g. a module __getattr__ for `liars_dice.solve`).
        tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and (node.level or _part(_first(node)) is not None):
                pytest.fail(f"liars_dice/__init__.py imports the project at module level (line {node.lineno})")
        return
    assert part in LAYERS, f"{name}: the part {part!r} has no place in LAYERS; add it in the layer order"
    rank = LAYERS[part]
    for imported, line in _imports(name, MODULES[name]):
        other = _part(imported)
        if other is None or other == part:
            continue
        assert other != "", f"{name} imports the root package (line {line})"
        assert other in LAYERS, f"{name} imports {imported}, which has no layer (line {line})"
        assert LAYERS[other] < rank, (
            f"{name} (layer {part}) imports {imported} (layer {other}) on line {line}: imports must go downward"
        )


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _part(n) == "engine"))
def test_engine_imports_only_the_standard_library(name: str) -> None:
    """Issue 2 section 3 "Pure state and transitions": the engine imports nothing
    of the project above it and no third-party package."""
    for imported, line in _imports(name, MODULES[name]):
        top = imported.split(".")[0]
        if top == "liars_dice":
            assert _part(imported) == "engine", f"{name} imports {imported} (line {line})"
        else:
            assert top in sys.stdlib_module_names or top == "__future__", f"{name} imports {imported} (line {line})"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_branch_on_a_preset_name(name: str) -> None:
    """Issue 2 section 3: "nowhere is there an `if preset == "wild-stars"` branch";
    rules are data and the code reads options, never a preset's name."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in node.ops):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Constant) and side.value in PRESETS:
                    pytest.fail(f"{name} line {node.lineno} compares with the preset name {side.value!r}")
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Attribute) and side.attr == "name" and _names_rules(side.value) and any(
                    isinstance(c, ast.Constant) and isinstance(c.value, str) for c in [node.left, *node.comparators]
                ):
                    pytest.fail(f"{name} line {node.lineno} branches on a name attribute against a string")


def _names_rules(expr: ast.expr) -> bool:
    text = ast.unparse(expr).lower()
    return "rules" in text or "preset" in text


def test_preset_branch_check_can_fail() -> None:
    """The preset-name check itself catches both spellings."""
    for src in ('if rules.name == "classic": pass', 'if preset == "wild-stars": pass'):
        tree = ast.parse(src)
        cmp = next(n for n in ast.walk(tree) if isinstance(n, ast.Compare))
        sides = [cmp.left, *cmp.comparators]
        assert any(isinstance(x, ast.Constant) and x.value in PRESETS for x in sides)


def test_layering_check_can_fail(tmp_path: Path) -> None:
    """The checker itself catches an upward import (so the test above can fail)."""
    fake = tmp_path / "liars_dice" / "engine" / "bad.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from ..bots import make_bot\nimport liars_dice.cli\n")
    found = _imports("liars_dice.engine.bad", fake)
    assert ("liars_dice.bots", 1) in found and ("liars_dice.cli", 2) in found
    assert all(LAYERS[_part(m)] > LAYERS["engine"] for m, _ in found)


#: The server's rings (issue 16 "The server in three rings"): each imports only
#: inward. The core has no asyncio and no sockets; the runtime never sees the
#: edge; the package root and the migrations sit outside the rings.
SERVER_RINGS: dict[str, int] = {"core": 0, "runtime": 1, "edge": 2}
_NETWORK_MODULES = ("asyncio", "socket", "starlette", "fastapi", "uvicorn", "websockets", "redis", "sqlalchemy")


def _ring(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["liars_dice", "server"] or len(parts) < 3:
        return None
    return parts[2] if parts[2] in SERVER_RINGS else None


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("liars_dice.server.")))
def test_server_rings_import_only_inward(name: str) -> None:
    """Issue 16: "Each ring imports only inward, and the layering test checks it"."""
    ring = _ring(name)
    if name.startswith("liars_dice.server.migrations"):
        return
    assert ring is not None, f"{name} is in no ring of the server (core, runtime, edge)"
    for imported, line in _imports(name, MODULES[name]):
        other = _ring(imported)
        if imported.startswith("liars_dice.server") and other is None and imported != "liars_dice.server":
            pytest.fail(f"{name} imports {imported}, which is in no ring (line {line})")
        if other is not None:
            assert SERVER_RINGS[other] <= SERVER_RINGS[ring], (
                f"{name} (ring {ring}) imports {imported} (ring {other}) on line {line}: rings import inward only"
            )
        if ring == "core":
            top = imported.split(".")[0]
            assert top not in _NETWORK_MODULES, f"{name}: the core imports {imported} (line {line}): no asyncio, sockets or database"


def test_ring_check_can_fail(tmp_path: Path) -> None:
    """The ring checker sees an outward import and asyncio in the core."""
    fake = tmp_path / "liars_dice" / "server" / "core" / "bad.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("import asyncio\nfrom ..runtime.room import Room\n")
    found = _imports("liars_dice.server.core.bad", fake)
    assert ("liars_dice.server.runtime.room", 2) in found and ("asyncio", 1) in found
    assert SERVER_RINGS[_ring("liars_dice.server.runtime.room") or ""] > SERVER_RINGS["core"]
