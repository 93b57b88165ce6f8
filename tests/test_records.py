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
