"""What is asked of a table, and what it makes: the decision half of
boardgame.io's reducer shape (the other half is :func:`~liars_dice.server.core.tables.apply`).

* :func:`decide` ``(table, command, dice) -> events`` checks a command against
  the table and makes the events it causes, rolling any dice it needs. It
  raises (a :class:`~liars_dice.engine.LiarsDiceError`) and makes nothing when
  the command is refused; a move's legality is the engine's, checked once by
  :func:`~liars_dice.server.core.tables.apply`.
* :func:`settle` ``(table, dice) -> event or None``: what follows on its own
  (the next deal after a challenge, the end of the game).
* :func:`step` chains :func:`decide`, ``apply`` and :func:`settle`: the one
  path of every change, pure (the caller stores the events, then keeps the table).

The dice of a round are rolled in one place, :func:`roll_deal` (and
:func:`roll_reroll` for a show-and-reroll), both from the round's fair-dice
seed (:mod:`.fairness`, ``docs/fair-dice.md``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any, Union

from ...bots import REGISTRY
from ...bots.names import bot_names
from ...engine import Action, Bid, Calza, Challenge, DiceSource, GameOverError, Phase, State
from . import fairness
from .errors import (
    BotUnknown,
    GameNotFinished,
    NameTaken,
    NotHost,
    SeatEmpty,
    SeatIsHost,
    SeatReplaced,
    SeatsEmpty,
    SeatTaken,
    SeedRefused,
    TableFull,
    TableNotStarted,
    TableStarted,
)
from .text import confusable_with
from .tables import Departure, Event, EventKind, SeatKind, Table, TableStatus, apply


@dataclass(frozen=True, slots=True)
class Create:
    """A new table (the ``created`` event's ``payload``) with its host, a person
    named ``name``, in seat 0. Decided against the table the payload makes, at
    event number 0 (:func:`~liars_dice.server.core.tables.unopened`)."""

    payload: dict[str, Any]
    name: str
    token_hash: str
    account: int | None = None  #: the host's account (issue 18), ``None`` for a guest


@dataclass(frozen=True, slots=True)
class Contribute:
    """``seat``'s page sends ``seed`` (64 hex digits) for the next deal, in
    answer to the server's ``commitment`` to that deal (fair dice version 2)."""

    seat: int
    commitment: str
    seed: str


@dataclass(frozen=True, slots=True)
class Join:
    """A person takes ``seat`` (``None``: the first empty one)."""

    name: str
    token_hash: str
    seat: int | None = None
    account: int | None = None  #: the signed-in account taking the seat (issue 18), ``None`` for a guest


@dataclass(frozen=True, slots=True)
class AddBot:
    by: int
    bot: str
    where: int | None = None


@dataclass(frozen=True, slots=True)
class RemoveSeat:
    """The host frees a seat before the start: a bot's, or a waiting person's."""

    by: int
    where: int


@dataclass(frozen=True, slots=True)
class Start:
    by: int
    first: int  #: the first opener


@dataclass(frozen=True, slots=True)
class Leave:
    """``seat``'s person gives the seat up: for good (``LEAVE``), or by being
    unconnected past the grace period (``GRACE``)."""

    seat: int
    reason: Departure
    stand_in: str  #: the bot that takes the seat over if the game is on


@dataclass(frozen=True, slots=True)
class Return:
    """A person replaced after the grace period is back."""

    seat: int


@dataclass(frozen=True, slots=True)
class Chat:
    seat: int
    text: str
    at: str


@dataclass(frozen=True, slots=True)
class Move:
    """A bid (with an optional show) or a challenge for ``seat``.

    :ivar client: it came from a person's client (refused for a seat a bot took over).
    :ivar expect_move: for a timer's or a bot's move, the move number it was made for.
    :ivar expect_kind: for a timer's or a bot's move, the kind the seat had when
        the move was thought of (a bot's seat, or a person's for the turn
        timer's stand-in): checked under the room's lock, so a bot never moves
        for a person who came back meanwhile (issue 16 fault 11).
    """

    seat: int
    action: Action
    show: tuple[int, ...] = ()
    by_bot: bool = False
    client: bool = False
    expect_move: int | None = None
    expect_kind: SeatKind | None = None


@dataclass(frozen=True, slots=True)
class Rematch:
    """"Play again" (issue 17): ``by`` asks for the table's next game, once
    this one is over: the same seats, rules and settings, the next seat
    opening. Allowed to the host, or to any seated person when the host's seat
    holds no person (:meth:`~liars_dice.server.core.tables.Table.may_rematch`).
    ``address``: the client address that asked, the table's creator from
    then on (its open-table cap and its bots' place in the queue; never in
    an event, so never in a record)."""

    by: int
    address: str | None = None


@dataclass(frozen=True, slots=True)
class Settle:
    """Nothing but what follows on its own (a restarted server's first step)."""


Command = Union[Create, Contribute, Join, AddBot, RemoveSeat, Start, Leave, Return, Chat, Move, Rematch, Settle]


class Stale(Exception):
    """A timer's move arrived after the game moved on (another move number, or
    the seat changed hands): nothing to do."""


def _host_only(t: Table, by: int) -> None:
    if by != t.host:
        raise NotHost("Only the host can do that.")
    if t.status is not TableStatus.OPEN:
        raise TableStarted("The game has already started.")


def decide(t: Table, c: Command, dice: DiceSource) -> list[Event]:
    """The events command ``c`` makes at table ``t`` (``[]``: nothing to do).

    :raises liars_dice.engine.LiarsDiceError: the command is refused (a
        :mod:`~liars_dice.server.core.errors` class, or the engine's when
        :func:`apply` refuses a move). Nothing changes.
    :raises Stale: a move for a move number that has passed.
    """
    E = Event
    if isinstance(c, Create):
        if t.seq != 0:
            raise TableStarted("This table already exists.")
        return [
            E(EventKind.CREATED, c.payload), *decide(t, Join(c.name, c.token_hash, 0, c.account), dice),
            E(EventKind.COMMITTED, fairness.commit(dice)),
        ]
    if isinstance(c, Contribute):
        if t.next_seed is None or not t.is_live:
            raise SeedRefused("No deal is waiting for a seed now.")
        if c.commitment != t.next_seed[0]:
            raise SeedRefused("That seed answers another commitment than the next deal's: it was not used.")
        if t.seats[c.seat].kind is not SeatKind.HUMAN:
            raise SeedRefused("Only a person's seat contributes a seed.")
        if any(s == c.seat for s, _ in t.contributions):
            raise SeedRefused("Your seed for the next deal is already in.")
        return [E(EventKind.CONTRIBUTED, {"seat": c.seat, "seed": c.seed})]
    if isinstance(c, Move):
        if c.expect_move is not None and c.expect_move != t.move_number:
            raise Stale
        if c.expect_kind is not None and 0 <= c.seat < t.n_seats and t.seats[c.seat].kind is not c.expect_kind:
            raise Stale
        if t.status is TableStatus.FINISHED:
            raise GameOverError("The game is over.")
        if t.status is not TableStatus.PLAYING or t.state is None:
            raise TableNotStarted("The game has not started yet.")
        if c.client and t.seats[c.seat].kind is SeatKind.BOT:
            raise SeatReplaced("A bot has taken over this seat.")
        bid = c.action if isinstance(c.action, Bid) else None
        reroll: list[int] = []
        if bid is not None and c.show:
            reroll = roll_reroll(t, c.seat, len(c.show), dice)
        payload = {
            "seat": c.seat, "bid": bid.to_json() if bid is not None else None,
            "challenge": isinstance(c.action, Challenge), "show": list(c.show), "reroll": reroll, "by_bot": c.by_bot,
        }
        if isinstance(c.action, Calza):
            payload["calza"] = True  # only calza moves carry the key: other payloads are as they always were
        return [E(EventKind.MOVE, payload)]
    if isinstance(c, Chat):
        return [E(EventKind.CHAT, {"seat": c.seat, "name": t.seats[c.seat].name, "text": c.text, "at": c.at})]
    if isinstance(c, Join):
        if t.status is not TableStatus.OPEN:
            raise TableStarted("This game has already started: you can watch it.")
        empty = t.empty_seats()
        if not empty:
            raise TableFull("Every seat at this table is taken: you can watch.")
        seat = empty[0] if c.seat is None else c.seat
        if c.seat is not None and c.seat >= t.n_seats:
            raise SeatTaken(f"This table has seats 0 to {t.n_seats - 1}.")
        if seat not in empty:
            raise SeatTaken(f"Seat {seat} is taken.")
        if c.account is not None and t.seat_of_account(c.account) is not None:
            raise SeatTaken("You already hold a seat at this table.")
        # Names differ by how they look (UTS #39 skeleton), not only by their code points.
        if (clash := confusable_with(c.name, t.names)) is not None:
            raise NameTaken(f"Someone at this table is already called {clash!r}, a name too like it.")
        joined: dict[str, Any] = {"seat": seat, "name": c.name, "token_hash": c.token_hash}
        if c.account is not None:
            joined["account"] = c.account  # guests' events are as they always were
        return [E(EventKind.JOINED, joined)]
    if isinstance(c, AddBot):
        _host_only(t, c.by)
        if c.bot not in REGISTRY:
            raise BotUnknown(f"There is no bot called {c.bot!r}; choose from {', '.join(sorted(REGISTRY))}.")
        empty = t.empty_seats()
        if c.where is None and not empty:
            raise TableFull("Every seat is taken.")
        where = empty[0] if c.where is None else c.where
        if where not in empty:
            raise SeatTaken(f"Seat {where} is not an empty seat.")
        name = _bot_name(t.id, where, t.names)
        return [E(EventKind.BOT_ADDED, {"seat": where, "bot": c.bot, "name": name})]
    if isinstance(c, RemoveSeat):
        _host_only(t, c.by)
        if not 0 <= c.where < t.n_seats or t.seats[c.where].kind is SeatKind.EMPTY:
            raise SeatEmpty(f"Seat {c.where} is already empty.")
        if c.where == c.by:
            raise SeatIsHost("The host cannot remove their own seat; leave the table instead.")
        return [E(EventKind.SEAT_FREED, {"seat": c.where})]
    if isinstance(c, Start):
        _host_only(t, c.by)
        if t.empty_seats():
            raise SeatsEmpty("Fill every seat (invite players or add bots) before the start.")
        # ``apply`` makes the game: the engine refuses players it cannot seat, before anything is stored.
        return [E(EventKind.STARTED, {"players": [s.name for s in t.seats], "start": c.first})]
    if isinstance(c, Leave):
        if t.seats[c.seat].kind is not SeatKind.HUMAN:
            return []
        if t.status is TableStatus.OPEN:
            events = [E(EventKind.SEAT_FREED, {"seat": c.seat})]
            if c.seat == t.host:
                others = [i for i in t.humans() if i != c.seat]
                events.append(E(EventKind.HOST, {"seat": others[0]}) if others else E(EventKind.CLOSED, {}))
            return events
        if t.status is TableStatus.PLAYING:
            return [E(EventKind.REPLACED, {"seat": c.seat, "bot": c.stand_in, "reason": c.reason.value})]
        return []
    if isinstance(c, Return):
        s = t.seats[c.seat]
        if s.returnable and t.status is TableStatus.PLAYING:
            return [E(EventKind.RETURNED, {"seat": c.seat})]
        return []
    if isinstance(c, Rematch):
        return _rematch(t, c, dice)
    if isinstance(c, Settle):
        return []
    raise TypeError(f"Not a table command: {c!r}")  # pragma: no cover - Command is closed


def _bot_name(table_id: str, seat: int, taken: set[str]) -> str:
    """A bot's name at a table, one that reads like a player's (issue 17 "Names
    for people", :func:`~liars_dice.bots.names.bot_names`): the same for the
    same table and seat, never one ``taken`` there."""
    seed = int.from_bytes(hashlib.sha256(f"{table_id}/{seat}".encode()).digest()[:8], "big")
    return bot_names(1, seed, taken=taken)[0]


def _rematch(t: Table, c: Rematch, dice: DiceSource) -> list[Event]:
    """The events of :class:`Rematch`: ``new_game``, then (when the next deal
    has no committed server seed yet, at a table with persons) ``committed``.

    A person who left the game for good is not seated again: the seat stays
    with the bot that took it over, now under a bot's own name (so no one who
    left can be named a winner). A person replaced after the grace period
    keeps the seat (the bot plays it until they come back). The first deal
    uses the server seed committed at the last deal of the game before (never
    used nor published) with the seeds the pages sent for it."""
    if t.status is not TableStatus.FINISHED or t.state is None:
        raise GameNotFinished("The game is still on: play again once it is over.")
    if not t.may_rematch(c.by):
        raise NotHost("Only the host can start the next game.")
    taken = {s.name for s in t.seats if s.name is not None and not (s.replaced and not s.returnable)}
    bots: list[list[Any]] = []
    players: list[str] = []
    for s in t.seats:
        name = s.name
        assert name is not None
        if s.kind is SeatKind.BOT and s.replaced and not s.returnable:
            assert s.bot is not None
            name = _bot_name(t.id, s.index, taken)
            taken.add(name)
            bots.append([s.index, s.bot, name])
        players.append(name)
    events = [Event(EventKind.NEW_GAME, {
        "game": t.game_number + 1, "players": players, "start": (t.start + 1) % t.n_seats, "bots": bots,
    })]
    if t.next_seed is None and any(s.kind is SeatKind.HUMAN for s in t.seats):
        events.append(Event(EventKind.COMMITTED, fairness.commit(dice)))
    return events


def settle(t: Table, dice: DiceSource) -> Event | None:
    """The event that follows on its own, if any: the deal of a round once the
    game waits for it, or the end once it has a winner."""
    if t.status is not TableStatus.PLAYING or t.state is None:
        return None
    if t.state.phase is Phase.DEAL:
        return Event(EventKind.DEALT, roll_deal(t, dice))
    if t.state.is_over:
        return Event(EventKind.FINISHED, {"winner": t.winner, **({"stand_in": True} if t.winner_stand_in else {})})
    return None


def step(t: Table, c: Command, dice: DiceSource) -> tuple[Table, list[Event]]:
    """:func:`decide`, :func:`apply` each event, then :func:`settle` until
    nothing follows. Returns the new table and the events to store (``seq``
    advanced by their number). Pure: ``t`` is unchanged, whatever is raised.

    :raises: as :func:`decide` and :func:`apply`.
    """
    base = t.seq
    events = decide(t, c, dice)
    for e in events:
        t = apply(t, e)
    while (settled := settle(t, dice)) is not None:
        events.append(settled)
        t = apply(t, settled)
    return replace(t, seq=base + len(events)), events


# -- the dice ----------------------------------------------------------------------


def roll_deal(t: Table, dice: DiceSource) -> dict[str, Any]:
    """The ``dealt`` payload of ``t``'s new round: every seat's faces ``[]`` for
    a seat out) from the round's fair-dice seed: the one committed before the
    deal and mixed with the persons' contributed seeds (version 2), or a fresh
    one drawn from ``dice`` (version 1, a table of bots); and the next round's
    commitment (:func:`.fairness.deal`). The one place a round's dice are rolled."""
    assert t.state is not None
    persons = [s.index for s in t.seats if s.kind is SeatKind.HUMAN]
    return fairness.deal(t.state, dice, t.next_seed, t.contributions, persons)


def roll_reroll(t: Table, seat: int, n_shown: int, dice: DiceSource) -> list[int]:
    """The new faces for ``seat``'s hidden dice after it shows ``n_shown`` of
    them, from the round's seed (``[]`` when that would leave none hidden: the
    engine then refuses the show)."""
    state = t.state
    assert state is not None
    n = len(state.hidden[seat]) - n_shown
    return fairness.reroll(state, t.seeds, seat, n, dice) if n >= 1 and state.to_move == seat else []
