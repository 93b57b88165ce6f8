"""Fair dice at a served table (issue 7, "Fair dice anyone can check"), through
the real app and the real ``liars-dice verify`` command: a record downloaded
from the server's HTTP record endpoint verifies; tampered dice, seed or
commitment, and a missing seed, each fail with one sentence naming the place.

The secrecy of seeds before their reveal is checked message by message in
``test_secrecy.py``; seeds kept across a killed server in ``test_restart.py``.
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import Player, create, is_state, join
from starlette.testclient import TestClient
from test_secrecy import play_scripted

from liars_dice.engine import CHALLENGE, Bid, Rules, ScriptedDice, SeededDice
from liars_dice.server.core import views
from liars_dice.server.core.commands import Move as MoveCmd
from liars_dice.server.core.commands import step
from liars_dice.server.runtime.room import Room
from liars_dice.server.core.tables import rebuild


def verify(cli: str, path: Path | str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [cli, "verify", str(path)], input=stdin, capture_output=True, text=True, timeout=60,
        env={**os.environ, "COLUMNS": "120", "NO_COLOR": "1"},
    )


@pytest.fixture
def served_record(client: TestClient) -> dict[str, Any]:
    """A finished wild-stars game (two people, shows and rerolls),
    its record downloaded from ``GET /api/tables/{code}/record``."""
    t = create(client, "ann", preset="wild-stars", seats=2, options={"dice_per_player": 3})
    code = t["code"]
    j = join(client, code, "bob")
    ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
    ann.send({"type": "start", "id": "s"})
    assert ann.wait(lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
    # The opener (a person: no bot sits here, so a raise is always open) shows one
    # of its three dice with the opening bid: a reroll for sure.
    by_name = {"ann": ann, "bob": bob}
    state = ann.wait(is_state)
    assert state["view"]["move_number"] == 0
    mover = by_name[state["view"]["to_move"]]
    mine = mover.last_state() or mover.wait(is_state)
    view = mine["view"]
    show = [view["hand"][0]]
    assert show in view["legal"]["shows"]
    first = view["legal"]["raises"][0]
    mover.send({"type": "bid", "quantity": first["quantity"], "face": first["face"], "show": show, "id": "first"})
    assert mover.wait(lambda m: m.get("id") == "first")["type"] == "ack"
    for p in (ann, bob):
        p.wait(lambda m: is_state(m) and m["view"]["move_number"] > 0)
    play_scripted([ann, bob], random.Random(4), show_rate=0.5)
    r = client.get(f"/api/tables/{code}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = r.json()
    assert all(len(rnd["commitment"]) == len(rnd["seed"]) == 64 for rnd in record["rounds"])
    assert any("reroll" in m for rnd in record["rounds"] for m in rnd["moves"]), "no reroll was played"
    # The replay page's record carries the same seeds.
    assert client.get(f"/api/tables/{code}/replay").json()["record"]["rounds"] == record["rounds"]
    return record


def test_a_served_record_verifies_through_the_cli(cli: str, served_record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(served_record), encoding="utf-8")
    out = verify(cli, path)
    assert out.returncode == 0, out.stderr
    n = len(served_record["rounds"])
    assert f"OK: all {n} rounds check out" in out.stdout
    assert served_record["rounds"][0]["commitment"][:16] in out.stdout
    # '-' reads standard input.
    out = verify(cli, "-", stdin=json.dumps(served_record))
    assert out.returncode == 0 and f"all {n} rounds check out" in out.stdout


def _tamper(rec: dict[str, Any], what: str) -> tuple[dict[str, Any], str]:
    """A copy of ``rec`` with one thing changed, and the sentence verify must print."""
    rec = copy.deepcopy(rec)
    if what == "dice":
        name = rec["players"][1]
        r = next(i for i, rnd in enumerate(rec["rounds"]) if rnd["dice"].get(name))
        hand = rec["rounds"][r]["dice"][name]
        hand[0] = hand[0] % 6 + 1
        return rec, f'Round {r + 1}: {name}\'s die 1 (rounds[{r}].dice["{name}"][0]) is {hand[0]}, but the seed gives'
    if what == "reroll":
        r, m = next(
            (i, k) for i, rnd in enumerate(rec["rounds"]) for k, mv in enumerate(rnd["moves"]) if "reroll" in mv
        )
        mv = rec["rounds"][r]["moves"][m]
        mv["reroll"][-1] = mv["reroll"][-1] % 6 + 1
        i = len(mv["reroll"]) - 1
        return rec, (
            f"Round {r + 1}, move {m + 1}: {mv['player']}'s rerolled die {i + 1} "
            f"(rounds[{r}].moves[{m}].reroll[{i}]) is {mv['reroll'][-1]}, but the seed gives"
        )
    if what == "seed":
        seed = rec["rounds"][0]["seed"]
        rec["rounds"][0]["seed"] = ("1" if seed[0] != "1" else "2") + seed[1:]
        return rec, "Round 1 (rounds[0]): the seed does not match the commitment"
    if what == "commitment":
        r = len(rec["rounds"]) - 1
        c = rec["rounds"][r]["commitment"]
        rec["rounds"][r]["commitment"] = c[:-1] + ("0" if c[-1] != "0" else "1")
        return rec, f"Round {r + 1} (rounds[{r}]): the seed does not match the commitment"
    assert what == "missing seed"
    n = len(rec["rounds"])
    del rec["rounds"][-1]["seed"]
    return rec, f"Round {n} (rounds[{n - 1}]) carries its commitment but no seed, so its dice cannot be checked."


def test_a_tampered_record_fails_with_one_sentence(cli: str, served_record: dict[str, Any], tmp_path: Path) -> None:
    """Each tampering of one served record (one game, five checks)."""
    for what in ("dice", "reroll", "seed", "commitment", "missing seed"):
        rec, sentence = _tamper(served_record, what)
        path = tmp_path / f"tampered-{what}.json"
        path.write_text(json.dumps(rec), encoding="utf-8")
        out = verify(cli, path)
        assert out.returncode == 1, (what, out.stdout, out.stderr)
        assert out.stdout == ""
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(sentence), (what, lines, sentence)


def test_unreadable_input_exits_2(cli: str, tmp_path: Path) -> None:
    out = verify(cli, tmp_path / "missing.json")
    assert out.returncode == 2 and out.stderr.startswith("Cannot read ") and "Traceback" not in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": "classic", "players": ["a", "b"], "rounds": [', encoding="utf-8")
    out = verify(cli, bad)
    assert out.returncode == 2 and "not valid JSON" in out.stderr and "Traceback" not in out.stderr
    out = verify(cli, "-", stdin="[" * 100_000)
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_old_dealt_events_without_seeds_still_load() -> None:
    """Events stored before fair dice (``dealt`` with ``hands`` only) rebuild the
    table: no commitment is shown, results carry ``null`` seeds, a reroll in such
    a round comes from the server's ordinary dice source, and the next round is
    dealt from a seed, committed and revealed as usual."""
    rules = Rules.preset("wild-stars").with_options(dice_per_player=2)
    created = {
        "id": "t1", "code": "ABCDEF", "preset": "wild-stars", "rules": rules.to_dict(), "n_seats": 2,
        "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00",
    }
    events: list[tuple[int, str, dict[str, Any]]] = [
        (1, "created", created),
        (2, "joined", {"seat": 0, "name": "ann", "token_hash": "x"}),
        (3, "joined", {"seat": 1, "name": "bob", "token_hash": "y"}),
        (4, "started", {"players": ["ann", "bob"], "start": 0}),
        (5, "dealt", {"hands": [[2, 3], [4, 4]]}),
    ]
    table = rebuild(events)
    assert table.seeds == (None,) and table.state is not None
    assert views.state_message(Room(table), 0)["view"]["commitment"] is None
    # A show in that round: the reroll comes from the service's dice source.
    log = list(events)
    table, made = step(table, MoveCmd(0, Bid(1, 3), (2,)), ScriptedDice([6]))
    log += [(table.seq, e.kind.value, e.payload) for e in made]
    assert made[0].payload["reroll"] == [6] and table.state is not None and table.state.hidden[0] == (6,)
    # The round ends; the next is dealt from a seed drawn from the same source.
    table, made = step(table, MoveCmd(1, CHALLENGE), SeededDice(3))
    log += [(table.seq - 1 + i, e.kind.value, e.payload) for i, e in enumerate(made)]
    assert [e.kind.value for e in made] == ["move", "dealt"]
    dealt = made[1].payload
    # (version 1: the server's seed alone; a table with persons also commits to
    # the round after, for their pages to answer: docs/fair-dice.md version 2)
    assert set(dealt) == {"hands", "commitment", "seed", "next"} and len(table.seeds) == 2
    view = views.state_message(Room(table), 1)["view"]
    assert view["commitment"] == dealt["commitment"] and dealt["seed"] not in json.dumps(view)
    assert view["next_commitment"] == dealt["next"]["commitment"] and dealt["next"]["seed"] not in json.dumps(view)
    assert (view["results"][0]["commitment"], view["results"][0]["seed"]) == (None, None)
    # The stored events, old and new, rebuild the same table (a restart keeps the seeds).
    again = rebuild(log)
    assert again.seeds == table.seeds and again.state == table.state


def test_a_calza_reveals_the_seed_like_a_challenge() -> None:
    """perudo (RULES.md ``perudo`` "Calza"): a calza ends the round with a reveal,
    so it publishes the round's seed; the next round has a new commitment."""
    from liars_dice.engine import CALZA
    from liars_dice.server.core.commands import AddBot, Join, Start

    rules = Rules.preset("perudo").with_options(dice_per_player=2)
    created = {
        "id": "t1", "code": "ABCDEF", "preset": "perudo", "rules": rules.to_dict(), "n_seats": 3,
        "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00",
    }
    for seed in range(200):
        dice = SeededDice(seed)
        t = rebuild([(1, "created", created)])
        for c in (Join("ann", "h-ann", 0), Join("bob", "h-bob"), AddBot(0, "random"), Start(0, 1)):
            t, _ = step(t, c, dice)
        t, _ = step(t, MoveCmd(t.state.to_move, Bid(1, 3)), dice)
        if CALZA in t.state.legal_actions():
            break
    else:
        pytest.skip("no calza allowed in these deals")
    entry = t.seeds[0]
    assert entry is not None
    secret = (entry.commitment, entry.seed)
    before = views.state_message(Room(t), 0)
    assert before["view"]["commitment"] == secret[0] and secret[1] not in json.dumps(before)
    t, made = step(t, MoveCmd(t.state.to_move, CALZA), dice)
    assert made[0].payload["calza"] is True
    msg = views.state_message(Room(t), 0)
    assert msg["event"]["kind"] == "calza"
    assert (msg["event"]["result"]["commitment"], msg["event"]["result"]["seed"]) == secret
    assert msg["view"]["results"][0]["seed"] == secret[1]
    if msg["view"]["phase"] != "over":
        assert msg["view"]["commitment"] not in (None, secret[0])


