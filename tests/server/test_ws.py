"""The websocket protocol against the real app: validation, refusals that change
nothing, host rights, the turn timer, reconnects and replacement by a bot."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import Player, create, is_state, join, running
from starlette.testclient import TestClient

from liars_dice.engine import Bid, Rules
from liars_dice.server import Settings


def reply(p: Player, msg_id: Any) -> dict[str, Any]:
    return p.wait(lambda m: m["type"] in ("ack", "error", "pong") and m.get("id") == msg_id)


def started_table(client: TestClient, seats: int = 3, **kw: Any) -> tuple[str, Player, Player]:
    """ann (host) and bob seated, the other seats random bots, game started."""
    t = create(client, "ann", seats=seats, **kw)
    code = t["code"]
    j = join(client, code, "bob")
    ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
    for i in range(seats - 2):
        ann.send({"type": "add_bot", "bot": "random", "id": f"b{i}"})
        assert reply(ann, f"b{i}")["type"] == "ack"
    ann.send({"type": "start", "id": "s"})
    assert reply(ann, "s")["type"] == "ack"
    return code, ann, bob


def sync(client: TestClient, code: str, token: str | None) -> dict[str, Any]:
    """A fresh connection's view of the table."""
    p = Player(client, code, token)
    st = p.wait(is_state)
    p.close()
    return st["view"]


def test_hello_must_come_first_and_tokens_must_hold_a_seat(client: TestClient) -> None:
    t = create(client, "ann")
    with client.websocket_connect(f"/ws/tables/{t['code']}") as ws:
        ws.send_text(json.dumps({"type": "chat", "text": "hi", "id": 1}))
        assert json.loads(ws.receive_text())["code"] == "auth/required"
        ws.send_text(json.dumps({"type": "hello", "token": "not-a-token"}))
        assert json.loads(ws.receive_text())["code"] == "auth/bad_token"
    with client.websocket_connect("/ws/tables/NOPE00") as ws:
        assert json.loads(ws.receive_text())["code"] == "table/not_found"


def test_malformed_messages_get_errors_and_change_nothing(client: TestClient) -> None:
    # Two people and no bot: nobody moves unless told, so "before" and "after" can be equal
    # (a bot at a third seat could open in between: fair dice choose the opener).
    code, ann, bob = started_table(client, seats=2)
    before = sync(client, code, None)
    bad = [
        ("{not json", "message/invalid"),
        (json.dumps([1, 2]), "message/invalid"),
        (json.dumps({"type": "teleport"}), "message/invalid"),
        (json.dumps({"type": "bid", "quantity": "3", "face": 2}), "message/invalid"),
        (json.dumps({"type": "bid", "quantity": True, "face": 2}), "message/invalid"),
        (json.dumps({"type": "bid", "quantity": 3, "face": 2, "seat": 0}), "message/invalid"),
        (json.dumps({"type": "bid", "quantity": 3}), "message/invalid"),
        (json.dumps({"type": "chat", "text": "x" * 301}), "chat/invalid"),
        (json.dumps({"type": "chat", "text": "\u202egood luck"}), "chat/invalid"),
        ("[" * 2000, "message/too_deep"),
        (json.dumps({"type": "chat", "text": "x" * 5000}), "message/too_large"),
        (json.dumps({"type": "hello"}), "message/invalid"),
    ]
    for text, code_ in bad:
        ann.send_raw(text)
        err = ann.wait(lambda m: m["type"] == "error")
        assert err["code"] == code_, (text[:60], err)
    after = sync(client, code, None)
    assert after == before


def test_refused_moves_leave_the_state_unchanged(client: TestClient) -> None:
    code, ann, bob = started_table(client, seats=2)
    st = ann.wait(is_state)["view"]
    mover, other = (ann, bob) if st["to_move"] == "ann" else (bob, ann)
    before = sync(client, code, None)
    other.send({"type": "bid", "quantity": 1, "face": 2, "id": 1})
    assert reply(other, 1)["code"] == "action/inactive_player"
    mover.send({"type": "challenge", "id": 2})
    assert reply(mover, 2)["code"] == "action/illegal"  # no bid to challenge yet
    mover.send({"type": "bid", "quantity": 11, "face": 2, "id": 3})
    assert reply(mover, 3)["code"] == "action/illegal"  # more than the dice in play
    mover.send({"type": "bid", "quantity": 1, "face": 2, "show": [2], "id": 4})
    assert reply(mover, 4)["code"] == "action/illegal"  # classic has no show-and-reroll
    mover.send({"type": "add_bot", "bot": "random", "id": 5})
    assert reply(mover, 5)["code"] in ("table/started", "table/not_host")
    assert sync(client, code, None) == before
    mover.send({"type": "bid", "quantity": 2, "face": 3, "id": 6})
    assert reply(mover, 6)["type"] == "ack"
    mover.send({"type": "bid", "quantity": 2, "face": 2, "id": 7})
    assert reply(mover, 7)["code"] == "action/inactive_player"
    other_view = other.wait(lambda m: is_state(m) and m["view"]["move_number"] == 1)["view"]
    assert other_view["odds"] is not None and 0 <= other_view["odds"] <= 1
    raises = [{"quantity": b["quantity"], "face": b["face"]} for b in other_view["legal"]["raises"]]
    assert {"quantity": 2, "face": 3} not in raises
    assert {"quantity": 2, "face": 4} in raises
    other.send({"type": "bid", "quantity": 2, "face": 3, "id": 8})
    err = reply(other, 8)
    assert err["code"] == "action/illegal" and "does not raise" in err["message"]


