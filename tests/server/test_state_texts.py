"""The state messages of one event, built at once (issue 16, "Cheaper moves"):
:func:`~liars_dice.server.core.views.state_texts` encodes the public part once
and adds each seat's own part; each message must be exactly the one built for
that seat alone from the engine's view (:func:`~liars_dice.server.core.views.seat_view`,
:func:`~liars_dice.server.core.views.public_view`), at every move of games
under every preset (bids, challenges, calzas, shows, palifico rounds)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from liars_dice.engine import PRESETS, Bid, Calza, Challenge, Rules, SeededDice
from liars_dice.server.core import views
from liars_dice.server.core.commands import AddBot, Create, Move, Start, step
from liars_dice.server.core.tables import unopened
from liars_dice.server.runtime.room import Room


def _table(preset: str, seats: int, seed: int) -> Any:
    rules = Rules.preset(preset)
    payload = {"id": "t1", "code": "ABCDEF", "preset": preset, "rules": rules.to_dict(), "n_seats": seats,
               "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00"}
    dice = SeededDice(seed)
    t, _ = step(unopened(payload), Create(payload, "ann", "h0"), dice)
    for _ in range(seats - 1):
        t, _ = step(t, AddBot(0, "random"), dice)
    t, _ = step(t, Start(0, 0), dice)
    return t, dice


def _reference(room: Room, seat: int | None, sync: bool = False) -> dict[str, Any]:
    view = views.seat_view(room, seat) if seat is not None else views.public_view(room)
    out = {"type": "state", "view": view, "event": views._event_json(room, sync)}
    if sync or room.table.last_event.get("kind") == "start":
        state = room.table.state
        assert state is not None
        out["bid_words"] = json.loads(views.bid_words_json(state.rules, sum(state.game.dice)))
    else:  # the rules are sent where a client starts to follow the game (and are in the table summary)
        view["rules_options"] = view["rules_summary"] = None
    return out


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_message_of_an_event_is_the_seats_own(preset: str) -> None:
    rng = random.Random(preset)
    rules = Rules.preset(preset)
    seats = min(4, rules.max_players)
    checked = 0
    for game in range(40):
        if checked >= 150:
            break
        checked += _play(preset, seats, game, rng)
    assert checked >= 30


def _play(preset: str, seats: int, game: int, rng: random.Random) -> int:
    """One game at random, each event's messages checked; returns how many events."""
    t, dice = _table(preset, seats, game)
    room = Room(t)
    checked = 0
    words: dict[tuple[int, int], tuple[str, str]] = {}
    while t.state is not None and t.state.winner is None:
        room.table = t
        texts = views.state_texts(room, [None, *range(seats)])
        for seat, text in texts.items():
            got = json.loads(text)
            assert isinstance(got.pop("server_time"), float)
            assert got == json.loads(json.dumps(_reference(room, seat))), (preset, seat, t.move_number)
        for seat, text in views.state_texts(room, [None, *range(seats)], sync=True).items():  # a client catching up
            got = json.loads(text)
            del got["server_time"]
            assert got == json.loads(json.dumps(_reference(room, seat, True))), (preset, seat, t.move_number)
            if "bid_words" in got:
                words = {(q, f): (label, w) for q, f, label, w in got["bid_words"]}
            # every raise served is worded in the table's bid_words, by the engine
            for r in got["view"].get("legal", {}).get("raises", []):
                bid = Bid(r["quantity"], r["face"])
                assert words[r["quantity"], r["face"]] == (t.rules.format_bid(bid), t.rules.describe_bid(bid))
        checked += 1
        state = t.state
        seat = state.to_move
        acts = state.legal_actions()
        raises = [a for a in acts if isinstance(a, Bid)]
        other = [a for a in acts if isinstance(a, (Challenge, Calza))]
        action = rng.choice(other) if other and (rng.random() < 0.25 or not raises) else rng.choice(raises[:6])
        show: tuple[int, ...] = ()
        if isinstance(action, Bid) and state.rules.show_and_reroll and rng.random() < 0.3:
            show = rng.choice(state.view(seat).legal_shows())
        t, _ = step(t, Move(seat, action, show, False, False, None), dice)
    return checked


def test_one_event_encodes_its_public_part_once_whatever_the_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16 ("one state message per event, not one per socket"): the JSON
    encodings an event's messages cost do not grow with its seats. Six seats
    and a spectator cost at most one encoding more (the spectators' message)
    than the seat to move alone: each seat's hand, raises, odds and current bid
    are written into the shared text, never encoded again."""
    t, dice = _table("classic", 6, 3)
    state = t.state
    assert state is not None
    t, _ = step(t, Move(state.to_move, Bid(2, 3), (), False, False, None), dice)
    room = Room(t)
    assert t.state is not None and t.state.to_move is not None
    mover = t.state.to_move
    views.state_texts(room, [None, *range(6)])  # the caches of the rule set and the names, warm
    calls = [0]
    real = views._dumps

    def counted(obj: Any) -> str:
        calls[0] += 1
        return real(obj)

    monkeypatch.setattr(views, "_dumps", counted)

    def cost(seats: list[int | None]) -> int:
        calls[0] = 0
        views.state_texts(room, seats)
        return calls[0]

    one, every = cost([mover]), cost([None, *range(6)])
    assert 0 < one <= 4
    assert every <= one + 1, (one, every)


def test_the_past_rounds_are_built_once_and_added_to_at_each_challenge(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each challenge adds its round to the results built before (issue 16,
    "cheaper moves": they were all built again at each challenge, O(rounds)
    a challenge). At every move of whole games the room's results, data and
    JSON text, equal those built afresh; a table whose game has fewer rounds
    than the room's cache (a new game) is built afresh too. And each round's
    result is built once."""
    built: list[int] = []
    real = views.result_json

    def counting(r: Any, names: Any, rules: Any) -> Any:
        built.append(1)
        return real(r, names, rules)

    rng = random.Random(3)
    room: Room | None = None
    for game in range(3):
        t, dice = _table("classic", 3, game)
        room = Room(t) if room is None else room  # the same room: a new game after a longer one
        challenges = 0
        while t.state is not None and t.state.winner is None:
            room.table = t
            monkeypatch.setattr(views, "result_json", counting)
            got = views._results(room)
            monkeypatch.setattr(views, "result_json", real)
            fresh = views._results(Room(t))
            assert got == fresh and json.loads(got[1]) == got[0], (game, t.move_number)
            state = t.state
            acts = state.legal_actions()
            raises = [a for a in acts if isinstance(a, Bid)]
            calls = [a for a in acts if isinstance(a, Challenge)]
            action = calls[0] if calls and (rng.random() < 0.4 or not raises) else raises[0]
            challenges += isinstance(action, Challenge)
            t, _ = step(t, Move(state.to_move, action, (), False, False, None), dice)
        assert challenges >= 5
    assert len(built) <= 3 * 15 + 3  # each round once (a 3-seat classic game has at most 14 rounds)
