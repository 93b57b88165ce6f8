"""Whole games over real websockets (bots plus scripted players plus a visitor):
every message a seat receives is its own view and nothing more.

Issue 4, "Safety": a test records every message sent to a seat through whole
games and asserts that none holds another seat's hidden dice before the reveal.

Issue 7, "Fair dice anyone can check": no round seed is ever sent before its
round is revealed, in any encoding, in any message; every seat sees the
round's commitment from the deal on (before the first bid); the downloaded
record verifies (``liars_dice.records.verify_record``).
"""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest
from helpers import Player, create, is_state, join
from starlette.testclient import TestClient

from liars_dice.engine import CALZA, CHALLENGE, Bid, Game, PublicView, Rules, State
from liars_dice.records import verify_record

#: Keys a view may hold beyond the engine's ``SeatView.to_json()``; none holds dice
#: but ``legal.shows`` (sub-multisets of the seat's own hand, checked below).
SERVER_KEYS = {
    "legal", "odds", "exact_odds", "current", "seat_index", "rules_options", "rules_summary", "round", "move_number", "deadline",
    "turn_timer", "commitment", "contribution_digests", "next_commitment",
    "reveal_until", "game",  # issue 17: the reveal holds the next turn until then; the table's game number
    "wild_note",  # issue 38: whether wilds count this round, in words
}
#: Keys a served result holds beyond the engine's: the fair-dice reveal, the round's wild rule,
#: and the engine's words (issue 8: the browser renders what the server sends).
RESULT_KEYS = {"wilds_active", "commitment", "seed", "contributions", "missing", "bid_words", "bid_label", "counted", "perfect", "verdict",
               # issue 38: what the page checks the reveal with, served with the seed that gives it all
               "round", "dealt", "rerolls"}
BID_EXTRAS = {"label", "words"}


