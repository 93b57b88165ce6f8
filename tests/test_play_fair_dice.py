"""`liars-dice play --record` deals provably fair dice (issue 7, docs/fair-dice.md),
through the real commands: the record of a terminal game carries every round's
commitment and seed, and `liars-dice verify` checks it as it checks a served
game's record. Before, a terminal game rolled `SecureDice`/`SeededDice` and its
record held no seeds: `verify` refused every one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from liars_dice.engine import FairDice, FairRounds, Game, Rules, SeededDice, commitment, seed_from_hex
from liars_dice.match import play_game
from liars_dice.bots import make_bot


def run(cli: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, timeout=180)


def record_of(cli: str, tmp_path: Path, *args: str, name: str = "game.json", stdin: str | None = None) -> dict[str, Any]:
    path = tmp_path / name
    proc = run(cli, "play", *args, "--record", str(path), stdin=stdin)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rec: dict[str, Any] = json.loads(path.read_text())
    return rec


@pytest.mark.parametrize("rules", ["wild-stars", "perudo"])
def test_a_watched_game_record_verifies(cli: str, tmp_path: Path, rules: str) -> None:
    """wild-stars: shows and rerolls come from the round's seed too; perudo: calza."""
    rec = record_of(cli, tmp_path, "--watch", "--rules", rules, "--players", "4", "--seed", "3")
    for r in rec["rounds"]:
        assert commitment(seed_from_hex(r["seed"])) == r["commitment"]
    proc = run(cli, "verify", str(tmp_path / "game.json"))
    assert proc.returncode == 0, proc.stdout
    assert f"all {len(rec['rounds'])} rounds check out" in " ".join(proc.stdout.split())
    if rules == "wild-stars":
        assert any(m.get("reroll") for r in rec["rounds"] for m in r["moves"])  # rerolls were checked


def test_a_seeded_game_is_reproducible_and_an_unseeded_one_is_not(cli: str, tmp_path: Path) -> None:
    args = ("--watch", "--rules", "classic", "--players", "3")
    a = record_of(cli, tmp_path, *args, "--seed", "11", name="a.json")
    b = record_of(cli, tmp_path, *args, "--seed", "11", name="b.json")
    assert a == b
    c = record_of(cli, tmp_path, *args, name="c.json")  # seeds from `secrets`
    d = record_of(cli, tmp_path, *args, name="d.json")
    assert c["rounds"][0]["seed"] != d["rounds"][0]["seed"]
    for name in ("c.json", "d.json"):
        assert run(cli, "verify", str(tmp_path / name)).returncode == 0


def test_a_person_s_game_record_verifies(cli: str, tmp_path: Path) -> None:
    """The person challenges at every turn (opening with one 2): to the end, then no to another game."""
    moves = "\n".join(["1x2", "liar"] * 200)
    path = tmp_path / "me.json"
    proc = run(cli, "play", "--players", "2", "--start", "you", "--record", str(path), stdin=moves + "\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert run(cli, "verify", str(path)).returncode == 0


def test_a_stopped_game_says_why_its_last_round_cannot_be_checked(cli: str, tmp_path: Path) -> None:
    """A game stopped mid-round never revealed that round: its record keeps the
    commitment but not the seed (a record never carries the seed of a round in
    play), and `verify` says so in one sentence, exit 1."""
    rec = record_of(cli, tmp_path, "--seed", "4", "--start", "you", name="stop.json", stdin="3x4\n")
    assert [sorted(r) for r in rec["rounds"]] == [["commitment", "dice", "moves"]]
    proc = run(cli, "verify", str(tmp_path / "stop.json"))
    assert proc.returncode == 1
    assert "Round 1 (rounds[0]) carries its commitment but no seed, so its dice cannot be checked." in " ".join(
        proc.stderr.split()
    )
    assert run(cli, "replay", str(tmp_path / "stop.json")).returncode == 0  # still a valid record


def test_fair_rounds_deal_each_round_from_its_own_seed() -> None:
    """The engine part: one fresh seed per deal, every die from it (docs/fair-dice.md)."""
    rules = Rules.preset("wild-stars")
    fair = FairRounds(SeededDice(5))
    game = Game.create(rules, ["a", "b", "c"])
    final = play_game(game, [make_bot("random", i) for i in range(3)], fair, 0)
    assert len(fair.rounds) == len(final.logs)
    assert len({seed for _, seed in fair.rounds}) == len(fair.rounds)
    for r, (log, (c, seed)) in enumerate(zip(final.logs, fair.rounds)):
        f = FairDice.from_hex(seed)
        assert f.commitment == c
        assert log.deal == f.deal(r, tuple(len(h) for h in log.deal))


def test_replay_accepts_the_fields_and_names_a_malformed_one(cli: str, tmp_path: Path) -> None:
    """Our extension of the record format (docs/fair-dice.md): `replay` and
    `replay --text` settle a record carrying commitments and seeds, and refuse a
    malformed seed with one sentence naming the field (exit 2), as `verify` does."""
    rec = record_of(cli, tmp_path, "--watch", "--rules", "classic", "--players", "3", "--seed", "8")
    good = tmp_path / "game.json"
    assert run(cli, "replay", str(good)).returncode == 0
    assert run(cli, "replay", "--text", str(good)).returncode == 0
    rec["rounds"][0]["seed"] = "not a seed"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    for args in (["replay"], ["replay", "--text"], ["verify"]):
        proc = run(cli, *args, str(bad))
        assert proc.returncode == 2, args
        assert "Round 1 (rounds[0]) is malformed at 'seed'" in proc.stdout + proc.stderr
