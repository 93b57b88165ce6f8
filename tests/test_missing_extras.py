"""Each integration without its extra says which extra to install (a new user's
find: ``import liars_dice.integrations.vector`` without Gymnasium was a bare
``No module named 'gymnasium'``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# The blocker hides the framework's top-level package as if it were not installed.
BLOCK = """
import importlib.abc, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
for m in [m for m in sys.modules if m.split('.')[0] in {hidden!r}]:
    del sys.modules[m]
sys.meta_path.insert(0, Hide())
import {module}
"""

CASES = [
    ("liars_dice.integrations.vector", "gymnasium", {"gymnasium"}),
    ("liars_dice.integrations.pettingzoo", "pettingzoo", {"pettingzoo"}),
    ("liars_dice.integrations.liars_dice_v0", "pettingzoo", {"pettingzoo"}),
    ("liars_dice.integrations.openspiel", "openspiel", {"pyspiel", "open_spiel"}),
    ("liars_dice.integrations.openspiel.policies", "openspiel", {"pyspiel", "open_spiel"}),
    ("liars_dice.integrations.textarena", "textarena", {"textarena"}),
]


@pytest.mark.parametrize(("module", "extra", "hidden"), CASES)
def test_an_integration_without_its_extra_names_the_extra_and_the_install(module: str, extra: str, hidden: set[str]) -> None:
    run = subprocess.run(
        [sys.executable, "-c", BLOCK.format(hidden=sorted(hidden), module=module)],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: "), last
    assert f"needs the '{extra}' extra" in last, last
    assert f"pip install 'liars-dice-game[{extra}]'" in last, last
    assert any(h in last for h in hidden), last


def test_with_the_extras_installed_every_integration_imports() -> None:
    for module, _, _ in CASES:
        run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
