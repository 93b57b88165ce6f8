"""Dice that not even the server can choose (issue 17, docs/fair-dice.md
version 2): each person's page answers the server's commitment to a deal still
to come with a seed of its own; the dice come from ``mix_seeds`` of the
server's seed and every seed contributed in time; every seed is published at
the reveal, and ``liars-dice verify`` checks the whole derivation.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import secrets
import subprocess
from typing import Any

import pytest
from helpers import Player, create, is_state, join
from starlette.testclient import TestClient

from liars_dice.engine import SeededDice, fair_deal, mix_seeds
from liars_dice.records import FairDiceError, verify_record
from liars_dice.server.core.commands import AddBot, Contribute, Create, Join, Start, step
from liars_dice.server.core.errors import SeedRefused
from liars_dice.server.core.tables import EventKind, Table, TableStatus, rebuild, unopened

from .test_secrecy import play_scripted


def _payload(seats: int = 3) -> dict[str, Any]:
    from liars_dice.engine import PRESETS

    rules = PRESETS["classic"].with_options(dice_per_player=2)
    return {
        "id": "t1", "code": "ABCDEF", "preset": "classic", "rules": rules.to_dict(), "n_seats": seats,
        "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00",
    }


def _run(t: Table, log: list[Any], c: Any, dice: Any) -> Table:
    new, events = step(t, c, dice)
    log += [(t.seq + 1 + i, e.kind.value, e.payload) for i, e in enumerate(events)]
    return new


def _table() -> tuple[Table, list[Any], SeededDice]:
    dice = SeededDice(3)
    log: list[Any] = []
    t = _run(unopened(_payload()), log, Create(_payload(), "ann", "h-ann"), dice)
    t = _run(t, log, Join("bob", "h-bob"), dice)
    t = _run(t, log, AddBot(0, "random"), dice)
    return t, log, dice


def test_the_first_deal_is_committed_when_the_table_is_created() -> None:
    """The server commits to round 1's seed before any page can send one."""
    t, log, _ = _table()
    assert [k for _, k, _ in log][:3] == ["created", "joined", "committed"]
    assert t.next_seed is not None and hashlib.sha256(bytes.fromhex(t.next_seed[1])).hexdigest() == t.next_seed[0]
    assert t.summary(set(), 0)["commitment"] == t.next_seed[0]
    assert t.next_seed[1] not in json.dumps(t.summary(set(), 0))


def test_the_deal_mixes_every_seed_contributed_in_time_and_names_the_missing() -> None:
    t, log, dice = _table()
    commitment, server_seed = t.next_seed  # type: ignore[misc]
    ann = secrets.token_hex(32)
    t = _run(t, log, Contribute(0, commitment, ann), dice)
    t = _run(t, log, Start(0, 1), dice)
    dealt = next(p for _, k, p in log if k == "dealt")
    assert dealt["contributions"] == [[0, ann]] and dealt["missing"] == [1]  # bob's page sent none; the bot is no person
    mixed = mix_seeds(bytes.fromhex(server_seed), 0, [(0, bytes.fromhex(ann))])
    assert t.state is not None and t.state.hidden == fair_deal(mixed, 0, [2, 2, 2])
    # the next round is committed at this deal, before its own deal
    assert t.next_seed is not None and t.next_seed[0] == dealt["next"]["commitment"] != commitment
    back = rebuild(log)  # a restart keeps the contributions and the next commitment
    assert back.seeds == t.seeds and back.next_seed == t.next_seed and back.state == t.state


@pytest.mark.parametrize("case", ["other commitment", "twice", "bot seat", "after the end"])
def test_a_seed_that_cannot_go_into_the_next_deal_is_refused_in_one_sentence(case: str) -> None:
    t, log, dice = _table()
    commitment = t.next_seed[0]  # type: ignore[index]
    seed = secrets.token_hex(32)
    seat = 0
    if case == "other commitment":
        commitment = "0" * 64
    elif case == "twice":
        t = _run(t, log, Contribute(0, commitment, seed), dice)
    elif case == "bot seat":
        seat = 2
    else:
        from dataclasses import replace

        t = replace(t, status=TableStatus.FINISHED)
    with pytest.raises(SeedRefused) as e:
        step(t, Contribute(seat, commitment, seed), dice)
    assert e.value.message.endswith(".") and e.value.message.count(". ") == 0


