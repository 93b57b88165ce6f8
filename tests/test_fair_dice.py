"""Provably fair dice (issue 7, "Fair dice anyone can check"): the derivation of
``docs/fair-dice.md``, its test vectors, its hand-check snippet, the record
fields, and ``verify_record``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.engine import (
    Bid,
    ChanceError,
    FairDice,
    Game,
    Phase,
    Rules,
    State,
    commitment,
    fair_deal,
    fair_face,
    fair_reroll,
    seed_from_hex,
)
from liars_dice.records import FairDiceError, RecordError, record_from_state, replay, verify_record

DOC = Path(__file__).resolve().parent.parent / "docs" / "fair-dice.md"
ZERO = bytes(32)
COUNTING = bytes(range(32))

seeds = st.binary(min_size=32, max_size=32)


# -- the function and its test vectors -------------------------------------------------


def test_vectors_of_the_spec() -> None:
    """docs/fair-dice.md "Test vectors", each also written in the document."""
    doc = DOC.read_text(encoding="utf-8")
    assert commitment(ZERO) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925" in doc
    assert fair_deal(ZERO, 0, (5, 5)) == ((4, 2, 2, 5, 1), (4, 6, 3, 2, 1))
    assert "`[4, 2, 2, 5, 1]`, seat 1 `[4, 6, 3, 2, 1]`" in doc
    assert fair_face(ZERO, "deal/18/0/4") == 4
    assert commitment(COUNTING) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd" in doc
    assert fair_deal(COUNTING, 3, (2, 0, 3)) == ((6, 5), (), (5, 1, 3))
    assert "`[6, 5]`, `[]`, `[5, 1, 3]`" in doc
    assert fair_reroll(COUNTING, 3, 4, 2, 2) == (6, 3)
    assert (fair_face(COUNTING, "deal/0/0/0", 2), fair_face(COUNTING, "deal/0/0/0", 9)) == (2, 3)


def test_the_rejection_vector_rejects_its_first_byte() -> None:
    """The vector `deal/18/0/4` starts with 0xff (rejected), then 0xf9 (249 -> 4)."""
    import hmac

    block = hmac.new(ZERO, b"liars-dice-fair-dice/1/deal/18/0/4/0", hashlib.sha256).digest()
    assert block[0] == 0xFF and block[1] == 0xF9
    assert fair_face(ZERO, "deal/18/0/4") == 0xF9 % 6 + 1


@pytest.mark.parametrize("faces", range(2, 10))
def test_accepted_bytes_give_every_face_equally_often(faces: int) -> None:
    """Unbiased: over every byte value, the accepted ones map to each face the
    same number of times (rejection sampling, docs/fair-dice.md step 2)."""
    limit = 256 - 256 % faces
    counts = Counter(b % faces + 1 for b in range(256) if b < limit)
    assert set(counts) == set(range(1, faces + 1))
    assert len(set(counts.values())) == 1


def test_faces_are_spread_evenly_over_many_labels() -> None:
    """60,000 dice of one fixed seed: every face within 3% of 10,000 (a check of
    the implementation, deterministic: the seed is fixed)."""
    counts = Counter(fair_face(COUNTING, f"deal/{r}/0/{i}") for r in range(10_000) for i in range(6))
    assert sorted(counts) == [1, 2, 3, 4, 5, 6]
    assert all(abs(c - 10_000) < 300 for c in counts.values()), counts


@settings(max_examples=200, deadline=None)
@given(seeds, st.integers(0, 50), st.lists(st.integers(0, 8), min_size=2, max_size=6), st.integers(2, 9))
def test_deal_is_deterministic_in_range_and_per_seat(seed: bytes, r: int, held: list[int], faces: int) -> None:
    hands = fair_deal(seed, r, held, faces)
    assert hands == fair_deal(seed, r, held, faces)
    assert [len(h) for h in hands] == held
    assert all(1 <= f <= faces for h in hands for f in h)
    # A seat's dice depend only on the seed, the round, the seat and the die: not on the others' counts.
    for s, n in enumerate(held):
        assert fair_deal(seed, r, [0] * s + [n], faces)[s] == hands[s]


@settings(max_examples=200, deadline=None)
@given(seeds, st.integers(0, 50), st.integers(0, 40), st.integers(0, 5), st.integers(1, 8))
def test_reroll_is_a_prefix_stream_apart_from_the_deal(seed: bytes, r: int, m: int, seat: int, n: int) -> None:
    """Die i of a reroll does not depend on how many dice are rerolled, and uses
    its own labels (``reroll/...``), apart from the deal's."""
    faces = fair_reroll(seed, r, m, seat, n)
    assert fair_reroll(seed, r, m, seat, n + 3)[:n] == faces
    assert faces == tuple(fair_face(seed, f"reroll/{r}/{m}/{seat}/{i}") for i in range(n))


