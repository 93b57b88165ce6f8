"""What leaves the server about a game: a seat's view, the spectators' view,
and replay steps of a finished game.

Every game message built for a client goes through :func:`seat_view` or
:func:`public_view`, built on the engine's :meth:`State.view` (one seat) and
:class:`~liars_dice.engine.PublicView` (no seat), which never hold another
seat's hidden dice (boardgame.io's ``playerView``, ``null`` for spectators).
The server sends them through :func:`state_texts`, which builds one event's
messages at once: the public part encoded once, each seat's own part added
(``tests/server/test_state_texts.py`` checks each equals its seat's view).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, Protocol

from ...engine import (
    Bid,
    binomial_tail,
    Calza,
    Challenge,
    Exact,
    Game,
    match_probability,
    Phase,
    PublicView,
    RoundResult,
    Rules,
    SeatView,
    State,
    result_to_json,
    view_bid_probabilities,
    view_bid_probability,
    view_exact_probability,
)
from ...records import record_from_state
from ...engine.narration import bid_sentence, challenge_sentence, round_sentence, sentence, verdict_sentence
from ...engine.summary import wild_note
from . import fairness
from .tables import Table, rules_summary

class Viewed(Protocol):
    """What a view is made from: the table value, the turn timer's end (UNIX
    seconds, or ``None``) and the room's cache of the results as data and JSON
    (the runtime's :class:`~liars_dice.server.runtime.room.Room` is one)."""

    table: Table
    deadline: float | None
    reveal_until: float
    results_cache: tuple[int, list[dict[str, Any]], str] | None


_NO_LEGAL: dict[str, Any] = {"raises": [], "challenge": False, "calza": False, "shows": [[]]}


def bid_words(rules: Rules, bid: Bid) -> dict[str, Any]:
    """A bid as served: ``{"quantity", "face", "label": "3★", "words": "three stars"}``,
    worded by the engine (:meth:`Rules.format_bid`, :meth:`Rules.describe_bid`);
    the browser shows these and words nothing itself."""
    return {"quantity": bid.quantity, "face": bid.face, "label": rules.format_bid(bid), "words": rules.describe_bid(bid)}


def counted(rules: Rules, faces: Sequence[int], bid: Bid, wilds_active: bool) -> list[bool]:
    """Per die, whether it counts toward ``bid`` (:meth:`Rules.matches`): the
    browser highlights these and applies no wild rule itself."""
    return [rules.matches(f, bid.face, wilds_active) for f in faces]


def _chance(p: float) -> float:
    """A probability as served: 6 places, so a tiny chance still reads "<1%"."""
    return round(p, 6)


def result_json(r: RoundResult, names: tuple[str, ...], rules: Rules) -> dict[str, Any]:
    """A round's public result as served: the engine's :func:`result_to_json`
    plus ``wilds_active`` (whether the wild face counted in that round), the
    bid in words (``bid_words``, ``bid_label``), per revealed cup which dice
    counted (``counted``), whether it was a perfect bid (``perfect``, seed 000),
    and the verdict in words (``verdict``, read from the result: the browser
    compares no count with the bid)."""
    out = result_to_json(r, names)
    out["wilds_active"] = r.wilds_active
    words = bid_words(rules, r.bid)
    out["bid_words"], out["bid_label"] = words["words"], words["label"]
    out["counted"] = {names[s]: counted(rules, h, r.bid, r.wilds_active) for s, h in enumerate(r.revealed) if h}
    out["perfect"] = rules.exact is Exact.ALL_BUT_BIDDER and r.count == r.bid.quantity and not r.calza
    out["verdict"] = verdict_sentence(rules, names, r)
    return out


@lru_cache(maxsize=8192)
def _worded(rules: Rules, bid: Bid) -> dict[str, Any]:
    """:func:`bid_words`, kept: every table of a rule set words the same bids
    at every move (read only: callers copy it before adding to it)."""
    return bid_words(rules, bid)


@lru_cache(maxsize=1024)
def _wild_words(rules: Rules, wilds_active: bool, opened: bool, palifico: bool) -> str | None:
    """The view's ``wild_note``: :func:`~liars_dice.engine.summary.wild_note` as a
    sentence, or ``None`` without wilds (kept: a few cases per rule set, at every move)."""
    note = wild_note(rules, wilds_active, opened, palifico)
    return sentence(note + ".") if note else None


def _word_bids(rules: Rules, out: dict[str, Any]) -> None:
    """Add the engine's words to every bid of a view's ``bids``."""
    for entry in out["bids"]:
        b = entry["bid"]
        w = _worded(rules, Bid(b["quantity"], b["face"]))
        entry["label"], entry["words"] = w["label"], w["words"]


def _results(room: Viewed) -> tuple[list[dict[str, Any]], str]:
    """Every past round's result, as data and as JSON text, each round's built
    once: a challenge adds its round to the rounds before (a past round's
    result and seed never change; building them all again at each challenge
    cost O(rounds) a challenge). A game with fewer rounds than the cache (a
    new game at the table) is built afresh."""
    state = room.table.state
    assert state is not None
    n = len(state.results)
    cached = room.results_cache
    if cached is None or cached[0] != n:
        have = cached[0] if cached is not None and cached[0] < n else 0
        names = state.game.players
        seeds = room.table.seeds
        new = [fairness.reveal_dice(fairness.reveal(result_json(state.results[i], names, state.rules), i, seeds, names),
                                    i, state.logs[i], names) for i in range(have, n)]
        text = json.dumps(new, separators=(",", ":"), ensure_ascii=False)
        if have:
            assert cached is not None
            data, text = cached[1] + new, cached[2][:-1] + "," + text[1:]
        else:
            data = new
        cached = room.results_cache = (n, data, text)
    return cached[1], cached[2]


def _event_json(room: Viewed, sync: bool = False) -> dict[str, Any]:
    if sync:
        return {"kind": "sync"}
    ev = dict(room.table.last_event)
    idx = ev.pop("result_index", None)
    if idx is not None and room.table.state is not None:
        ev["result"] = _results(room)[0][idx]
    return ev


def seat_view(room: Viewed, seat: int, with_results: bool = True) -> dict[str, Any]:
    """The ``state.view`` of ``docs/server-protocol.md`` for ``seat``
    (``results`` left empty when not ``with_results``)."""
    state = room.table.state
    assert state is not None
    v = state.view(seat)
    out = replace(v, results=()).to_json()
    if with_results:
        out["results"] = _results(room)[0]
    rules = v.rules
    if v.my_turn:
        acts = v.legal_actions()
        raises = [a for a in acts if isinstance(a, Bid)]
        out["legal"] = {
            "raises": [
                {"quantity": a.quantity, "face": a.face, "chance": _chance(p)}
                for a, p in zip(raises, view_bid_probabilities(v, raises))
            ],
            "challenge": any(isinstance(a, Challenge) for a in acts),
            "calza": any(isinstance(a, Calza) for a in acts),
            "shows": [list(s) for s in v.legal_shows()],
        }
    else:
        out["legal"] = _NO_LEGAL
    odds = _chance(view_bid_probability(v)) if v.bids and v.phase is Phase.BID else None
    out["odds"] = odds
    # the chance of an exact count, where a calza is possible (RULES.md perudo "Calza")
    out["exact_odds"] = _chance(view_exact_probability(v)) if out["legal"]["calza"] else None
    _word_bids(rules, out)
    out["current"] = {**out["bids"][-1], "chance": odds} if v.bids else None
    out["seat_index"] = seat
    _common(room, out)
    return out


def public_view(room: Viewed, with_results: bool = True, rules_slots: bool = False) -> dict[str, Any]:
    """The spectators' view: the engine's :class:`PublicView` (every public
    fact, no hidden die of anyone), no ``legal`` and no ``odds`` (``rules_slots``:
    the rules stand in as slots, for :func:`state_texts`)."""
    state = room.table.state
    assert state is not None
    out = replace(PublicView.of(state), results=()).to_json()
    if with_results:
        out["results"] = _results(room)[0]
    out["seat_index"] = None
    _word_bids(state.rules, out)
    out["current"] = {**out["bids"][-1], "chance": None} if out["bids"] else None
    _common(room, out, rules_slots)
    return out


def _common(room: Viewed, out: dict[str, Any], rules_slots: bool = False) -> None:
    t = room.table
    out["rules_options"] = "\x00rules_options" if rules_slots else t.rules_dict
    out["rules_summary"] = "\x00rules_summary" if rules_slots else rules_summary(t.rules)
    out["round"] = t.round
    out["move_number"] = t.move_number
    out["deadline"] = room.deadline
    # the reveal of the last challenge shows until then (UNIX seconds): the turn begins after it
    out["reveal_until"] = room.reveal_until if room.reveal_until > 0 else None
    out["game"] = t.game_number
    out["turn_timer"] = t.turn_timer
    assert t.state is not None
    # whether wilds count this round, as the terminal says it every turn (issue 38): "1s are wild."
    out["wild_note"] = _wild_words(t.rules, t.state.wilds_active, t.state.current_bid is not None, t.state.palifico)
    out["commitment"] = fairness.current_commitment(t.state, t.seeds)
    # fair dice version 2: the digests of the seeds in this round's dice, and
    # the next deal's commitment for the persons' pages to answer
    out["contribution_digests"] = fairness.current_digests(t.state, t.seeds)
    out["next_commitment"] = t.next_seed[0] if t.next_seed is not None and t.is_live else None


def state_message(room: Viewed, seat: int | None, sync: bool = False) -> dict[str, Any]:
    """The ``state`` message for ``seat`` (``None``: a spectator), as data:
    :func:`state_message_text` read back, so both forms are one message;
    ``sync``: the event is ``{"kind": "sync"}`` (a client catching up)."""
    out: dict[str, Any] = json.loads(state_message_text(room, seat, sync))
    return out


def state_message_text(room: Viewed, seat: int | None, sync: bool = False) -> str:
    """The ``state`` message for ``seat`` (``None``: a spectator) as JSON text
    (one seat's entry of :func:`state_texts`)."""
    return state_texts(room, (seat,), sync)[seat]


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


#: Slots of the seat template: the parts of a seat's view that are its own.
#: Each stands in for its value while the public part is encoded; nicknames
#: hold no control characters, so ``"\u0000..."`` occurs in no other string.
_SEAT_SLOTS = ("seat", "hand", "legal", "odds", "exact_odds", "current", "seat_index")
_SLOT_RE = re.compile(r'"\\u0000(' + "|".join(("results", "rules_options", "rules_summary") + _SEAT_SLOTS) + r')"')
_NO_LEGAL_JSON = _dumps(_NO_LEGAL)


@lru_cache(maxsize=256)
def _rules_json(rules: Rules) -> tuple[str, str]:
    """``rules_options`` and ``rules_summary`` of a rule set, as JSON text (built
    once per rule set: they are the same at every move of every such table)."""
    return _dumps(rules.to_dict()), _dumps(rules_summary(rules))


@lru_cache(maxsize=16384)
def _raise_head(quantity: int, face: int) -> str:
    """The JSON text of a legal raise up to its ``chance``."""
    return f'{{"quantity":{quantity},"face":{face},"chance":'


@lru_cache(maxsize=256)
def bid_words_json(rules: Rules, dice: int) -> str:
    """Every bid of ``rules`` with at most ``dice`` dice, in the engine's words,
    as JSON text: ``[[quantity, face, label, words], ...]`` (quantity 1 to
    ``dice``, each face; :func:`bid_words`). A ``state`` message carries it
    when a client starts to follow a game (``sync``, ``start``); the raises of
    ``legal`` then carry no words, and the browser looks them up here
    (issue 16: 7.8 of a move's 15.6 KB were the mover's raises in words)."""
    rows = []
    for q in range(1, dice + 1):
        for f in range(1, rules.faces + 1):
            w = _worded(rules, Bid(q, f))
            rows.append([q, f, w["label"], w["words"]])
    return _dumps(rows)


def _carries_words(room: Viewed, sync: bool) -> bool:
    """Whether this event's ``state`` messages carry ``bid_words``, and the
    rules (``rules_options``, ``rules_summary``; else ``null``): a client's
    first state message of a game is a ``sync`` (at ``hello``) or the ``start``."""
    return sync or room.table.last_event.get("kind") == "start"


@lru_cache(maxsize=8192)
def _chance_json(p: float) -> str:
    return _dumps(_chance(p))


#: The legal actions of a seat to move, by what they depend on (the engine's
#: :meth:`SeatView.legal_actions`): ``(raises, challenge, calza)``.
_LEGAL_CACHE: dict[tuple[Any, ...], tuple[tuple[Bid, ...], bool, bool, tuple[int, ...]]] = {}
#: its key holds every seat's dice count, so it is seldom hit after the first
#: rounds; 4,096 entries held about 2 MB, grown game by game (issue 16, memory)
_LEGAL_CACHE_MAX = 1024


def _legal(v: SeatView) -> tuple[tuple[Bid, ...], bool, bool, tuple[int, ...]]:
    key = (v.rules, v.current_bid, v.dice, v.palifico, v.dice[v.seat] == 1)
    hit = _LEGAL_CACHE.get(key)
    if hit is None:
        acts = v.legal_actions()
        raises = tuple([a for a in acts if isinstance(a, Bid)])
        rest = [a for a in acts if not isinstance(a, Bid)]  # a challenge, a calza: few
        hit = (raises, any(isinstance(a, Challenge) for a in rest), any(isinstance(a, Calza) for a in rest),
               tuple(sorted({b.face for b in raises})))
        if len(_LEGAL_CACHE) >= _LEGAL_CACHE_MAX:
            _LEGAL_CACHE.clear()
        _LEGAL_CACHE[key] = hit
    return hit


class _Template:
    """The state messages of one table value: the public part is built and
    encoded once; each seat's message adds that seat's own parts."""

    __slots__ = ("room", "state", "sync", "event", "now", "_public", "_seat_parts", "_current")

    def __init__(self, room: Viewed, sync: bool) -> None:
        self.room = room
        state = room.table.state
        assert state is not None
        self.state = state
        self.sync = sync
        self.event = _dumps(_event_json(room, sync))
        self.now = time.time()
        self._public: dict[str, Any] | None = None
        self._seat_parts: list[str] | None = None
        self._current: str | None = None

    def _view(self) -> dict[str, Any]:
        """The spectators' view with the results left out."""
        if self._public is None:
            self._public = public_view(self.room, False, rules_slots=True)
        return dict(self._public)

    def _message(self, view: dict[str, Any]) -> str:
        view["results"] = "\x00results"
        text = '{"type":"state","view":' + _dumps(view) + ',"event":' + self.event + ',"server_time":' + repr(
            self.now)
        if _carries_words(self.room, self.sync):
            text += ',"bid_words":' + bid_words_json(self.state.rules, sum(self.state.game.dice))
        return text + "}"

    def _fill(self, text: str, values: dict[str, str]) -> str:
        parts = _SLOT_RE.split(text)
        for i in range(1, len(parts), 2):
            parts[i] = values[parts[i]]
        return "".join(parts)

    def _shared(self) -> dict[str, str]:
        # The rules are the same all game, and the table summary (``welcome``,
        # ``table``) holds them too: sent where a client starts to follow the game.
        rules_options, summary = _rules_json(self.state.rules) if _carries_words(self.room, self.sync) else (
            "null", "null")
        return {"results": _results(self.room)[1], "rules_options": rules_options, "rules_summary": summary}

    def _current_head(self) -> str | None:
        """The public ``current`` bid as JSON text up to its ``chance`` (``None``: no bid)."""
        assert self._public is not None
        cur = self._public["current"]
        if cur is None:
            return None
        text = _dumps(cur)
        assert text.endswith(',"chance":null}')
        return text[: -len("null}")]

    def spectator(self) -> str:
        return self._fill(self._message(self._view()), self._shared())

    def seat(self, seat: int) -> str:
        if self._seat_parts is None:
            view = self._view()
            for k in _SEAT_SLOTS:
                view[k] = "\x00" + k
            self._seat_parts = _SLOT_RE.split(self._message(view))
            shared = self._shared()
            for i in range(1, len(self._seat_parts), 2):
                if self._seat_parts[i] in shared:
                    self._seat_parts[i] = shared[self._seat_parts[i]]
            self._current = self._current_head()
        values = _seat_values(self.state, seat, self._current)
        parts = list(self._seat_parts)
        for i in range(1, len(parts), 2):
            parts[i] = values.get(parts[i], parts[i])
        return "".join(parts)


@lru_cache(maxsize=512)
def _face_raises(faces: int, face: int, unseen: int, have: int, p: float, most: int) -> tuple[str, ...]:
    """The JSON text of every raise on ``face`` with quantity ``0..most`` (index:
    the quantity), chance included, for a seat that sees ``have`` matches of
    ``face`` and ``unseen`` unknown dice, each a match with chance ``p``
    (:func:`~liars_dice.engine.odds.view_bid_probabilities`'s terms, the same
    floats). Shared by every table and turn with those terms: a round's movers
    meet the same few again and again, so a move's raises are looked up, not
    weighed and encoded (issue 16). Over 100 random 4-seat games 1,024 entries
    hit 83%, 512 hit 62%; full, the 512 hold about 2.9 MB at 200 tables x 4
    seats (tracemalloc; up to 21 raises of 20 dice an entry), whatever the
    number of tables."""
    return tuple(_raise_head(q, face) + _chance_json(binomial_tail(unseen, q - have, p)) + "}"
                 for q in range(most + 1))


def _raises_json(v: SeatView, raises: Sequence[Bid], faces: tuple[int, ...]) -> str:
    """The JSON text of ``raises`` (on ``faces``, each face once) with their
    chances for the seat of ``v``: equal to weighing them with
    :func:`view_bid_probabilities` (``tests/server/test_state_texts.py`` compares)."""
    rules = v.rules
    seen = v.hand + tuple(d for h in v.shown for d in h)
    wilds = v.wilds_active if v.bids or v.palifico else None
    unseen = v.unknown_dice
    most = max(sum(v.dice), max((b.quantity for b in raises), default=0))
    per_face: dict[int, tuple[str, ...]] = {}
    for face in faces:
        w = rules.wilds_active_after_opening(face) if wilds is None else wilds
        have = sum(1 for d in seen if rules.matches(d, face, w))
        per_face[face] = _face_raises(rules.faces, face, unseen, have, match_probability(rules, face, w), most)
    return ",".join([per_face[b.face][b.quantity] for b in raises])


def _odds_json(p: float | None) -> str:
    return "null" if p is None else _chance_json(p)


def _seat_values(state: State, seat: int, current: str | None) -> dict[str, str]:
    """The JSON text of ``seat``'s own parts of its view (``_SEAT_SLOTS``);
    ``current``: the public ``current`` bid's JSON text up to its ``chance``
    (``None``: no bid stands)."""
    v = state.view(seat)
    out = {"seat": _name_json(v.players[seat]), "hand": "[" + ",".join(map(str, v.hand)) + "]",
           "seat_index": str(seat)}
    calza = False
    if v.my_turn:
        raises, challenge, calza, faces = _legal(v)
        shows = v.legal_shows()
        shows_json = "[[]]" if shows == [()] else _dumps([list(s) for s in shows])
        out["legal"] = (f'{{"raises":[{_raises_json(v, raises, faces)}],"challenge":{"true" if challenge else "false"},'
                        f'"calza":{"true" if calza else "false"},"shows":{shows_json}}}')
    else:
        out["legal"] = _NO_LEGAL_JSON
    odds = _chance(view_bid_probability(v)) if v.bids and v.phase is Phase.BID else None
    out["odds"] = _odds_json(odds)
    # the chance of an exact count, where a calza is possible (RULES.md perudo "Calza")
    out["exact_odds"] = _odds_json(_chance(view_exact_probability(v)) if calza else None)
    out["current"] = "null" if current is None else current + _odds_json(odds) + "}"
    return out


@lru_cache(maxsize=4096)
def _name_json(name: str) -> str:
    return _dumps(name)


def state_texts(room: Viewed, seats: Iterable[int | None], sync: bool = False) -> dict[int | None, str]:
    """The ``state`` message of each of ``seats`` (``None``: the spectators) as
    JSON text, for one table value. The public part (every bid in words, the
    past rounds' results, the rules) is built and encoded once for all of them,
    and each seat's own parts (its hand, its legal raises with their words and
    chances, its odds) are added to it; the raises' words are built once per
    rule set, not per move. ``sync``: the event is ``{"kind": "sync"}``."""
    tpl = _Template(room, sync)
    out: dict[int | None, str] = {}
    for seat in seats:
        if seat not in out:
            out[seat] = tpl.spectator() if seat is None else tpl.seat(seat)
    return out


# -- replay ----------------------------------------------------------------------


def _snapshot(state: State) -> dict[str, Any]:
    names, rules = state.game.players, state.rules
    cur = state.current_bid
    return {
        "dice": {names[s]: d for s, d in enumerate(state.dice)},
        "hands": {names[s]: list(h) for s, h in enumerate(state.hidden) if h},
        "shown": {names[s]: list(h) for s, h in enumerate(state.shown) if h},
        # per hidden hand, which dice count toward the current bid (none before the opening bid)
        "counted": {
            names[s]: counted(rules, h, cur, state.wilds_active) for s, h in enumerate(state.hidden) if h and cur
        },
        "bids": [
            {"player": names[s], "bid": b.to_json(), "label": rules.format_bid(b), "words": rules.describe_bid(b),
             **({"show": list(sh)} if sh else {})}
            for s, b, sh in state.bids
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
        steps.append({"round": r, "move": None, "text": round_sentence(r + 1), "state": _snapshot(state)})
        for m in log.moves:
            who = names[m.seat]
            if not isinstance(m.action, Bid):  # a challenge, or a calza (RULES.md perudo)
                state = state.apply(m.action, seat=m.seat)
                res = state.results[-1]
                rj = result_json(res, names, rules)
                text = challenge_sentence(rules, names, res)
                steps.append({
                    "round": r, "move": {"player": who, "calza" if res.calza else "challenge": True}, "text": text,
                    "state": _snapshot(state), "result": rj,
                })
            else:
                assert isinstance(m.action, Bid)
                state = state.apply(m.action, m.show, seat=m.seat)
                move: dict[str, Any] = {"player": who, "bid": m.action.to_json()}
                text = bid_sentence(rules, who, m.action, m.show)
                if m.show:
                    state = state.reroll(m.reroll)
                    move["show"], move["reroll"] = list(m.show), list(m.reroll)
                steps.append({"round": r, "move": move, "text": text, "state": _snapshot(state)})
    return steps


def record_of(t: Table, game: int | None = None) -> dict[str, Any]:
    """A finished game's record (RECORD-FORMAT.md), with its fair-dice seeds:
    game number ``game`` of the table (1, 2, ...; ``None``: the game in
    ``t.state``). Each game of a table that played again has its own record.

    :raises IndexError: ``game`` is not a finished game of the table
        (the caller checks first).
    """
    if game is not None and game <= len(t.past_games):
        if game < 1:
            raise IndexError(game)
        past = t.past_games[game - 1]
        return record_from_state(past.state, past.start, fairness.record_seeds(past.state, past.seeds))
    if game is not None and game != t.game_number:
        raise IndexError(game)
    assert t.state is not None
    return record_from_state(t.state, t.start, fairness.record_seeds(t.state, t.seeds))
