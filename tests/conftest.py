"""Shared fixtures: where shared/ lives, and the installed CLI.

The paths and the CLI lookup live in ``replay_helpers`` (a uniquely named
module), so tests import them from there rather than from ``conftest``, which
a conftest in a sub-folder would shadow.

The tests marked ``postgres`` or ``redis`` spread over the xdist workers like
any other (issue 19 "The test suite": the suite on both cores): each worker
has a PostgreSQL schema and a Redis database number of its own
(tests/server/conftest.py), and the tests that stop a database start a
cluster of their own (tests/server/pg_cluster.py).
"""

from __future__ import annotations

import sys

import pytest

from replay_helpers import ROOT, SCENARIOS, SHARED, cli_path

# benchmarks/_cluster.py starts `liars-dice serve --workers N` for the
# benchmarks and for the tests of several workers alike (one copy of it)
sys.path.append(str(ROOT / "benchmarks"))

__all__ = ["ROOT", "SCENARIOS", "SHARED", "cli_path"]


@pytest.fixture(scope="session")
def cli() -> str:
    return cli_path()