def test_seeds_are_fresh_and_32_bytes() -> None:
    a, b = FairDice(), FairDice()
    assert len(a.seed) == 32 and a.seed != b.seed and a.commitment != b.commitment
    assert FairDice.from_hex(a.hex).seed == a.seed
    assert a.commitment == hashlib.sha256(a.seed).hexdigest()


@pytest.mark.parametrize("bad", ["00" * 31, "00" * 33, "AB" * 32, "zz" * 32, " " + "00" * 31 + "0", ""])
def test_a_seed_is_exactly_64_lowercase_hex_digits(bad: str) -> None:
    with pytest.raises(ChanceError, match="64 lowercase hex digits"):
        seed_from_hex(bad)


def test_fair_dice_rejects_a_short_seed_and_odd_dice() -> None:
    with pytest.raises(ChanceError, match="32 bytes"):
        FairDice(b"short")
    with pytest.raises(ChanceError, match="2 to 256 faces"):
        fair_face(ZERO, "deal/0/0/0", 1)


def test_source_refuses_a_state_that_waits_for_no_dice() -> None:
    s = Game.create(Rules.preset("classic"), ["ann", "bob"]).initial_state()
    fair = FairDice(ZERO)
    s = s.roll(fair.source(s))
    with pytest.raises(ChanceError, match="No dice are due"):
        fair.source(s)


# -- whole games with fair dice ----------------------------------------------------------


def play_fair(preset: str, n: int, seed: int, show_rate: float = 0.4) -> tuple[State, list[tuple[str, str | None] | None]]:
    """A whole game of random moves, every round dealt and rerolled by :class:`FairDice`."""
    rng = random.Random(seed)
    game = Game.create(Rules.preset(preset), [f"p{i}" for i in range(n)])
    s = game.initial_state(rng.randrange(n))
    fair: list[tuple[str, str | None] | None] = []
    cur: FairDice | None = None
    while not s.is_over:
        if s.is_chance:
            if s.phase is Phase.DEAL:
                cur = FairDice(rng.randbytes(32))
                fair.append((cur.commitment, cur.hex))
            assert cur is not None
            s = s.roll(cur.source(s))
        else:
            a = rng.choice(s.legal_actions())
            shows = s.legal_shows()
            s = s.apply(a, rng.choice(shows) if isinstance(a, Bid) and rng.random() < show_rate else ())
    return s, fair


@pytest.fixture(scope="module")
def fair_record() -> dict[str, Any]:
    s, fair = play_fair("wild-stars", 3, 11)
    rec = record_from_state(s, None, fair)
    assert any("reroll" in m for r in rec["rounds"] for m in r["moves"]), "no reroll in the game"
    return rec


def test_engine_rolls_are_the_derivation(fair_record: dict[str, Any]) -> None:
    """Every die the engine rolled through ``FairDice.source`` is the spec's."""
    names = fair_record["players"]
    for r, rnd in enumerate(fair_record["rounds"]):
        seed = bytes.fromhex(rnd["seed"])
        held = [len(rnd["dice"].get(p, [])) for p in names]
        assert fair_deal(seed, r, held) == tuple(tuple(rnd["dice"].get(p, [])) for p in names)
        for m, mv in enumerate(rnd["moves"]):
            if "reroll" in mv:
                assert list(fair_reroll(seed, r, m, names.index(mv["player"]), len(mv["reroll"]))) == mv["reroll"]


def test_a_fair_record_verifies_and_replays(fair_record: dict[str, Any]) -> None:
    report = verify_record(fair_record)
    assert len(report.rounds) == len(fair_record["rounds"])
    assert report.dealt == sum(len(h) for r in fair_record["rounds"] for h in r["dice"].values())
    assert report.rerolls == sum("reroll" in m for r in fair_record["rounds"] for m in r["moves"]) > 0
    assert report.winner is not None
    assert replay(fair_record).ok  # the record format's replay accepts the fields
    assert verify_record(json.dumps(fair_record)).winner == report.winner


def _first_reroll(rec: dict[str, Any]) -> tuple[int, int]:
    return next((r, m) for r, rnd in enumerate(rec["rounds"]) for m, mv in enumerate(rnd["moves"]) if "reroll" in mv)