def test_only_the_host_adds_bots_and_starts(client: TestClient) -> None:
    t = create(client, "ann", seats=3)
    code = t["code"]
    j = join(client, code, "bob")
    ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
    bob.send({"type": "add_bot", "bot": "random", "id": 1})
    assert reply(bob, 1)["code"] == "table/not_host"
    ann.send({"type": "start", "id": 2})
    assert reply(ann, 2)["code"] == "table/seats_empty"
    ann.send({"type": "add_bot", "bot": "nonsense", "id": 3})
    assert reply(ann, 3)["code"] == "bot/unknown"
    ann.send({"type": "add_bot", "bot": "random", "seat": 1, "id": 4})
    assert reply(ann, 4)["code"] == "seat/taken"
    ann.send({"type": "add_bot", "bot": "random", "id": 5})
    assert reply(ann, 5)["type"] == "ack"
    tbl = bob.wait(lambda m: m["type"] == "table" and m["table"]["seats"][2]["kind"] == "bot")["table"]
    assert tbl["seats"][2]["bot"] == "random"
    ann.send({"type": "remove_bot", "seat": 2, "id": 6})
    assert reply(ann, 6)["type"] == "ack"
    ann.send({"type": "add_bot", "bot": "random", "seat": 2, "id": 7})
    assert reply(ann, 7)["type"] == "ack"
    visitor = Player(client, code, None)
    visitor.send({"type": "start", "id": 8})
    assert reply(visitor, 8)["code"] == "seat/visitor"
    ann.send({"type": "start", "id": 9})
    assert reply(ann, 9)["type"] == "ack"
    st = visitor.wait(is_state)
    assert st["event"]["kind"] == "start" and st["view"]["hand"] == [] and st["view"]["seat"] is None
    r = client.post(f"/api/tables/{code}/join", json={"nickname": "cy"})
    assert r.json()["error"]["code"] == "table/started"


def test_chat_reaches_everyone_and_is_kept(client: TestClient) -> None:
    code, ann, bob = started_table(client)
    ann.send({"type": "chat", "text": "  good   luck ", "id": 1})
    assert reply(ann, 1)["type"] == "ack"
    line = bob.wait(lambda m: m["type"] == "chat")
    assert line["name"] == "ann" and line["text"] == "good luck"
    late = Player(client, code, None)
    hist = late.wait(lambda m: m["type"] == "chat")
    assert hist["history"] is True and hist["text"] == "good luck"


def test_rate_limit(db_url: str) -> None:
    with running(Settings(db_url=db_url, bot_delay=0.0, message_rate="5 per 10 seconds")) as client:
        t = create(client, "ann")
        ann = Player(client, t["code"], t["token"])
        for i in range(9):  # with the hello, 10: 5 allowed, 5 refused (one more would close it)
            ann.send({"type": "ping", "id": i})
        replies = [ann.wait(lambda m: m["type"] in ("pong", "error")) for _ in range(9)]
        assert sum(1 for r in replies if r["type"] == "error" and r["code"] == "rate/limited") >= 5
        assert sum(1 for r in replies if r["type"] == "pong") >= 4  # the hello took one


def test_turn_timer_makes_a_bot_move_for_the_seat(db_url: str) -> None:
    with running(Settings(db_url=db_url, bot_delay=0.0, grace=600)) as client:
        t = create(client, "ann", seats=2, turn_timer=5)
        code = t["code"]
        j = join(client, code, "bob")
        ann, _bob = Player(client, code, t["token"]), Player(client, code, j["token"])
        ann.send({"type": "start", "id": "s"})
        first = ann.wait(is_state)["view"]
        assert first["deadline"] is not None and first["turn_timer"] == 5
        # Nobody moves: after 5 s a bot plays the move for the seat to move.
        nxt = ann.wait(lambda m: is_state(m) and m["view"]["move_number"] == 1)
        assert nxt["event"]["kind"] == "bid" and nxt["event"]["by_bot"] is True
        assert nxt["event"]["player"] == first["to_move"]
        # The seat is still the person's: they can move on their next turn.
        summary = client.get(f"/api/tables/{code}").json()
        assert [s["kind"] for s in summary["seats"]] == ["human", "human"]


def test_reconnect_with_the_token_returns_the_same_seat(client: TestClient) -> None:
    code, ann, bob = started_table(client)
    view = bob.wait(is_state)["view"]
    bob.close()
    # Reconnect (a reload): same seat, same hidden dice.
    again = Player(client, code, bob.token)
    assert again.welcome["seat"] == 1 and again.welcome["name"] == "bob"
    st = again.wait(is_state)
    assert st["event"]["kind"] == "sync" and st["view"]["seat"] == "bob"
    if st["view"]["round"] == view["round"]:
        assert st["view"]["hand"] == view["hand"]