def play_scripted(
    players: list[Any], rng: random.Random, show_rate: float = 0.0, stop_after: int | None = None,
    challenge_rate: float = 0.35,
) -> None:
    """Drive the people at the table until the game ends: whoever is to move
    bids or challenges at random among its legal actions (a challenge with
    chance ``challenge_rate``, or when no raise is left). With ``stop_after``,
    stop instead at the first person's turn once that many moves are played."""
    watcher = players[0]
    state = watcher.last_state() or watcher.wait(is_state)
    by_name = {p.welcome["name"]: p for p in players}
    for _ in range(3000):
        view = state["view"]
        if view["phase"] == "over":
            return
        mn = view["move_number"]
        mover = by_name.get(view["to_move"])
        if mover is not None and stop_after is not None and mn >= stop_after:
            return
        if mover is not None:
            mine = mover.last_state()
            if mine is None or mine["view"]["move_number"] != mn:
                mine = mover.wait(lambda m: is_state(m) and m["view"]["move_number"] == mn)
            legal = mine["view"]["legal"]
            if legal["challenge"] and (rng.random() < challenge_rate or not legal["raises"]):
                mover.send({"type": "challenge", "id": mn})
            else:
                raises = legal["raises"][: max(3, len(legal["raises"]) // 8)]
                bid = rng.choice(raises)
                show = rng.choice(legal["shows"]) if rng.random() < show_rate else []
                mover.send({"type": "bid", "quantity": bid["quantity"], "face": bid["face"], "show": show, "id": mn})
            reply = mover.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == mn)
            assert reply["type"] == "ack", reply
        state = watcher.wait(lambda m: is_state(m) and m["view"]["move_number"] > mn)
    raise AssertionError("the game did not end")


def truth_by_move(record: dict[str, Any], rules: Rules) -> dict[int, State]:
    """The god's-eye state after each number of moves, rebuilt from the record."""
    names = record["players"]
    game = Game.create(rules, names)
    st = game.initial_state(names.index(record["start"]))
    out: dict[int, State] = {}
    mn = 0
    for rnd in record["rounds"]:
        st = st.deal([rnd["dice"].get(n, []) for n in names])
        out[mn] = st
        for m in rnd["moves"]:
            seat = names.index(m["player"])
            if m.get("challenge"):
                st = st.apply(CHALLENGE, seat=seat)
            elif m.get("calza"):  # RULES.md perudo "Calza"
                st = st.apply(CALZA, seat=seat)
            else:
                st = st.apply(Bid(m["bid"]["quantity"], m["bid"]["face"]), m.get("show", []), seat=seat)
                if m.get("show"):
                    st = st.reroll(m["reroll"])
            mn += 1
            out[mn] = st
    return out


def dice_lists(obj: Any, path: str = "") -> list[tuple[str, list[int]]]:
    """Every list of integers in a message, with its key path."""
    found: list[tuple[str, list[int]]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            found += dice_lists(v, f"{path}.{k}")
    elif isinstance(obj, list):
        if obj and all(isinstance(x, int) and not isinstance(x, bool) for x in obj):
            found.append((path, obj))
        for i, v in enumerate(obj):
            found += dice_lists(v, f"{path}[{i}]")
    return found


def check_messages(received: list[dict[str, Any]], seat: int | None, truth: dict[int, State]) -> int:
    """Assert every message holds at most ``seat``'s own view; returns the states checked."""
    checked = 0
    for m in received:
        if m["type"] != "state":
            # No other message holds any die.
            assert not dice_lists(m), m
            continue
        assert isinstance(m["server_time"], float)
        v = m["view"]
        st = truth[v["move_number"]]
        if st.is_chance:  # pragma: no cover - the server never shows a chance state
            raise AssertionError("a chance state was sent")
        # A seat gets the engine's view of that seat; a spectator the engine's
        # public view (no seat, no hand), never another seat's view blanked.
        expected = st.view(seat).to_json() if seat is not None else PublicView.of(st).to_json()
        if seat is None:
            assert v["seat"] is None and v["hand"] == [] and "legal" not in v and "odds" not in v
        extra = SERVER_KEYS if seat is not None else SERVER_KEYS - {"legal", "odds", "exact_odds"}
        assert set(v) == set(expected) | extra, set(v) ^ (set(expected) | extra)
        for k, val in expected.items():
            if k == "results":  # served with each round's wild rule and the engine's words added
                assert [r["wilds_active"] for r in v[k]] == [r.wilds_active for r in st.results]
                assert [r["bid_words"] for r in v[k]] == [st.rules.describe_bid(r.bid) for r in st.results]
                assert [{x: y for x, y in r.items() if x not in RESULT_KEYS} for r in v[k]] == val
                continue
            if k == "bids":  # each with the engine's label and words
                assert [b["words"] for b in v[k]] == [st.rules.describe_bid(b) for _, b, _ in st.bids]
                assert [{x: y for x, y in b.items() if x not in BID_EXTRAS} for b in v[k]] == val
                continue
            assert v[k] == val, (k, v[k], val)
        hand = list(v["hand"])
        for show in v["legal"]["shows"] if seat is not None else []:
            rest = hand.copy()
            for f in show:
                rest.remove(f)  # ValueError if a show names a die not in the own hand
        # Before the reveal, no other seat's hidden dice appear anywhere but in results.
        for path, lst in dice_lists(m):
            top = path.split(".")[2] if path.startswith(".view.") else path
            allowed = path.startswith(".view.results") or path.startswith(".event.result") or path in (
                ".view.hand",
            ) or path.startswith(".view.shown") or ".show" in path or path.startswith(".view.legal")
            assert allowed, (path, lst, top)
        for other in range(len(st.game.players)):
            if other != seat and st.hidden[other] and seat is not None:
                assert v["hand"] != list(st.hidden[other]) or list(st.hidden[seat]) == list(st.hidden[other])
        checked += 1
    return checked


def seed_forms(seed_hex: str) -> set[str]:
    """A seed as it could leak in a JSON message: hex either case, base64, urlsafe base64."""
    raw = bytes.fromhex(seed_hex)
    b64 = base64.b64encode(raw).decode()
    return {seed_hex, seed_hex.upper(), b64, b64.rstrip("="), base64.urlsafe_b64encode(raw).decode().rstrip("=")}


def check_seeds(received: list[dict[str, Any]], record: dict[str, Any]) -> int:
    """Assert no message holds a round's seed before that round's reveal, and that
    every state of a round in play shows that round's commitment (so every seat
    sees it before the first bid). Returns the states checked."""
    rounds = record["rounds"]
    seeds = [(r, seed_forms(rnd["seed"])) for r, rnd in enumerate(rounds)]
    checked = 0
    for m in received:
        text = json.dumps(m)
        revealed = len(m["view"]["results"]) if m["type"] == "state" else 0
        for r, forms in seeds:
            if r >= revealed:
                assert not any(f in text for f in forms), (r, m)
        if m["type"] != "state":
            continue
        v = m["view"]
        for r, res in enumerate(v["results"]):
            assert (res["commitment"], res["seed"]) == (rounds[r]["commitment"], rounds[r]["seed"])
        if v["phase"] == "over":
            assert v["commitment"] is None
        else:
            assert v["commitment"] == rounds[revealed]["commitment"]
            if not v["bids"]:  # the round's first state: before its first bid
                checked += 1
    return checked


@pytest.mark.parametrize(
    "preset,bots,seed,show_rate",
    [("classic", 2, 1, 0.0), ("wild-stars", 1, 2, 0.3), ("aces-wild", 1, 3, 0.0), ("perudo", 1, 4, 0.0)],
)
def test_every_message_holds_only_the_seats_view(client: TestClient, preset: str, bots: int, seed: int, show_rate: float) -> None:
    rng = random.Random(seed)
    t = create(client, "ann", preset=preset, seats=2 + bots, options={"dice_per_player": 3})
    code = t["code"]
    j = join(client, code, "bob")
    ann = Player(client, code, t["token"])
    bob = Player(client, code, j["token"])
    visitor = Player(client, code, None)
    for _ in range(bots):
        ann.send({"type": "add_bot", "bot": "random", "id": "b"})
        assert ann.wait(lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
    ann.send({"type": "start", "id": "s"})
    assert ann.wait(lambda m: m["type"] in ("ack", "error"))["type"] == "ack"
    play_scripted([ann, bob], rng, show_rate)
    for p in (bob, visitor):
        p.wait(lambda m: is_state(m) and m["view"]["phase"] == "over")
    record = client.get(f"/api/tables/{code}/record").json()
    rules = Rules.preset(preset).with_options(dice_per_player=3)
    truth = truth_by_move(record, rules)
    final = truth[max(truth)]
    assert final.is_over
    names = record["players"]
    n_checked = first_states = 0
    for p in (ann, bob, visitor):
        p.close()
        seat = names.index(p.welcome["name"]) if p.welcome["seat"] is not None else None
        n_checked += check_messages(p.received, seat, truth)
        first_states += check_seeds(p.received, record)
    assert n_checked >= 3 * len(final.results)
    # Every round's commitment reached every client before that round's first bid
    # (the visitor joined before the start, so all three saw every round's deal).
    assert first_states >= 3 * len(record["rounds"])
    report = verify_record(record)
    assert len(report.rounds) == len(record["rounds"]) == len(final.results)
    if show_rate:
        assert any(m.get("show") for r in record["rounds"] for m in r["moves"]), "no show was played"
