"""Every file in ../shared/scenarios/ through the real `liars-dice replay` command.

Source: shared/scenarios/README.md ("The project's tests must run every file here").
"""

from __future__ import annotations

import json

import pytest

from replay_helpers import SCENARIOS, check_case

#: Every scenario, those of a folder too (``perudo/``, issue 9 "Done when").
FILES = sorted(SCENARIOS.rglob("*.json")) if SCENARIOS.is_dir() else []


@pytest.mark.skipif(not SCENARIOS.is_dir(), reason="../shared/scenarios is absent in this checkout")
def test_there_are_scenarios() -> None:
    assert FILES, "shared/scenarios holds no .json files"


@pytest.mark.skipif(not SCENARIOS.is_dir(), reason="../shared/scenarios is absent in this checkout")
def test_the_perudo_folder_runs_too() -> None:
    """Issue 9 "Done when": "the scenario test runs that folder too"."""
    assert any(p.parent.name == "perudo" for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS).with_suffix("")) for p in FILES])
def test_scenario_replays_to_expected(path, cli) -> None:
    case = json.loads(path.read_text())
    expected = dict(case["expected"])
    if "error" in expected:  # README: the message text is free
        expected["error"] = {k: v for k, v in expected["error"].items() if k != "message"}
    got = check_case(cli, {"record": case["record"], "expected": expected})
    if "error" in case["expected"]:
        # the scenario's message is a hint of the rule, not the exact text
        assert "raise" in got["error"]["message"] or "rule" in got["error"]["message"]
