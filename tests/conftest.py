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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that share one outside service (the PostgreSQL test database, the
    Redis server) run on one xdist worker, one after another (``--dist
    loadgroup``); every other test runs on any worker (issue 19 "The test
    suite": the suite on both cores)."""
    for item in items:
        for mark in ("postgres", "redis"):
            if item.get_closest_marker(mark) is not None:
                item.add_marker(pytest.mark.xdist_group(mark))
                break
