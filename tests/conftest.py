"""Shared fixtures: where shared/ lives, and the installed CLI.

The paths and the CLI lookup live in ``replay_helpers`` (a uniquely named
module), so tests import them from there rather than from ``conftest``, which
a conftest in a sub-folder would shadow.
"""

from __future__ import annotations

import pytest

from replay_helpers import ROOT, SCENARIOS, SHARED, cli_path

__all__ = ["ROOT", "SCENARIOS", "SHARED", "cli_path"]


@pytest.fixture(scope="session")
def cli() -> str:
    return cli_path()
