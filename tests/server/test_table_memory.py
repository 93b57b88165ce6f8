"""Memory per open table (issue 16, "bounded memory"): what a live room holds,
measured with tracemalloc over tables played through the core's change path.
Each table used to hold a Rules value of its own, and with it the engine's bid
ladders for every dice count of its game (about 140 KiB of a 188 KiB room);
tables of one rule set now share one Rules value (``core.tables.shared_rules``)."""

from __future__ import annotations

import gc
import random
import tracemalloc

from liars_dice.engine import Bid, Challenge, Rules, SeededDice
from liars_dice.server.core import views
from liars_dice.server.core.commands import Create, Join, Move, Start, step
from liars_dice.server.core.tables import Table, unopened
from liars_dice.server.runtime.room import Room


def _played(i: int, moves: int = 30) -> Room:
    """Table ``i``: 4 people at ``classic``, ``moves`` moves played, its messages built once."""
    rules = Rules.preset("classic")
    payload = {"id": f"t{i}", "code": "ABCDEF", "preset": "classic", "rules": rules.to_dict(), "n_seats": 4,
               "turn_timer": None, "private": False, "created_at": "2026-01-01T00:00:00+00:00"}
    dice = SeededDice(i)
    t: Table = step(unopened(payload), Create(payload, "ann", "h0"), dice)[0]
    for k in range(3):
        t = step(t, Join(f"p{k}", f"h{k + 1}"), dice)[0]
    t = step(t, Start(0, 0), dice)[0]
    rng = random.Random(i)
    for _ in range(moves):
        s = t.state
        assert s is not None and s.to_move is not None
        bid = [a for a in s.legal_actions() if isinstance(a, Bid)][0]
        action = Challenge() if s.bids and rng.random() < 0.2 else bid
        t = step(t, Move(s.to_move, action, (), False, False, None), dice)[0]
    room = Room(t)
    views.state_texts(room, [None, 0, 1, 2, 3])
    return room


def test_tables_of_one_rule_set_share_its_rules() -> None:
    a, b = _played(1, 2), _played(2, 2)
    assert a.table.rules is b.table.rules and a.table.rules_dict is b.table.rules_dict
    assert a.table.state is not None and a.table.state.rules is a.table.rules


def test_a_live_room_holds_under_100_kib() -> None:
    keep = [_played(i) for i in range(3)]  # the caches shared by every table, filled first
    n = 30
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        keep += [_played(i) for i in range(3, 3 + n)]
        gc.collect()
        per_room = (tracemalloc.get_traced_memory()[0] - before) / n
    finally:
        tracemalloc.stop()
    assert per_room < 100 * 1024, f"{per_room / 1024:.0f} KiB per room"


def _clear_view_caches() -> None:
    """Empty the views' bounded caches (shared by every table; they fill once)."""
    for name in ("_face_raises", "_chance_json", "_raise_head", "_name_json"):
        cached = getattr(views, name, None)
        if cached is not None:
            cached.cache_clear()
    views._LEGAL_CACHE.clear()


def test_a_turnover_of_games_leaves_nothing_behind() -> None:
    """Issue 16, "RSS within 10% after a turnover": once 300 tables' games are
    over and their rooms dropped, they leave nothing behind but the views'
    bounded caches (emptied before each measure). The engine kept the first
    state of each of its last 1,025 games, each holding its game, so memory
    grew game by game until the clear (d011453: 245 KiB after these 300
    games); now at most 64 (what is left: a bid ladder for a new dice count,
    about 36 KiB)."""
    for i in range(300):  # the first turnover: the engine's bounded caches filled
        _played(1000 + i, 12)
    _clear_view_caches()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(300):
            _played(2000 + i, 12)
        _clear_view_caches()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 80 * 1024, f"{grown / 1024:.0f} KiB held after 300 games"
