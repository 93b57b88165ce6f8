"""What leaves the server about a game: a seat's view, the spectators' view,
and replay steps of a finished game.

Every game message built for a client goes through :func:`seat_view` or
:func:`public_view`, built on the engine's :meth:`State.view` (one seat) and
:class:`~liars_dice.engine.PublicView` (no seat), which never hold another
seat's hidden dice (boardgame.io's ``playerView``, ``null`` for spectators).
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

from ..engine import (
    Bid,
    Calza,
    Challenge,
    Game,
    Phase,
    PublicView,
    RoundResult,
    State,
    result_to_json,
    view_bid_probability,
    view_exact_probability,
)
from . import fairness
from .room import Room

_NO_LEGAL: dict[str, Any] = {"raises": [], "challenge": False, "calza": False, "shows": [[]]}


def result_json(r: RoundResult, names: tuple[str, ...]) -> dict[str, Any]:
    """A round's public result as served: the engine's :func:`result_to_json`
    plus ``wilds_active`` (whether the wild face counted in that round)."""
    out = result_to_json(r, names)
    out["wilds_active"] = r.wilds_active
    return out


def _results(room: Room) -> tuple[list[dict[str, Any]], str]:
    """Every past round's result, as data and as JSON text, built once per round."""
    state = room.table.state
    assert state is not None
    n = len(state.results)
    cached = room.results_cache
    if cached is None or cached[0] != n:
        names = state.game.players
        seeds = room.table.seeds
        data = [fairness.reveal(result_json(r, names), i, seeds) for i, r in enumerate(state.results)]
        cached = room.results_cache = (n, data, json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    return cached[1], cached[2]


def _event_json(room: Room, sync: bool = False) -> dict[str, Any]:
    if sync:
        return {"kind": "sync"}
    ev = dict(room.table.last_event)
    idx = ev.pop("result_index", None)
    if idx is not None and room.table.state is not None:
        ev["result"] = _results(room)[0][idx]
    return ev


def seat_view(room: Room, seat: int, with_results: bool = True) -> dict[str, Any]:
    """The ``state.view`` of ``docs/server-protocol.md`` for ``seat``
    (``results`` left empty when not ``with_results``)."""
    state = room.table.state
    assert state is not None
    v = state.view(seat)
    out = replace(v, results=()).to_json()
    if with_results:
        out["results"] = _results(room)[0]
    if v.my_turn:
        acts = v.legal_actions()
        out["legal"] = {
            "raises": [a.to_json() for a in acts if isinstance(a, Bid)],
            "challenge": any(isinstance(a, Challenge) for a in acts),
            "calza": any(isinstance(a, Calza) for a in acts),
            "shows": [list(s) for s in v.legal_shows()],
        }
    else:
        out["legal"] = _NO_LEGAL
    out["odds"] = round(view_bid_probability(v), 4) if v.bids and v.phase is Phase.BID else None
    # the chance of an exact count, where a calza is possible (RULES.md perudo "Calza")
    out["exact_odds"] = round(view_exact_probability(v), 4) if out["legal"]["calza"] else None
    out["seat_index"] = seat
    _common(room, out)
    return out


def public_view(room: Room, with_results: bool = True) -> dict[str, Any]:
    """The spectators' view: the engine's :class:`PublicView` (every public
    fact, no hidden die of anyone), no ``legal`` and no ``odds``."""
    state = room.table.state
    assert state is not None
    out = replace(PublicView.of(state), results=()).to_json()
    if with_results:
        out["results"] = _results(room)[0]
    out["seat_index"] = None
    _common(room, out)
    return out


def _common(room: Room, out: dict[str, Any]) -> None:
    t = room.table
    out["rules_options"] = t.rules_dict
    out["round"] = t.round
    out["move_number"] = t.move_number
    out["deadline"] = room.deadline
    out["turn_timer"] = t.turn_timer
    assert t.state is not None
    out["commitment"] = fairness.current_commitment(t.state, t.seeds)


def state_message(room: Room, seat: int | None, sync: bool = False) -> dict[str, Any]:
    """The ``state`` message for ``seat`` (``None``: a spectator); ``sync``: the
    event is ``{"kind": "sync"}`` (a client catching up)."""
    view = seat_view(room, seat) if seat is not None else public_view(room)
    return {"type": "state", "view": view, "event": _event_json(room, sync), "server_time": time.time()}


#: Stands in for the results while a message is encoded. Nicknames hold no
#: control characters, so this never occurs in any other string.
_RESULTS_SLOT = "\x00results"
_RESULTS_SLOT_JSON = json.dumps(_RESULTS_SLOT)


def state_message_text(room: Room, seat: int | None, sync: bool = False) -> str:
    """:func:`state_message` as JSON text. The past rounds' results (the same
    for every seat, and growing all game) are encoded once per round and
    spliced in, not rebuilt and re-encoded for every seat at every move."""
    view = seat_view(room, seat, False) if seat is not None else public_view(room, False)
    view["results"] = _RESULTS_SLOT
    msg = {"type": "state", "view": view, "event": _event_json(room, sync), "server_time": time.time()}
    out = json.dumps(msg, separators=(",", ":"), ensure_ascii=False)
    return out.replace(_RESULTS_SLOT_JSON, _results(room)[1], 1)


# -- replay ----------------------------------------------------------------------


def _snapshot(state: State) -> dict[str, Any]:
    names = state.game.players
    return {
        "dice": {names[s]: d for s, d in enumerate(state.dice)},
        "hands": {names[s]: list(h) for s, h in enumerate(state.hidden) if h},
        "shown": {names[s]: list(h) for s, h in enumerate(state.shown) if h},
        "bids": [
            {"player": names[s], "bid": b.to_json(), **({"show": list(sh)} if sh else {})} for s, b, sh in state.bids
        ],
        "to_move": names[state.to_move] if state.to_move is not None else None,
        "phase": state.phase.value,
        "wilds_active": state.wilds_active,
        "winner": names[state.winner] if state.winner is not None else None,
    }


def replay_steps(game: Game, start: int, final: State) -> list[dict[str, Any]]:
    """Every step of a game, god's-eye (for finished games only): the deal of
    each round, then each move, with the reveal on a challenge."""
    rules, names = game.rules, game.players
    state = game.initial_state(start)
    steps: list[dict[str, Any]] = []
    for r, log in enumerate(final.logs):
        state = state.deal(log.deal)
        steps.append({"round": r, "move": None, "text": f"Round {r + 1}: the dice are rolled.", "state": _snapshot(state)})
        for m in log.moves:
            who = names[m.seat]
            if isinstance(m.action, (Challenge, Calza)):
                state = state.apply(m.action, seat=m.seat)
                res = state.results[-1]
                rj = result_json(res, names)
                bid_words = rules.describe_bid(res.bid)
                changes = [f"{n} loses {k} {'die' if k == 1 else 'dice'}" for n, k in rj["lost"].items()]
                changes += [f"{n} gains {k} {'die' if k == 1 else 'dice'}" for n, k in rj.get("gained", {}).items()]
                said = ", ".join(changes) or "nobody loses a die"
                verb = "calls calza on" if res.calza else "challenges"
                text = f"{who} {verb} {names[res.bidder]}'s {bid_words}: the count is {res.count}; {said}."
                steps.append({
                    "round": r, "move": {"player": who, "calza" if res.calza else "challenge": True}, "text": text,
                    "state": _snapshot(state), "result": rj,
                })
            else:
                assert isinstance(m.action, Bid)
                state = state.apply(m.action, m.show, seat=m.seat)
                move: dict[str, Any] = {"player": who, "bid": m.action.to_json()}
                text = f"{who} bids {rules.describe_bid(m.action)}"
                if m.show:
                    state = state.reroll(m.reroll)
                    move["show"], move["reroll"] = list(m.show), list(m.reroll)
                    text += f", shows {list(m.show)} and rerolls the rest"
                steps.append({"round": r, "move": move, "text": text + ".", "state": _snapshot(state)})
    return steps
