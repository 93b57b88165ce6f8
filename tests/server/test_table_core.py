"""The pure table core (issue 7, "The table core: one authoritative path"):
``decide``/``apply``/``step`` over a :class:`Table` value, no server running.

* a move runs the engine's checked transition once;
* folding ``apply`` over the stored events (a restart) gives the live table;
* a refused command raises and makes no event.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.engine import CHALLENGE, Bid, IllegalActionError, NotYourTurnError, PRESETS, SeededDice, State
from liars_dice.server.core.errors import NotHost, SeatEmpty, SeatReplaced, SeatsEmpty, TableStarted
from liars_dice.server.core.commands import AddBot, Chat, Join, Leave, Move, RemoveSeat, Start, step
from liars_dice.server.core.tables import Departure, EventKind, SeatKind, Table, TableStatus, created, rebuild


def new_table(preset: str = "classic", seats: int = 3, dice: int = 2) -> tuple[Table, list[tuple[int, str, dict[str, Any]]]]:
    rules = PRESETS[preset].with_options(dice_per_player=dice)
    payload = {
        "id": "t1", "code": "ABCDEF", "preset": preset, "rules": rules.to_dict(), "n_seats": seats,
        "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00",
    }
    return created(payload), [(1, "created", payload)]


def run(t: Table, log: list[tuple[int, str, dict[str, Any]]], c: Any, dice: Any) -> Table:
    """``step``, keeping the events as the store would."""
    new, events = step(t, c, dice)
    for i, e in enumerate(events):
        log.append((t.seq + 1 + i, e.kind.value, e.payload))
    assert new.seq == t.seq + len(events)
    return new


def started(preset: str = "classic", seed: int = 1) -> tuple[Table, list[Any], SeededDice]:
    dice = SeededDice(seed)
    t, log = new_table(preset)
    t = run(t, log, Join("ann", "h-ann", 0), dice)
    t = run(t, log, Join("bob", "h-bob"), dice)
    t = run(t, log, AddBot(0, "random"), dice)
    t = run(t, log, Start(0, 1), dice)
    return t, log, dice


def test_a_move_calls_the_engine_once(monkeypatch: pytest.MonkeyPatch) -> None:
    t, log, dice = started("wild-stars")
    calls = []
    real = State.apply

    def counting(self: State, *a: Any, **kw: Any) -> State:
        calls.append(a)
        return real(self, *a, **kw)

    monkeypatch.setattr(State, "apply", counting)
    seat = t.state.to_move
    hand = t.state.hidden[seat]
    t = run(t, log, Move(seat, Bid(2, 3), (hand[0],)), dice)  # a bid with a show and a reroll
    assert len(calls) == 1
    assert t.last_event["show"] == [hand[0]] and t.move_number == 1
    t = run(t, log, Move(t.state.to_move, CHALLENGE), dice)  # a challenge, then the next deal
    assert len(calls) == 2
    assert [k for _, k, _ in log[-2:]] in (["move", "dealt"], ["move", "finished"])


def test_rebuilding_from_the_stored_events_gives_the_live_table() -> None:
    t, log, dice = started("wild-stars", seed=5)
    rng = random.Random(5)
    t = run(t, log, Chat(0, "good luck", "2026-01-01T00:00:01+00:00"), dice)
    t = run(t, log, Leave(1, Departure.LEAVE, "random"), dice)
    while t.status is TableStatus.PLAYING:
        seat = t.state.to_move
        action = rng.choice(t.state.legal_actions())
        show = rng.choice(t.state.legal_shows()) if isinstance(action, Bid) else ()
        t = run(t, log, Move(seat, action, tuple(show), by_bot=True), dice)
    again = rebuild(log)
    assert again == replace(t, last_event={"kind": "sync"})
    assert again.revoked == (("h-bob", EventKind.REPLACED),)
    assert {k for _, k, _ in log} <= {e.value for e in EventKind}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["classic", "wild-stars", "aces-wild", "perudo"]))
def test_rebuild_equals_live_for_any_game(seed: int, preset: str) -> None:
    t, log, dice = started(preset, seed)
    rng = random.Random(seed)
    while t.status is TableStatus.PLAYING:
        action = rng.choice(t.state.legal_actions())
        show = rng.choice(t.state.legal_shows()) if isinstance(action, Bid) else ()
        t = run(t, log, Move(t.state.to_move, action, tuple(show)), dice)
    assert rebuild(log).state == t.state and rebuild(log).seq == t.seq


def test_refused_commands_make_no_event() -> None:
    t, log, dice = started()
    before = t
    seat = t.state.to_move
    other = (seat + 1) % 3
    with pytest.raises(NotYourTurnError):
        step(t, Move(other, Bid(1, 2)), dice)
    with pytest.raises(IllegalActionError):
        step(t, Move(seat, CHALLENGE), dice)  # nothing to challenge yet
    with pytest.raises(SeatReplaced):
        step(t, Move(2, Bid(1, 2), client=True), dice)  # seat 2 is a bot
    with pytest.raises(TableStarted):
        step(t, AddBot(0, "random"), dice)
    assert t == before and len(log) == 6


def test_open_table_commands() -> None:
    dice = SeededDice(0)
    t, log = new_table(seats=3)
    t = run(t, log, Join("ann", "h-ann", 0), dice)
    t = run(t, log, Join("bob", "h-bob"), dice)
    with pytest.raises(NotHost):
        step(t, RemoveSeat(1, 0), dice)
    with pytest.raises(SeatEmpty):
        step(t, RemoveSeat(0, 2), dice)
    with pytest.raises(SeatsEmpty):
        step(t, Start(0, 0), dice)
    t = run(t, log, RemoveSeat(0, 1), dice)  # the host removes a waiting person
    assert t.seats[1].kind is SeatKind.EMPTY and t.revoked_by("h-bob") is EventKind.SEAT_FREED
    t = run(t, log, Leave(0, Departure.GRACE, "random"), dice)  # the host never connected
    assert t.status is TableStatus.CLOSED and rebuild(log).status is TableStatus.CLOSED


def test_a_calza_is_stored_and_rebuilt_as_a_calza() -> None:
    """perudo (RULES.md ``perudo`` "Calza"): the move event of a calza carries
    ``calza: true``; other move payloads keep their old shape."""
    from liars_dice.engine import CALZA

    for seed in range(200):
        t, log, dice = started("perudo", seed)
        t = run(t, log, Move(t.state.to_move, Bid(1, 3)), dice)
        if CALZA in t.state.legal_actions():
            break
    else:
        pytest.skip("no calza allowed in these deals")
    t = run(t, log, Move(t.state.to_move, CALZA), dice)
    moves = [p for _, k, p in log if k == "move"]
    assert "calza" not in moves[0] and moves[1]["calza"] is True and moves[1]["challenge"] is False
    assert t.last_event["kind"] == "calza" and t.state.results[-1].calza
    assert rebuild(log).state == t.state


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["join", "bot", "remove", "leave", "grace", "start", "move", "chat"]),
                          st.integers(0, 3), st.integers(0, 2**16)), max_size=40))
def test_any_command_sequence_rebuilds_to_the_live_table(ops: list[tuple[str, int, int]]) -> None:
    """Whatever people, hosts and timers ask, in any order: a refused command
    raises and changes nothing, and folding ``apply`` over the stored events
    gives the live table (seats, revoked tokens, host, status, game)."""
    from liars_dice.engine import LiarsDiceError

    dice = SeededDice(0)
    t, log = new_table(seats=4)
    t = run(t, log, Join("p0", "h0", 0), dice)
    for n, (op, seat, r) in enumerate(ops):
        rng = random.Random(r)
        cmd: Any
        if op == "join":
            cmd = Join(f"p{n + 1}", f"h{n + 1}", seat if r % 2 else None)
        elif op == "bot":
            cmd = AddBot(t.host if r % 3 else seat, "random", None)
        elif op == "remove":
            cmd = RemoveSeat(t.host, seat)
        elif op in ("leave", "grace"):
            cmd = Leave(seat, Departure.LEAVE if op == "leave" else Departure.GRACE, "random")
        elif op == "start":
            cmd = Start(t.host, seat % 4)
        elif op == "move" and t.state is not None and t.status is TableStatus.PLAYING:
            action = rng.choice(t.state.legal_actions())
            cmd = Move(t.state.to_move, action)
        else:
            cmd = Chat(seat, "hi", "2026-01-01T00:00:00+00:00") if t.seats[seat].name else Leave(seat, Departure.LEAVE, "random")
        before = t
        try:
            t = run(t, log, cmd, dice)
        except LiarsDiceError:
            assert t is before
    assert rebuild(log) == replace(t, last_event={"kind": "sync"})
    for th, kind in t.revoked:
        assert t.seat_of_token(th) is None and kind in (EventKind.SEAT_FREED, EventKind.REPLACED)