def test_the_mix_is_the_documented_hmac() -> None:
    """docs/fair-dice.md version 2: HMAC-SHA256(key = server seed, "liars-dice-fair-dice/2/mix/R" + "/S:hex" per seat)."""
    server, a, b = bytes(32), bytes(range(32)), bytes([255] * 32)
    want = hmac.new(server, f"liars-dice-fair-dice/2/mix/2/0:{a.hex()}/2:{b.hex()}".encode(), hashlib.sha256).digest()
    assert mix_seeds(server, 2, [(2, b), (0, a)]) == want
    assert mix_seeds(bytes(range(32)), 2, [(0, bytes(32)), (2, bytes([255] * 32))]).hex() == (
        "97764748db96bfc92252809063d8291716cabf9d44902dd9ffbaaa420f4c13b9"
    )
    assert fair_deal(mix_seeds(bytes(range(32)), 2, [(0, bytes(32)), (2, bytes([255] * 32))]), 2, [2, 0, 3]) == (
        (5, 3), (), (6, 1, 6),
    )


# -- through the server -----------------------------------------------------------------------


def _answer(player: Player, commitment: str) -> str:
    seed = secrets.token_hex(32)
    player.send({"type": "seed", "commitment": commitment, "seed": seed, "id": f"seed-{commitment[:8]}"})
    reply = player.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == f"seed-{commitment[:8]}")
    assert reply["type"] == "ack", reply
    return seed


def _played_game(client: TestClient) -> tuple[dict[str, Any], dict[str, list[str]], list[Player]]:
    t = create(client, "ann", seats=3, options={"dice_per_player": 2})
    b = join(client, t["code"], "bob")
    ann, bob = Player(client, t["code"], t["token"]), Player(client, t["code"], b["token"])
    seeds: dict[str, list[str]] = {"ann": [], "bob": []}
    first = ann.welcome["table"]["commitment"]
    assert first and first == bob.welcome["table"]["commitment"]
    seeds["ann"].append(_answer(ann, first))
    seeds["bob"].append(_answer(bob, first))
    ann.send({"type": "add_bot", "bot": "random"})
    ann.wait(lambda m: m["type"] == "table" and all(s["kind"] != "empty" for s in m["table"]["seats"]))
    ann.send({"type": "start", "id": "go"})
    assert ann.wait(lambda m: m.get("id") == "go")["type"] == "ack"
    view = ann.wait(is_state)["view"]
    # the round after is committed from the deal on: both pages answer it now
    assert view["next_commitment"] and view["contribution_digests"] == {
        n: hashlib.sha256(bytes.fromhex(s[0])).hexdigest() for n, s in seeds.items()
    }
    seeds["ann"].append(_answer(ann, view["next_commitment"]))
    seeds["bob"].append(_answer(bob, view["next_commitment"]))
    play_scripted([ann, bob], random.Random(4))
    record = client.get(f"/api/tables/{t['code']}/record").json()
    return record, seeds, [ann, bob]


def test_a_served_game_with_contributed_seeds_verifies_and_keeps_each_seed_secret(client: TestClient) -> None:
    record, seeds, players = _played_game(client)
    rounds = record["rounds"]
    assert len(rounds) >= 2
    for r in (0, 1):
        assert rounds[r]["contributions"] == {"ann": seeds["ann"][r], "bob": seeds["bob"][r]}
        assert rounds[r]["missing"] == []
    for r, rnd in enumerate(rounds[2:], start=2):  # nobody answered these: named missing, dealt all the same
        assert rnd["contributions"] == {} and set(rnd["missing"]) <= {"ann", "bob"}, rnd
    report = verify_record(record)
    assert report.rounds[0].contributors == ("ann", "bob") and report.rounds[0].mixed
    # Secrecy: no page learns another page's seed, nor any seed, before the round's reveal.
    for me, other in ((players[0], "bob"), (players[1], "ann")):
        for r, seed in enumerate(seeds[other]):
            for m in me.received:
                if seed in json.dumps(m):
                    view = m.get("view") or {}
                    assert len(view.get("results", [])) > r or (m.get("event") or {}).get("result"), m


def test_verify_refuses_an_edited_contributed_seed_by_name(client: TestClient, cli: str, tmp_path: Any) -> None:
    record, _, _ = _played_game(client)
    edited = copy.deepcopy(record)
    edited["rounds"][0]["contributions"]["bob"] = "ab" * 32
    with pytest.raises(FairDiceError) as e:
        verify_record(edited)
    assert "bob's contributed seed" in e.value.message and "rounds[0].contributions" in e.value.message
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(record))
    out = subprocess.run([cli, "verify", str(ok)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "seeds from the players' own pages (ann, bob)" in " ".join(out.stdout.split())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(edited))
    out = subprocess.run([cli, "verify", str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "bob's contributed seed" in out.stderr
