"""The timer waits for the reveal (issue 17, "Game night": "The next turn's
clock starts when the reveal is over; the reveal has its own length, and the
server enforces it").

After a challenge that leaves the game on, the next turn's deadline is at
least ``reveal_seconds + turn_timer`` away, the view says when the reveal is
over (``reveal_until``), and a person's move before then is refused with one
sentence (``turn/reveal``), changing nothing; a bot's pause starts after it too.
"""

from __future__ import annotations

import time

from helpers import Player, create, is_state, join, running

from liars_dice.server import Settings

REVEAL = 1.5
TIMER = 10


def test_the_next_turn_clock_starts_after_the_reveal(db_url: str) -> None:
    settings = Settings(db_url=db_url, grace=600.0, bot_delay=0.0, reveal_seconds=REVEAL)
    with running(settings) as client:
        t = create(client, "ann", seats=2, turn_timer=TIMER)
        code = t["code"]
        j = join(client, code, "bob")
        ann, bob = Player(client, code, t["token"]), Player(client, code, j["token"])
        assert client.get("/api/config").json()["reveal_seconds"] == REVEAL
        ann.send({"type": "start", "id": "s"})
        ann.wait(lambda m: m.get("id") == "s")
        first = ann.wait(is_state)["view"]
        assert first["reveal_until"] is None  # no reveal before the first round
        by_name = {"ann": ann, "bob": bob}
        opener = by_name[first["to_move"]]
        bid = first["legal"]["raises"][0] if opener is ann else None
        if bid is None:
            bid = bob.wait(lambda m: is_state(m) and m["view"]["move_number"] == 0)["view"]["legal"]["raises"][0]
        opener.send({"type": "bid", "quantity": bid["quantity"], "face": bid["face"], "id": "b"})
        assert opener.wait(lambda m: m.get("id") == "b")["type"] == "ack"
        caller = bob if opener is ann else ann
        caller.wait(lambda m: is_state(m) and m["view"]["move_number"] == 1)
        sent = time.time()
        caller.send({"type": "challenge", "id": "c"})
        assert caller.wait(lambda m: m.get("id") == "c")["type"] == "ack"
        after = caller.wait(lambda m: is_state(m) and m["view"]["move_number"] == 2)
        view = after["view"]
        assert view["phase"] == "bid", "one round does not end a 5-dice game"
        assert view["reveal_until"] is not None and view["reveal_until"] >= sent + REVEAL - 0.05
        # the deadline of the next turn: after the reveal, then the whole turn timer
        assert view["deadline"] >= sent + REVEAL + TIMER - 0.05
        assert view["deadline"] - view["reveal_until"] >= TIMER - 0.01
        nxt = by_name[view["to_move"]]
        mine = view if nxt is caller else nxt.wait(lambda m: is_state(m) and m["view"]["move_number"] == 2)["view"]
        raise_ = mine["legal"]["raises"][0]
        nxt.send({"type": "bid", "quantity": raise_["quantity"], "face": raise_["face"], "id": "early"})
        refused = nxt.wait(lambda m: m.get("id") == "early")
        assert refused["type"] == "error" and refused["code"] == "turn/reveal"
        assert refused["message"].startswith("The reveal is still showing: the next round's turn begins in ")
        assert Player(client, code, None).wait(is_state)["view"]["move_number"] == 2  # nothing changed
        time.sleep(max(0.0, view["reveal_until"] - time.time()) + 0.05)
        nxt.send({"type": "bid", "quantity": raise_["quantity"], "face": raise_["face"], "id": "later"})
        assert nxt.wait(lambda m: m.get("id") == "later")["type"] == "ack"


def test_a_bot_waits_for_the_reveal(db_url: str) -> None:
    """A bot's pause starts after the reveal: its first move of a round comes
    no sooner than ``reveal_seconds`` after the challenge."""
    settings = Settings(db_url=db_url, grace=600.0, bot_delay=0.0, reveal_seconds=REVEAL)
    with running(settings) as client:
        t = create(client, "ann", seats=2)
        code = t["code"]
        ann = Player(client, code, t["token"])
        ann.send({"type": "add_bot", "bot": "random", "id": "b"})
        ann.send({"type": "start", "id": "s"})
        ann.wait(lambda m: m.get("id") == "s")
        challenged_at = None
        for _ in range(200):
            st = ann.wait(is_state)
            view, event = st["view"], st["event"]
            if event.get("kind") in ("challenge", "calza") and view["phase"] == "bid":
                challenged_at = time.time()
                if view["to_move"] != "ann":
                    nxt = ann.wait(lambda m: is_state(m) and m["view"]["move_number"] > view["move_number"])
                    assert time.time() - challenged_at >= REVEAL - 0.1
                    assert nxt["event"]["kind"] == "bid"
                    return
            if view["phase"] == "over":
                break
            if view["to_move"] == "ann" and view["phase"] == "bid":
                left = (view["reveal_until"] or 0) - time.time()
                if left > 0:
                    time.sleep(left + 0.05)
                legal = view["legal"]
                msg = {"type": "challenge"} if legal["challenge"] else {
                    "type": "bid", "quantity": legal["raises"][0]["quantity"], "face": legal["raises"][0]["face"]}
                ann.send({**msg, "id": view["move_number"]})
                assert ann.wait(lambda m: m.get("id") == view["move_number"])["type"] == "ack"
        raise AssertionError("no round where the bot opened after a reveal")