def test_dice_passed_in_process_choose_the_opener_and_the_seeds_and_the_record_still_verifies(
    cli: str, settings: Any, tmp_path: Path,
) -> None:
    """Issue 36, fault 10: the browser tests get the host's turn facing a bid by
    construction, through dice passed to ``create_app`` in-process
    (``tests/e2e/scripted_serve.py``): the first opener is drawn from them (the
    last seat, the one before the host's), and so is every server seed, whose
    commitments the record still verifies. No setting reaches that source."""
    import dataclasses
    import importlib.util

    from liars_dice.engine import commitment
    from liars_dice.server import Settings, create_app

    from helpers import close_all

    spec = importlib.util.spec_from_file_location("scripted_serve", Path(__file__).parents[1] / "e2e" / "scripted_serve.py")
    assert spec is not None and spec.loader is not None
    scripted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scripted)
    assert not {"dice", "dice_source", "seed"} & {f.name for f in dataclasses.fields(Settings)}, "no setting chooses the dice"
    with TestClient(create_app(settings, dice=scripted.OpenerBeforeHost(7))) as client:
        try:
            t = create(client, "ann", preset="classic", seats=2, options={"dice_per_player": 2})
            code = t["code"]
            j = join(client, code, "bob")
            ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
            ann.send({"type": "start", "id": "s"})
            assert ann.wait(lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
            assert ann.wait(is_state)["view"]["to_move"] == "bob", "the seat before the host's opens"
            play_scripted([ann, bob], random.Random(4))
            record = client.get(f"/api/tables/{code}/record").json()
        finally:
            close_all()
    first = bytes(f - 1 for f in SeededDice(7).roll(32, 256))  # the first seed drawn: committed at the table's creation
    assert record["rounds"][0]["seed"] == first.hex() and record["rounds"][0]["commitment"] == commitment(first)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = verify(cli, path)
    assert out.returncode == 0 and f"all {len(record['rounds'])} rounds check out" in out.stdout, out.stdout + out.stderr