def test_tampered_dice_seeds_and_commitments_fail_naming_the_place(fair_record: dict[str, Any]) -> None:
    names = fair_record["players"]
    rec = copy.deepcopy(fair_record)
    hand = rec["rounds"][1]["dice"][names[1]]
    hand[2] = hand[2] % 6 + 1
    with pytest.raises(FairDiceError, match=re.escape(f"Round 2: {names[1]}'s die 3 (rounds[1].dice[\"{names[1]}\"][2]) is {hand[2]}, but the seed gives")):
        verify_record(rec)

    rec = copy.deepcopy(fair_record)
    r, m = _first_reroll(rec)
    mv = rec["rounds"][r]["moves"][m]
    mv["reroll"][0] = mv["reroll"][0] % 6 + 1
    with pytest.raises(FairDiceError, match=re.escape(f"Round {r + 1}, move {m + 1}: {mv['player']}'s rerolled die 1 (rounds[{r}].moves[{m}].reroll[0])")):
        verify_record(rec)

    rec = copy.deepcopy(fair_record)
    rec["rounds"][0]["seed"] = "ab" * 32
    with pytest.raises(FairDiceError, match=re.escape("Round 1 (rounds[0]): the seed does not match the commitment")):
        verify_record(rec)

    rec = copy.deepcopy(fair_record)
    rec["rounds"][-1]["commitment"] = "cd" * 32
    n = len(rec["rounds"])
    with pytest.raises(FairDiceError, match=re.escape(f"Round {n} (rounds[{n - 1}]): the seed does not match the commitment")):
        verify_record(rec)

    rec = copy.deepcopy(fair_record)
    del rec["rounds"][1]["seed"]
    with pytest.raises(FairDiceError, match=re.escape("Round 2 (rounds[1]) carries its commitment but no seed")):
        verify_record(rec)

    rec = copy.deepcopy(fair_record)
    del rec["rounds"][0]["commitment"]
    with pytest.raises(FairDiceError, match="carries no commitment"):
        verify_record(rec)


def test_dropping_a_die_matches_the_seed_but_does_not_replay(fair_record: dict[str, Any]) -> None:
    """Every remaining die still matches its seed: the replay catches the short hand."""
    rec = copy.deepcopy(fair_record)
    name = rec["players"][0]
    rnd = next(r for r in rec["rounds"] if len(r["dice"].get(name, [])) > 1)
    rnd["dice"][name].pop()
    with pytest.raises(RecordError, match="does not replay") as e:
        verify_record(rec)
    assert not isinstance(e.value, FairDiceError)


def test_a_malformed_seed_is_named() -> None:
    s, fair = play_fair("classic", 2, 3)
    rec = record_from_state(s, None, fair)
    rec["rounds"][0]["seed"] = "XYZ"
    with pytest.raises(RecordError, match=re.escape("Round 1 (rounds[0]) is malformed at 'seed'")):
        verify_record(rec)
    assert not replay(rec).ok  # the record format itself refuses a malformed seed


def test_a_round_in_play_never_carries_its_seed() -> None:
    """The writer leaves out the seed of a round not yet ended, whatever it is given."""
    game = Game.create(Rules.preset("classic"), ["ann", "bob"])
    fair = FairDice(ZERO)
    s = game.initial_state()
    s = s.roll(fair.source(s)).apply(Bid(1, 2))
    rec = record_from_state(s, None, [(fair.commitment, fair.hex)])
    assert rec["rounds"][0]["commitment"] == fair.commitment
    assert "seed" not in rec["rounds"][0]
    with pytest.raises(FairDiceError, match="no seed"):
        verify_record(rec)


@pytest.mark.parametrize("preset", ["classic", "wild-stars", "aces-wild", "perudo", "openspiel", "joker"])
def test_every_preset_verifies(preset: str) -> None:
    """Every preset's games (perudo's calzas and palificos included) verify."""
    for seed in range(3):
        s, fair = play_fair(preset, 3 if preset not in ("openspiel", "joker") else 2, seed)
        rec = record_from_state(s, None, fair)
        assert len(verify_record(rec).rounds) == len(rec["rounds"]) >= 1


def test_old_records_without_seeds_still_replay_but_do_not_verify() -> None:
    s, _ = play_fair("classic", 2, 5)
    rec = record_from_state(s)
    assert replay(rec).ok
    with pytest.raises(FairDiceError, match=re.escape("Round 1 (rounds[0]) carries no commitment")):
        verify_record(rec)


# -- the document's hand check ----------------------------------------------------------