def test_leave_for_good_hands_the_seat_to_a_bot(client: TestClient) -> None:
    code, ann, bob = started_table(client)
    bob.send({"type": "leave", "id": "l"})
    assert reply(bob, "l")["type"] == "ack"
    tbl = ann.wait(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")["table"]
    assert tbl["seats"][1]["replaced"] is True and tbl["seats"][1]["name"] == "bob"
    bob.send({"type": "bid", "quantity": 1, "face": 2, "id": "b"})
    assert reply(bob, "b")["code"] == "seat/visitor"  # leaving revoked the seat: bob watches


def test_gone_past_the_grace_period_means_a_bot_takes_over(db_url: str) -> None:
    with running(Settings(db_url=db_url, bot_delay=0.0, grace=0.5)) as client:
        code, ann, bob = started_table(client)
        bob.close()
        tbl = ann.wait(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")["table"]
        assert tbl["seats"][1]["replaced"] is True
        # Coming back after that gives the seat back to the person.
        again = Player(client, code, bob.token)
        assert again.welcome["seat"] == 1
        tbl = ann.wait(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "human")["table"]
        assert "replaced" not in tbl["seats"][1]


@pytest.mark.parametrize("n", [2])
def test_several_tabs_of_one_seat_get_the_same_view(client: TestClient, n: int) -> None:
    code, ann, bob = started_table(client, seats=2)
    tab2 = Player(client, code, ann.token)
    v1 = ann.wait(is_state)["view"]
    v2 = tab2.wait(is_state)["view"]
    # Nobody has moved (two people seated, no bots): both tabs show the same position.
    assert v1["move_number"] == v2["move_number"] == 0
    assert v1["hand"] == v2["hand"] and len(v1["hand"]) > 0
    assert v1 == v2 or {k for k in v1 if v1[k] != v2.get(k)} <= {"deadline"}


def test_a_freed_seat_leaves_every_tab_of_its_old_player(client: TestClient) -> None:
    t = create(client, "ann", seats=2)
    code = t["code"]
    j = join(client, code, "bob")
    ann = Player(client, code, t["token"])
    bob1, bob2 = Player(client, code, j["token"]), Player(client, code, j["token"])
    bob1.send({"type": "leave", "id": "l"})
    assert reply(bob1, "l")["type"] == "ack"
    cy = join(client, code, "cy")
    assert cy["seat"] == 1
    ann.send({"type": "start", "id": "s"})
    assert reply(ann, "s")["type"] == "ack"
    for tab in (bob1, bob2):
        st = tab.wait(is_state)["view"]
        assert st["seat"] is None and st["hand"] == []  # watching, not cy's seat
        tab.send({"type": "chat", "text": "hi", "id": "c"})
        assert reply(tab, "c")["code"] == "seat/visitor"
    # bob's old token holds no seat any more, and is told why.
    again = Player(client, code, j["token"])
    assert again.welcome["code"] == "auth/revoked"


def test_a_served_raise_can_be_sent_back_as_it_came(client: TestClient) -> None:
    """An entry of ``legal.raises`` (with its ``chance``, and the ``label`` and
    ``words`` the page adds from ``bid_words``) is a valid ``bid`` message as it
    stands (docs/server-protocol.md, "Client to server"); its extra fields stay
    bounded. The raises carry no words: the first state message of a game
    carries every bid's (issue 16, cheaper moves)."""
    code, ann, bob = started_table(client, seats=2)
    first = ann.wait(is_state)
    st = first["view"]
    mover = ann if st["to_move"] == "ann" else bob
    msg = first if mover is ann else bob.wait(is_state)
    served = msg["view"]["legal"]["raises"][0]
    assert set(served) == {"quantity", "face", "chance"}
    words = {(q, f): (label, w) for q, f, label, w in msg["bid_words"]}
    rules = Rules.preset("classic")
    bid = Bid(served["quantity"], served["face"])
    assert words[bid.quantity, bid.face] == (rules.format_bid(bid), rules.describe_bid(bid))
    served = {**served, "label": words[bid.quantity, bid.face][0], "words": words[bid.quantity, bid.face][1]}
    mover.send({"type": "bid", **served, "id": "r"})
    assert reply(mover, "r")["type"] == "ack"
    mover_state = mover.wait(lambda m: is_state(m) and m["view"]["move_number"] == 1)["view"]
    assert mover_state["bids"][-1]["bid"] == {"quantity": served["quantity"], "face": served["face"]}
    other = bob if mover is ann else ann
    nxt = other.wait(lambda m: is_state(m) and m["view"]["move_number"] == 1)["view"]
    too_long = {**nxt["legal"]["raises"][0], "words": "x" * 201, "id": "w"}
    other.send({"type": "bid", **too_long})
    assert reply(other, "w")["code"] == "message/invalid"
