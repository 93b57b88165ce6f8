"""Every sentence the terminal prints starts with a capital (issue 38, fault 5:
"nobody loses a die (…)", "you call calza on Mila's four 6s", "you open the
next round.", "you won."), in ``play``, ``replay --text`` and ``verify``: a
property over rule sets, seats' names (the second person "you" and names typed
in lower case among them) and games."""

from __future__ import annotations

import io
import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from liars_dice.bots import make_bot
from liars_dice.cli.app import app
from liars_dice.cli.session import PlaySession
from liars_dice.engine import Bid, Game, Phase, Rules, SeededDice
from liars_dice.engine.dice import FairDice
from liars_dice.engine.narration import narrate, sentence
from liars_dice.records import record_from_state

NAMES = ["you", "ann", "mila", "bob", "zoë", "élodie", "Cleo", "kimmy155"]
_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def lower_case_starts(text: str) -> list[str]:
    """The sentences of ``text`` (its lines that end like one, split after each
    full stop) whose first character is a small letter."""
    bad = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(\d+\.\s+)?", "", line).strip()
        if not line or line[-1] not in ".!?":
            continue
        for piece in _END.split(line):
            if piece[:1].isalpha() and piece[:1] != piece[:1].upper():
                bad.append(piece)
    return bad


def test_the_finder_finds_them() -> None:
    assert lower_case_starts("Ann bids. nobody loses a die.\n  3. you bid 2x3: two 3s.\nann 3 4") == [
        "nobody loses a die.", "you bid 2x3: two 3s."]
    assert sentence("élodie wins.") == "Élodie wins." and sentence("ß") == "ß"


def _fair_game(preset: str, names: list[str], seed: int) -> tuple[str, object]:
    """A whole game of the terminal's bots watched in the terminal, its dice
    fair (docs/fair-dice.md), and its record: ``(what play printed, record)``."""
    rng = random.Random(seed)
    game = Game.create(Rules.preset(preset), names)
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=False, color_system=None)
    bots = [make_bot("probabilistic" if i % 2 else "random", seed + i) for i in range(len(names))]
    final = PlaySession(console, game, bots, SeededDice(seed), seed % len(names)).run()
    # the same moves again with fair dice, for verify: random moves suffice
    s = game.initial_state(rng.randrange(len(names)))
    fair = []
    cur = None
    while not s.is_over:
        if s.is_chance:
            if s.phase is Phase.DEAL:
                cur = FairDice(rng.randbytes(32))
                fair.append((cur.commitment, cur.hex))
            s = s.roll(cur.source(s))
        else:
            a = rng.choice(s.legal_actions())
            shows = s.legal_shows()
            s = s.apply(a, rng.choice(shows) if isinstance(a, Bid) and rng.random() < 0.3 and shows else ())
    return buf.getvalue() + "\n" + "\n".join(narrate(final)), record_from_state(s, None, fair)


@given(st.sampled_from(["classic", "perudo", "wild-stars", "aces-wild"]),
       st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True), st.integers(0, 10**6))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_sentence_of_play_replay_and_verify_starts_with_a_capital(
        preset: str, names: list[str], seed: int) -> None:
    played, record = _fair_game(preset, names, seed)
    assert not lower_case_starts(played)
    runner = CliRunner(env={"COLUMNS": "200"})
    text = runner.invoke(app, ["replay", "--text", "-"], input=json.dumps(record))
    assert text.exit_code == 0, text.output
    assert not lower_case_starts(text.output)
    checked = runner.invoke(app, ["verify", "-"], input=json.dumps(record))
    assert checked.exit_code == 0, checked.output
    assert not lower_case_starts(checked.output)