def _doc_snippet() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Check a game by hand", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_documented_snippet_checks_a_record(tmp_path: Path, fair_record: dict[str, Any]) -> None:
    """docs/fair-dice.md "Check a game by hand": the snippet, run as written with
    only the standard library, passes a fair record and stops on a tampered die."""
    script = tmp_path / "check.py"
    script.write_text(_doc_snippet(), encoding="utf-8")
    assert re.findall(r"^import (\w+)", script.read_text(), re.M) == ["hashlib", "hmac", "json", "sys"]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(fair_record), encoding="utf-8")
    out = subprocess.run([sys.executable, "-I", str(script), str(good)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"all {len(fair_record['rounds'])} rounds check out"
    rec = copy.deepcopy(fair_record)
    r, m = _first_reroll(rec)
    rec["rounds"][r]["moves"][m]["reroll"][0] = rec["rounds"][r]["moves"][m]["reroll"][0] % 6 + 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec), encoding="utf-8")
    out = subprocess.run([sys.executable, "-I", str(script), str(bad)], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and f"round {r + 1}, move {m + 1}: reroll die 1 is not the seed's" in out.stderr


def test_rounds_past_the_end_are_not_all_checked(fair_record: dict[str, Any]) -> None:
    """Bounded work (test as an attacker): 5,000 rounds appended after the game's
    end stop at the first of them; the dice of the rest are never derived."""
    rec = copy.deepcopy(fair_record)
    n = len(rec["rounds"])
    rec["rounds"] += [copy.deepcopy(rec["rounds"][-1]) for _ in range(5000)]
    with pytest.raises(RecordError, match=re.escape(f"Round {n + 1}")) as e:
        verify_record(rec)
    assert e.value.round == n


def test_the_documented_snippet_checks_a_browser_game(tmp_path: Path) -> None:
    """The snippet on a served game's record with the players' own seeds (version 2;
    tests/data/browser-game-v2.json, a 4-seat classic game from `liars-dice serve` in
    Chromium, two persons, the last rounds with none left in): it passes, as
    `verify_record` does, and names a player whose seed was edited. Before the
    snippet mixed the seeds it told every browser game's first die was not the seed's."""
    record = json.loads((Path(__file__).parent / "data" / "browser-game-v2.json").read_text(encoding="utf-8"))
    assert any(r["contributions"] for r in record["rounds"]) and any(r["contributions"] == {} for r in record["rounds"])
    verify_record(record)
    script = tmp_path / "check.py"
    script.write_text(_doc_snippet(), encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record), encoding="utf-8")
    out = subprocess.run([sys.executable, "-I", str(script), str(good)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"all {len(record['rounds'])} rounds check out"
    rec = copy.deepcopy(record)
    name = next(iter(rec["rounds"][0]["contributions"]))
    rec["rounds"][0]["contributions"][name] = "00" * 32
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec), encoding="utf-8")
    out = subprocess.run([sys.executable, "-I", str(script), str(bad)], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and f"round 1: {name}'s seed does not match its digest" in out.stderr


def test_verify_says_whether_the_record_used_a_players_own_seeds() -> None:
    """Issue 38, fault 8: ``verify --my-seed ROUND=HEX`` checks the record
    against seeds only the player's page knew (it kept them), not only against
    itself: a right seed is named as used, a wrong one (the server dropped or
    replaced it) makes verify exit 1, bad options exit 2 with one sentence."""
    from typer.testing import CliRunner

    from liars_dice.cli.app import app

    record = json.loads((Path(__file__).parent / "data" / "browser-game-v2.json").read_text(encoding="utf-8"))
    text = json.dumps(record)
    runner = CliRunner(env={"COLUMNS": "200"})
    bea4 = record["rounds"][3]["contributions"]["Bea"]
    marta1 = record["rounds"][0]["contributions"]["Marta"]
    ok = runner.invoke(app, ["verify", "-", "--my-seed", f"4={bea4.upper()}", "--my-seed", f"1={marta1}"], input=text)
    assert ok.exit_code == 0, ok.output
    said = " ".join(ok.output.split())
    assert f"Round 4: your seed {bea4[:12]}… went into the dice (as Bea's seed)." in said
    assert f"Round 1: your seed {marta1[:12]}… went into the dice (as Marta's seed)." in said
    # Bea's seed of round 4 is not round 5's, and a fresh seed is nobody's
    for wrong in (f"5={bea4}", f"2={'ab' * 32}"):
        bad = runner.invoke(app, ["verify", "-", "--my-seed", wrong], input=text)
        assert bad.exit_code == 1, bad.output
        assert "is not among the seeds the record's dice came from" in " ".join(bad.output.split())
    for option, why in ((f"99={bea4}", "round 99"), ("4=abc", "not 64 hex digits"), (f"four={bea4}", "ROUND=SEED"),
                        (f"0={bea4}", "ROUND=SEED")):
        bad = runner.invoke(app, ["verify", "-", "--my-seed", option], input=text)
        assert bad.exit_code == 2 and why in " ".join(bad.output.split()), (option, bad.output)
