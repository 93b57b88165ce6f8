"""docs/bot-protocol.md is a verified transcript: its sessions replay through the
real `liars-dice bot ... --seed 1` byte for byte, and its request example is valid."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from liars_dice.engine import Rules
from liars_dice.protocol import parse_reply, parse_request, view_from_request

DOC = Path(__file__).resolve().parent.parent / "docs" / "bot-protocol.md"
TEXT = DOC.read_text(encoding="utf-8")
#: ``(rules, bot, body)``: a session block names its rules and optionally its bot (default ``random``).
SESSIONS = [
    (rules, bot or "random", body)
    for rules, bot, body in re.findall(r"```text session (\S+)(?: (\S+))?\n(.*?)```", TEXT, re.S)
]


def test_doc_has_sessions() -> None:
    assert {rules for rules, _, _ in SESSIONS} == {"classic", "wild-stars", "perudo"}


def test_perudo_session_holds_a_calza_and_the_palifico_state() -> None:
    """Issue 9 "Protocol": the calza reply and the palifico state, in a tested session."""
    body = next(b for r, _, b in SESSIONS if r == "perudo")
    assert '< {"calza":true}' in body and '"palifico": true' in body


@pytest.mark.parametrize("rules, bot, body", SESSIONS, ids=[r for r, _, _ in SESSIONS])
def test_doc_session_replays_exactly(cli, rules, bot, body) -> None:
    lines = body.strip().splitlines()
    sent = [line[2:] for line in lines if line.startswith("> ")]
    expected = [line[2:] for line in lines if line.startswith("< ")]
    assert len(sent) == len(expected) > 1
    proc = subprocess.run(
        [cli, "bot", bot, "--rules", rules, "--seed", "1"],
        input="\n".join(sent) + "\n", capture_output=True, text=True, timeout=60,
    )
    assert proc.stdout.splitlines() == expected
    for reply in expected:
        parse_reply(reply)


def test_doc_request_example_is_a_valid_request() -> None:
    block = re.search(r"## Request\n\n```json\n(.*?)```", TEXT, re.S).group(1)
    view = view_from_request(parse_request(json.dumps(json.loads(block))), Rules.preset("wild-stars"))
    assert view.seat == 0 and view.shown[0] == (5,) and len(view.results) == 1
    assert view.results[0].count == 3 and view.results[0].lost == (0, 1)  # a perfect bid (seed 000)
