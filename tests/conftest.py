"""Shared fixtures: where shared/ lives, and the installed CLI."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SCENARIOS = SHARED / "scenarios"


def cli_path() -> str:
    """The installed ``liars-dice`` console script (next to this Python)."""
    exe = Path(sys.executable).parent / "liars-dice"
    if exe.exists():
        return str(exe)
    found = shutil.which("liars-dice")
    if found is None:  # pragma: no cover
        pytest.fail("The liars-dice command is not installed; run `make test`.")
    return found


@pytest.fixture(scope="session")
def cli() -> str:
    return cli_path()
