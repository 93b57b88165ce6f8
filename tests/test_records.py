"""The project's own record cases, tests/records/*.json, one per ruling and one
per error RECORD-FORMAT.md lists, each run through the real `liars-dice replay`
command (issue 2 section 7: "The project also keeps its own record cases, one
for every ruling").

Each file is ``{"source", "record", "expected"}``, the shape of
shared/scenarios plus the ruling it checks. ``expected.error.message`` is a
fragment the message must contain; a string ``record`` is sent as raw text.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from replay_helpers import check_case

RECORDS = Path(__file__).parent / "records"
FILES = sorted(RECORDS.glob("*.json"))


def test_every_preset_and_error_kind_has_cases() -> None:
    names = {p.stem for p in FILES}
    for prefix in ("common-", "wild-stars-", "aces-wild-", "classic-", "error-"):
        assert any(n.startswith(prefix) for n in names), prefix
    for kind in (
        "error-move-out-of-turn", "error-challenge-with-no-bid", "error-wrong-dice-count",
        "error-face-out-of-range-in-dice", "wild-stars-error-show-leaves-no-die",
        "wild-stars-error-reroll-wrong-length", "error-unknown-player-in-move", "error-unknown-preset",
        "error-malformed-json", "error-round-after-game-over", "error-move-after-the-challenge",
    ):
        assert kind in names, kind


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_record_case(path: Path, cli: str) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    assert case["source"], "every case cites its source"
    check_case(cli, case)


def test_replay_reads_a_file_path(cli: str, tmp_path: Path) -> None:
    """Issue 2 section 4: `liars-dice replay FILE` (a path as well as `-`)."""
    case = json.loads((RECORDS / "wild-stars-worked-case-1-nine-fives.json").read_text(encoding="utf-8"))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(case["record"]), encoding="utf-8")
    proc = subprocess.run([cli, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert {k: got[k] for k in case["expected"]} == case["expected"]


def test_replay_of_a_missing_file_exits_2_with_error(cli: str, tmp_path: Path) -> None:
    proc = subprocess.run([cli, "replay", str(tmp_path / "nope.json")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    err = json.loads(proc.stdout)["error"]
    assert err["round"] is None and err["move"] is None and "nope.json" in err["message"]


def test_out_player_may_be_listed_with_no_dice(cli: str) -> None:
    """RECORD-FORMAT.md: a round lists every player still in; an eliminated player
    listed with an empty hand (0 dice, 0 faces) is accepted, one with faces is not."""
    base = json.loads((RECORDS / "common-next-player-still-in.json").read_text(encoding="utf-8"))
    ok = json.loads(json.dumps(base))
    ok["record"]["rounds"][1]["dice"]["ann"] = []
    check_case(cli, ok)
    bad = json.loads(json.dumps(base))
    bad["record"]["rounds"][1]["dice"]["ann"] = [3]
    bad["expected"] = {"rounds": base["expected"]["rounds"][:1], "error": {"round": 1, "move": None, "message": "out of the game"}}
    check_case(cli, bad)
