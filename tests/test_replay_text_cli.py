"""`liars-dice replay --text FILE` (issue 8, "A readable replay"): the game
round by round, every bid in notation and in the engine's words, each reveal
and the dice lost; through the real command."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from liars_dice.engine import Bid, Rules


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("rules", ["wild-stars", "aces-wild", "classic"])
def test_replay_text_tells_every_bid_reveal_and_loss(cli, tmp_path, rules: str) -> None:
    path = tmp_path / "game.json"
    play = _run(cli, "play", "--watch", "--rules", rules, "--players", "3", "--seed", "11", "--record", str(path))
    assert play.returncode == 0, play.stderr
    record = json.loads(path.read_text())
    result = json.loads(_run(cli, "replay", str(path)).stdout)
    proc = _run(cli, "replay", "--text", str(path))
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    rule_set = Rules.preset(rules)
    assert lines[-1] == f"{result['winner']} wins."
    rounds = [ln for ln in lines if re.match(r"^Round \d+ · \d+ dice in play$", ln)]
    assert len(rounds) == len(record["rounds"])
    bids = [m for r in record["rounds"] for m in r["moves"] if "bid" in m]
    bid_lines = [ln for ln in lines if re.match(r"^  \d+\. \w+ bids ", ln)]
    assert len(bid_lines) == len(bids)
    for m, ln in zip(bids, bid_lines):
        bid = Bid(m["bid"]["quantity"], m["bid"]["face"])
        assert f"{m['player']} bids {rule_set.format_bid(bid)}: {rule_set.describe_bid(bid)}" in ln
    challenges = [ln for ln in lines if " challenges " in ln]
    assert len(challenges) == len(record["rounds"])
    assert all(re.search(r"the count is \d+; (\w+ loses \d (die|dice)(, )?)+\.$|nobody loses a die\.$", c)
               for c in challenges), challenges
    assert sum(ln.startswith("  Revealed: ") for ln in lines) == len(record["rounds"])
    assert "[" not in proc.stdout and "]" not in proc.stdout, "no Python lists"
    if rules == "aces-wild":
        assert " aces" in proc.stdout or " ace" in proc.stdout


def test_replay_text_of_a_broken_record_stops_at_the_fault(cli, tmp_path) -> None:
    path = tmp_path / "game.json"
    _run(cli, "play", "--watch", "--rules", "classic", "--players", "2", "--seed", "4", "--record", str(path))
    record = json.loads(path.read_text())
    record["rounds"][1]["moves"][0]["bid"] = {"quantity": 99, "face": 3}
    path.write_text(json.dumps(record))
    proc = _run(cli, "replay", "--text", str(path))
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("The record stops being a legal game at round 2, move 1: ")
    assert any(" challenges " in ln for ln in lines), "the first round is told"


def test_replay_text_tells_a_calza(cli, tmp_path) -> None:
    """RULES.md `perudo` worked case 8: a right calza gains the caller a die."""
    from replay_helpers import ROOT

    case = json.loads((ROOT / "tests" / "records" / "perudo-worked-case-8-calza-gains-a-die.json").read_text())
    path = tmp_path / "calza.json"
    path.write_text(json.dumps(case["record"]))
    proc = _run(cli, "replay", "--text", str(path))
    assert "  Cy calls calza on bob's six 3s: the count is 6; cy gains 1 die." in proc.stdout.splitlines()


@pytest.mark.parametrize("content, words", [
    (b"not json", "The record is not valid JSON"),
    (b"\xff\xfe", "The record is not UTF-8 text"),
    (b"[" * 100_000, "The record nests its JSON too deeply"),
])
def test_replay_text_of_a_record_that_is_no_game_says_one_sentence(cli, tmp_path, content: bytes, words: str) -> None:
    """attack7: ``replay --text`` printed "The record stops being a legal game:
    The record is not valid JSON ..." for a file that never was a game, and the
    JSON error object (not text) for one that was not UTF-8 or nested too deep.
    Now one sentence each, and nothing else."""
    path = tmp_path / "game.json"
    path.write_bytes(content)
    proc = subprocess.run([cli, "replay", "--text", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    out = proc.stdout.strip()
    assert out.startswith(words) and "\n" not in out and "stops being" not in out, out


#: A verb of the third person (or a possessive) after "you": "you bids", "you is", "you's".
THIRD_PERSON_YOU = re.compile(r"\b[Yy]ou(?:'s| (?:is|was|has|\w+[^s\W]s))\b")


@pytest.mark.parametrize("rules", ["wild-stars", "perudo", "classic"])
def test_a_seat_named_you_reads_in_the_second_person(rules: str) -> None:
    """Issue 17 fault 7: `replay --text` said "you bids 3x1" for a player under
    the terminal's default name. A grammar check over whole narrated games
    (every sentence of the narration: bids, shows, challenges, calzas, losses,
    verdicts, who is out, who opens, the winner)."""
    from liars_dice.bots import make_bot
    from liars_dice.engine import Game, SeededDice
    from liars_dice.engine.narration import narrate, verdict_sentence
    from liars_dice.match import play_game

    seen = 0
    for seed in range(6):
        game = Game.create(Rules.preset(rules), ["you", "ann", "bob"])
        state = play_game(game, [make_bot("probabilistic", seed * 10 + i) for i in range(3)], SeededDice(seed), seed % 3)
        text = "\n".join(narrate(state) + [verdict_sentence(state.rules, game.players, r) for r in state.results])
        assert not THIRD_PERSON_YOU.search(text), THIRD_PERSON_YOU.search(text)
        seen += len(re.findall(r"\byou (?:bid|lose|open|win|challenge|call|are)\b", text))
    assert seen > 10  # the check read second-person sentences


def test_the_grammar_check_catches_the_third_person() -> None:
    assert THIRD_PERSON_YOU.search("  3. you bids 3x1: three 1s.") and THIRD_PERSON_YOU.search("you is out.")
    assert THIRD_PERSON_YOU.search("ann challenges you's two 3s")
    assert not THIRD_PERSON_YOU.search("you bid 3x1; you lose 1 die; your calza wins; you are out; you pass.")
