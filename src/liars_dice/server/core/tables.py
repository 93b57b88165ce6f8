"""A table as a pure value, and the one function that changes it.

This is the state half of boardgame.io's reducer shape (the other half,
``decide``, is :mod:`~liars_dice.server.core.commands`):

* :func:`apply` ``(table, event) -> table`` is the only way a table changes.
  It runs the engine's checked transition for a move: once per move, and it
  raises if the move is illegal, before anything is stored.
* :func:`rebuild` folds :func:`apply` over the stored events after a restart,
  so a rebuilt table is the table that ran.

A :class:`Table` holds no connection, lock, task or bot object: those live
in the runtime :class:`~liars_dice.server.runtime.room.Room`.

Event kinds and payloads (stored as JSON in ``events``; unchanged since the
first version of the server):

==============  ==============================================================
``created``     ``id, code, preset, rules (every option), n_seats, turn_timer, private, created_at`` (``bots_learn``, ``rated``: true when set)
``joined``      ``seat, name, token_hash`` (and ``account``, the account id, for a signed-in player: issue 18)
``bot_added``   ``seat, bot, name``
``seat_freed``  ``seat`` (a leave, a removal by the host, or a seat not claimed in time, before the start)
``host``        ``seat`` (the host left before the start)
``closed``      (every person left before the start)
``started``     ``players, start`` (first opener)
``dealt``       ``hands`` (every seat's faces, ``[]`` for seats out), ``commitment, seed`` (hex: the
                round's fair-dice seed, secret until its reveal, see :mod:`.fairness`; absent from
                events stored before fair dice, which still load)
``move``        ``seat, bid ({quantity, face} or null), challenge, show, reroll, by_bot`` (and ``calza: true`` for a calza)
``replaced``    ``seat, bot, reason`` (a bot takes a person's seat: ``leave`` for good, or ``grace``)
``returned``    ``seat`` (a person replaced after the grace period came back)
``chat``        ``seat, name, text, at``
``finished``    ``winner`` (and ``stand_in: true`` when the winner's seat is a bot playing for a person who left)
``committed``   ``commitment, seed`` (the first round's server seed, drawn at the table's creation: fair dice version 2)
``contributed`` ``seat, seed`` (a person's page's seed for the next deal: version 2)
``new_game``    ``game, players, start, bots`` ("Play again", issue 17): game number ``game`` (2, 3, ...)
                of the table starts with the same seats and rules; ``start`` is its first opener,
                ``bots`` (``[[seat, bot, name], ...]``) the seats of persons who left for good, now
                their stand-in bot's under a bot's name. The game before is kept (:class:`PastGame`).
==============  ==============================================================

A ``dealt`` event of version 2 also holds ``contributions`` (``[[seat, seed], ...]``),
``missing`` (seats) and ``next`` (``{commitment, seed}`` of the round after).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from datetime import datetime
from enum import StrEnum
from typing import Any

from ...bots.names import level as bot_level
from ...engine import CALZA, CHALLENGE, Bid, Game, Rules, State
from ...engine.summary import rules_summary_json
from . import fairness


class TableStatus(StrEnum):
    OPEN = "open"  #: seats are being filled
    PLAYING = "playing"
    FINISHED = "finished"
    CLOSED = "closed"  #: every person left before the start


class SeatKind(StrEnum):
    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


class EventKind(StrEnum):
    CREATED = "created"
    JOINED = "joined"
    BOT_ADDED = "bot_added"
    SEAT_FREED = "seat_freed"
    HOST = "host"
    CLOSED = "closed"
    STARTED = "started"
    DEALT = "dealt"
    COMMITTED = "committed"
    CONTRIBUTED = "contributed"
    MOVE = "move"
    REPLACED = "replaced"
    RETURNED = "returned"
    CHAT = "chat"
    FINISHED = "finished"
    NEW_GAME = "new_game"


class Departure(StrEnum):
    """Why a person loses a seat (the ``reason`` of ``replaced``)."""

    LEAVE = "leave"  #: for good: the token is revoked
    GRACE = "grace"  #: unconnected past the grace period: they may come back


@dataclass(frozen=True, slots=True)
class Event:
    """One stored event: its kind and its JSON payload (see the module's table)."""

    kind: EventKind
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat. ``replaced`` marks a person's seat a bot has taken over;
    ``returnable`` that the person may come back (replaced after the grace period)."""

    index: int
    kind: SeatKind = SeatKind.EMPTY
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    replaced: bool = False
    returnable: bool = False
    account: int | None = None  #: the account the seat was taken under (issue 18), ``None`` for a guest

    def summary(self, connected: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": self.index, "name": self.name, "kind": self.kind.value, "bot": self.bot,
            "connected": connected,
        }
        if self.replaced:
            out["replaced"] = True
        if self.account is not None:
            out["registered"] = True  # a registered player (issue 18); guests' seats are as they were
        if self.bot is not None:
            out["level"] = bot_level(self.bot)  # "Easy", "Medium", "Hard" (bots.names.LEVELS)
        return out


@dataclass(frozen=True, slots=True)
class PastGame:
    """A finished game of a table that has played again ("Play again", issue 17):
    what its record is made of (:func:`~liars_dice.server.core.views.record_of`).

    :ivar state: its final state (phase ``over``).
    :ivar start: its first opener's seat.
    :ivar seeds: its rounds' fair-dice seeds, as :attr:`Table.seeds`.
    :ivar winner_stand_in: whether its winner's seat was a bot standing in for the
        person (:attr:`Table.winner_stand_in` at its end): the win is not the person's.
    """

    state: State
    start: int
    seeds: tuple[fairness.RoundSeeds | None, ...] = field(default=(), repr=False)
    winner_stand_in: bool = False

    @property
    def winner(self) -> str | None:
        w = self.state.winner
        return self.state.game.players[w] if w is not None else None


@dataclass(frozen=True, slots=True)
class Table:
    """One table: its settings, seats and game state. Immutable; see :func:`apply`.

    :ivar seq: the number of the last event applied.
    :ivar last_event: what the last move was, for the clients (``{"kind": "sync"}`` after a rebuild).
    :ivar chat: the last ``chat_kept`` chat lines.
    :ivar chat_count: every chat line the table has stored.
    :ivar revoked: token hashes that gave their seat up for good, each with the
        event kind that did it (``seat_freed`` before the start, ``replaced`` after).
    :ivar seeds: per round index, its :class:`~.fairness.RoundSeeds` (``docs/fair-dice.md``),
        or ``None`` for a round dealt before fair dice. Secret until the round's
        reveal: only :mod:`.fairness` and :mod:`.views` read it.
    """

    id: str
    code: str
    preset: str
    rules: Rules
    n_seats: int
    turn_timer: int | None
    private: bool
    created_at: datetime
    rules_dict: dict[str, Any] = field(compare=False, repr=False)  #: ``rules.to_dict()``, computed once
    chat_kept: int = 50
    status: TableStatus = TableStatus.OPEN
    host: int = 0
    seats: tuple[Seat, ...] = ()
    state: State | None = None
    start: int = 0
    seq: int = 0
    move_number: int = 0
    last_event: dict[str, Any] = field(default_factory=lambda: {"kind": "sync"})
    chat: tuple[dict[str, Any], ...] = ()
    chat_count: int = 0
    revoked: tuple[tuple[str, EventKind], ...] = ()
    seeds: tuple[fairness.RoundSeeds | None, ...] = field(default=(), repr=False)
    #: the next round's server seed, ``(commitment, seed)``, committed before its deal (version 2)
    next_seed: tuple[str, str] | None = field(default=None, repr=False)
    #: the seeds contributed to the next deal so far, ``(seat, seed)``
    contributions: tuple[tuple[int, str], ...] = field(default=(), repr=False)
    bots_learn: bool = False  #: the table option "bots learn from this player's past games"
    #: the table's games before the one in ``state``, oldest first ("Play again")
    past_games: tuple[PastGame, ...] = field(default=(), repr=False)
    rated: bool = False  #: the table's games count for the ratings (issue 18, :mod:`.ratings`)
    #: ``(seat, rounds finished then)`` of each person who left the game in
    #: play (``replaced``; or a seat still a stand-in's when the game began):
    #: they lose it for rating purposes (:func:`~.ratings.standings`)
    departed: tuple[tuple[int, int], ...] = ()

    # -- facts -------------------------------------------------------------------

    @property
    def game(self) -> Game | None:
        return self.state.game if self.state is not None else None

    @property
    def is_live(self) -> bool:
        """Open or playing: seats and timers still matter."""
        return self.status is TableStatus.OPEN or self.status is TableStatus.PLAYING

    @property
    def names(self) -> set[str]:
        return {s.name for s in self.seats if s.name is not None}

    def empty_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind is SeatKind.EMPTY]

    def humans(self) -> list[int]:
        """Seats held by a person (not taken over by a bot)."""
        return [s.index for s in self.seats if s.kind is SeatKind.HUMAN]

    def seat_of_token(self, token_hash: str) -> int | None:
        for s in self.seats:
            if s.token_hash is not None and s.token_hash == token_hash:
                return s.index
        return None

    def seat_of_account(self, account: int) -> int | None:
        """The seat account ``account`` holds here (its token not revoked), or ``None`` (issue 18)."""
        for s in self.seats:
            if s.account == account and s.token_hash is not None:
                return s.index
        return None

    def revoked_by(self, token_hash: str) -> EventKind | None:
        """The event kind that revoked ``token_hash``, or ``None``."""
        for th, kind in self.revoked:
            if th == token_hash:
                return kind
        return None

    @property
    def round(self) -> int:
        st = self.state
        return len(st.results) + (0 if st.is_over else 1) if st is not None else 0

    @property
    def winner(self) -> str | None:
        st = self.state
        return st.game.players[st.winner] if st is not None and st.winner is not None else None

    @property
    def winner_stand_in(self) -> bool:
        """Whether the winner's seat is a bot playing under a person's name (the
        person left, or was replaced after the grace period): the pages then name
        the stand-in bot, not the person, as the winner (issue 17, fault 2)."""
        st = self.state
        return st is not None and st.winner is not None and self.seats[st.winner].replaced

    @property
    def game_number(self) -> int:
        """The number of the game in ``state`` (1 for the table's first game)."""
        return len(self.past_games) + 1

    def score(self) -> list[dict[str, Any]]:
        """The table's running score over its finished games: ``[{"name", "seat",
        "wins", "stand_in_wins"}]``, one entry per seat of the last game (its
        name there), most wins first, then by seat. A seat whose player changed
        (a person who left, and the bot that took the seat at "Play again")
        keeps its earlier players in ``"before": [{"name", "wins",
        "stand_in_wins"}]``, so the score lists one name per seat (issue 38: 6
        names for 5 seats).

        A game won by a bot standing in for a person who left (or was away past
        the grace period) is not that person's win: it counts in their entry's
        ``stand_in_wins``, never in ``wins`` (issue 17, fault 2)."""
        games: list[tuple[State, str | None, bool]] = [(g.state, g.winner, g.winner_stand_in) for g in self.past_games]
        if self.state is not None:
            over = self.status is TableStatus.FINISHED
            games.append((self.state, self.winner if over else None, over and self.winner_stand_in))
        names: dict[int, list[str]] = {}  # seat -> its players, first to last
        wins: dict[tuple[int, str], int] = {}
        stand_in_wins: dict[tuple[int, str], int] = {}
        for st, winner, stand_in in games:
            players = st.game.players
            for i, name in enumerate(players):
                if name not in names.setdefault(i, []):
                    names[i].append(name)
                wins.setdefault((i, name), 0)
                stand_in_wins.setdefault((i, name), 0)
            if winner is not None and winner in players:
                (stand_in_wins if stand_in else wins)[(players.index(winner), winner)] += 1
        last = games[-1][0].game.players if games else ()
        out = []
        for i, name in enumerate(last):
            entry: dict[str, Any] = {"name": name, "seat": i, "wins": wins[(i, name)], "stand_in_wins": stand_in_wins[(i, name)]}
            before = [{"name": n, "wins": wins[(i, n)], "stand_in_wins": stand_in_wins[(i, n)]} for n in names[i] if n != name]
            if before:
                entry["before"] = before
            out.append(entry)
        return sorted(out, key=lambda e: (-e["wins"], e["seat"]))

    def may_rematch(self, seat: int) -> bool:
        """Whether ``seat`` may start the next game: the host, or any person
        seated when the host's seat holds no person any more."""
        humans = self.humans()
        return seat in humans and (seat == self.host or self.host not in humans)

    def summary(self, connected: set[int], visitors: int) -> dict[str, Any]:
        """The table summary of ``docs/server-protocol.md``; ``connected`` are the
        seats with a client, ``visitors`` the clients with no seat."""
        return {
            "code": self.code,
            "status": self.status.value,
            "rules": self.rules_dict,
            "rules_summary": rules_summary(self.rules),
            "preset": self.preset,
            "n_seats": self.n_seats,
            "turn_timer": self.turn_timer,
            "private": self.private,
            **({"bots_learn": True} if self.bots_learn else {}),
            **({"rated": True} if self.rated else {}),
            "host": self.host,
            "seats": [s.summary(s.kind is SeatKind.BOT or s.index in connected) for s in self.seats],
            "visitors": visitors,
            "created_at": self.created_at.isoformat().replace("+00:00", "Z"),
            "winner": self.winner,
            # fair dice version 2: the next deal's commitment, for the persons' pages to answer
            "commitment": self.next_seed[0] if self.next_seed is not None else None,
            **({"winner_stand_in": True} if self.winner_stand_in else {}),
            # "Play again" (issue 17): the game in play (1, 2, ...) and the running score
            "game": self.game_number,
            "score": self.score(),
        }


@lru_cache(maxsize=256)
def rules_summary(rules: Rules) -> list[dict[str, str]]:
    """The engine's rule set in words (:func:`~liars_dice.engine.summary.rules_summary_json`),
    built once per rule set: the browser shows it and words no rule itself."""
    return rules_summary_json(rules)


#: One :class:`Rules` value (and its ``to_dict()``) per rule set in play, by
#: its canonical JSON: tables of one rule set share them. The engine caches a
#: rule set's bid ladders by the Rules object, so a Rules value per table cost
#: every table its own ladders, one per dice count (issue 16: about 140 KiB of
#: the memory per table). Bounded: past the cap a rule set gets its own value.
_RULES: dict[str, tuple[Rules, dict[str, Any]]] = {}
_RULES_MAX = 1024


def shared_rules(options: dict[str, Any]) -> tuple[Rules, dict[str, Any]]:
    """The :class:`Rules` of ``options`` (a ``created`` event's ``rules``) and
    its ``to_dict()``, one value per rule set (read only: never mutate the dict).

    :raises RulesError: as :meth:`Rules.from_dict`, for options no rule set has.
    """
    key = json.dumps(options, sort_keys=True, separators=(",", ":"))
    have = _RULES.get(key)
    if have is None:
        rules = Rules.from_dict(options)
        have = (rules, rules.to_dict())
        if len(_RULES) < _RULES_MAX:
            _RULES[key] = have
    return have


def created(payload: dict[str, Any], chat_kept: int = 50) -> Table:
    """The table a ``created`` event makes (its rules shared with every table
    of the same rule set, :func:`shared_rules`)."""
    rules, rules_dict = shared_rules(payload["rules"])
    return Table(
        id=payload["id"], code=payload["code"], preset=payload["preset"], rules=rules,
        n_seats=payload["n_seats"], turn_timer=payload["turn_timer"], private=payload["private"],
        created_at=datetime.fromisoformat(payload["created_at"]), rules_dict=rules_dict,
        chat_kept=chat_kept, seats=tuple(Seat(i) for i in range(payload["n_seats"])), seq=1,
        bots_learn=bool(payload.get("bots_learn", False)), rated=bool(payload.get("rated", False)),
    )


def unopened(payload: dict[str, Any], chat_kept: int = 50) -> Table:
    """The table a :class:`~liars_dice.server.core.commands.Create` command is
    decided against: the one its ``created`` event makes, at event number 0
    (nothing stored yet)."""
    return replace(created(payload, chat_kept), seq=0)


def rebuild(events: Iterable[tuple[int, str, dict[str, Any]]], chat_kept: int = 50) -> Table:
    """The table after its stored events ``(seq, kind, payload)``, oldest first
    (the first is ``created``): :func:`apply` folded over them.

    :raises ValueError: when there is no event, the first is not
        ``created``, an event's kind is unknown, or the numbers are not
        consecutive (a gap: an event of the middle is missing, so the table
        cannot be known; issue 16 fault 8).
    :raises liars_dice.engine.LiarsDiceError: an event the table cannot apply.
    """
    it = iter(events)
    first = next(it, None)
    if first is None:
        raise ValueError("A table has at least its 'created' event; none is stored.")
    seq, kind, payload = first
    if kind != EventKind.CREATED:
        raise ValueError(f"A table's first event is 'created', not {kind!r}.")
    t = created(payload, chat_kept)
    t = replace(t, seq=seq)
    for seq, kind, payload in it:
        if seq != t.seq + 1:
            raise ValueError(f"Event {seq} follows event {t.seq}: events {t.seq + 1} to {seq - 1} are missing.")
        t = replace(apply(t, Event(EventKind(kind), payload)), seq=seq)
    return replace(t, last_event={"kind": "sync"})


# -- the one way a table changes ----------------------------------------------------


def _seat(t: Table, i: int, **changes: Any) -> tuple[Seat, ...]:
    seats = list(t.seats)
    seats[i] = replace(seats[i], **changes) if changes else Seat(i)
    return tuple(seats)


def apply(t: Table, e: Event) -> Table:
    """The table after event ``e`` (``seq`` is the caller's to set).

    :raises liars_dice.engine.LiarsDiceError: when a ``move`` is illegal in the
        state (the engine's checked transition; nothing has changed).
    """
    p = e.payload
    k = e.kind
    if k is EventKind.MOVE:
        state = t.state
        assert state is not None
        seat = p["seat"]
        name = state.game.players[seat]
        if p.get("challenge") or p.get("calza"):
            calza = bool(p.get("calza"))
            state = state.apply(CALZA if calza else CHALLENGE, seat=seat)
            last: dict[str, Any] = {
                "kind": "calza" if calza else "challenge", "player": name, "by_bot": bool(p.get("by_bot")),
                "result_index": len(state.results) - 1,
            }
        else:
            bid = Bid(p["bid"]["quantity"], p["bid"]["face"])
            show = tuple(p.get("show") or ())
            state = state.apply(bid, show, seat=seat)
            if show:
                state = state.reroll(p["reroll"])
            last = {"kind": "bid", "player": name, "bid": bid.to_json(), "by_bot": bool(p.get("by_bot"))}
            if show:
                last["show"] = list(show)
        return replace(t, state=state, last_event=last, move_number=t.move_number + 1)
    if k is EventKind.DEALT:
        assert t.state is not None
        nxt = p.get("next")
        return replace(
            t, state=t.state.deal(p["hands"]), seeds=fairness.with_seed(t.seeds, t.state, p),
            next_seed=(nxt["commitment"], nxt["seed"]) if nxt else None, contributions=(),
        )
    if k is EventKind.COMMITTED:
        return replace(t, next_seed=(p["commitment"], p["seed"]), contributions=())
    if k is EventKind.CONTRIBUTED:
        return replace(t, contributions=(*t.contributions, (p["seat"], p["seed"])))
    if k is EventKind.CREATED:
        return replace(created(p, t.chat_kept), seq=t.seq)
    if k is EventKind.JOINED:
        return replace(t, seats=_seat(t, p["seat"], kind=SeatKind.HUMAN, name=p["name"], bot=None,
                                       token_hash=p["token_hash"], replaced=False, returnable=False,
                                       account=p.get("account")))
    if k is EventKind.BOT_ADDED:
        return replace(t, seats=_seat(t, p["seat"], kind=SeatKind.BOT, name=p["name"], bot=p["bot"],
                                       token_hash=None, replaced=False, returnable=False, account=None))
    if k is EventKind.SEAT_FREED:
        th = t.seats[p["seat"]].token_hash
        revoked = t.revoked + ((th, k),) if th is not None else t.revoked
        return replace(t, seats=_seat(t, p["seat"]), revoked=revoked)
    if k is EventKind.HOST:
        return replace(t, host=p["seat"])
    if k is EventKind.CLOSED:
        return replace(t, status=TableStatus.CLOSED)
    if k is EventKind.STARTED:
        state = Game.create(t.rules, p["players"]).initial_state(p["start"])
        return replace(t, state=state, start=p["start"], status=TableStatus.PLAYING, last_event={"kind": "start"})
    if k is EventKind.REPLACED:
        s = t.seats[p["seat"]]
        for_good = p.get("reason") != Departure.GRACE
        revoked = t.revoked + ((s.token_hash, k),) if for_good and s.token_hash is not None else t.revoked
        departed = t.departed
        if t.state is not None and all(seat != s.index for seat, _ in departed):
            departed = (*departed, (s.index, len(t.state.results)))
        return replace(t, revoked=revoked, departed=departed, seats=_seat(
            t, s.index, kind=SeatKind.BOT, bot=p["bot"], replaced=True, returnable=not for_good,
            token_hash=None if for_good else s.token_hash,
        ))
    if k is EventKind.RETURNED:
        return replace(t, seats=_seat(t, p["seat"], kind=SeatKind.HUMAN, bot=None, replaced=False, returnable=False))
    if k is EventKind.CHAT:
        line = {"seat": p["seat"], "name": p["name"], "text": p["text"], "at": p["at"]}
        return replace(t, chat=(t.chat + (line,))[-t.chat_kept:], chat_count=t.chat_count + 1)
    if k is EventKind.FINISHED:
        return replace(t, status=TableStatus.FINISHED)
    if k is EventKind.NEW_GAME:
        assert t.state is not None
        seats = list(t.seats)
        for seat, bot, name in p.get("bots", ()):
            seats[seat] = Seat(seat, kind=SeatKind.BOT, name=name, bot=bot)
        past = PastGame(t.state, t.start, t.seeds, winner_stand_in=t.winner_stand_in)
        state = Game.create(t.rules, p["players"]).initial_state(p["start"])
        departed = tuple((s.index, 0) for s in seats if s.kind is SeatKind.BOT and s.replaced)
        return replace(
            t, past_games=(*t.past_games, past), seats=tuple(seats), state=state, start=p["start"],
            seeds=(), departed=departed, status=TableStatus.PLAYING, last_event={"kind": "start", "game": p["game"]},
        )
    raise ValueError(f"A table cannot apply a {k.value!r} event.")  # ``created`` starts a table
