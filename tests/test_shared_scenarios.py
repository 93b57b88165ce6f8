"""Every file in ../shared/scenarios/ through the real `liars-dice replay` command.

Source: shared/scenarios/README.md ("The project's tests must run every file here").
"""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import SCENARIOS

FILES = sorted(SCENARIOS.glob("*.json")) if SCENARIOS.is_dir() else []


@pytest.mark.skipif(not SCENARIOS.is_dir(), reason="../shared/scenarios is absent in this checkout")
def test_there_are_scenarios() -> None:
    assert FILES, "shared/scenarios holds no .json files"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_replays_to_expected(path, cli) -> None:
    case = json.loads(path.read_text())
    expected = case["expected"]
    proc = subprocess.run(
        [cli, "replay", "-"], input=json.dumps(case["record"]), capture_output=True, text=True, timeout=60
    )
    got = json.loads(proc.stdout)
    assert proc.returncode == (2 if "error" in expected else 0), proc.stderr
    for key, value in expected.items():
        if key == "error":
            assert got["error"]["round"] == value["round"]
            assert got["error"]["move"] == value["move"]
            msg = got["error"]["message"]
            # one clear sentence naming the rule broken
            assert msg.endswith(".") and msg.count(". ") == 0 and len(msg) > 20
            assert "raise" in msg or "rule" in msg or "must" in msg or "not" in msg
        else:
            assert got[key] == value, key
