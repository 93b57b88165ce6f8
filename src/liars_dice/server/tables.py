"""A table in memory, and the events that change it.

A :class:`Table` changes only through :meth:`Table.apply_event`, both live and
when a restarted server rebuilds it from the stored events: the same code path,
so a table rebuilt after a kill is the table that was running, at the same move
with the same dice. Validation happens before an event is made (see
:mod:`liars_dice.server.service`); ``apply_event`` trusts its events except
that game moves still go through the engine's checked :meth:`State.apply`.

Event kinds and payloads (stored as JSON in ``events``):

==============  ==============================================================
``created``     ``id, code, preset, rules (every option), n_seats, turn_timer, private, created_at``
``joined``      ``seat, name, token_hash``
``bot_added``   ``seat, bot, name``
``seat_freed``  ``seat`` (a leave or bot removal before the start)
``host``        ``seat`` (the host left before the start)
``closed``      (every person left before the start)
``started``     ``players, start`` (first opener)
``dealt``       ``hands`` (every seat's faces, ``[]`` for seats out), ``commitment, seed`` (hex; the
                round's fair-dice seed, secret until its reveal: see :mod:`.fairness`; absent
                in events stored before fair dice)
``move``        ``seat, bid ({quantity, face} or null), challenge, show, reroll, by_bot``
``replaced``    ``seat, bot, reason`` (a bot takes a person's seat: ``leave`` for good, or ``grace``)
``returned``    ``seat`` (a person replaced after the grace period came back)
``chat``        ``seat, name, text, at``
``finished``    ``winner``
==============  ==============================================================
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..bots import Bot, make_bot
from ..engine import CHALLENGE, Bid, Game, Phase, Rules, State

if TYPE_CHECKING:
    from .hub import Conn


@dataclass(slots=True)
class Seat:
    """One seat. ``kind`` is ``empty``, ``human`` or ``bot``; ``replaced`` marks a
    person's seat a bot has taken over."""

    index: int
    kind: str = "empty"
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    replaced: bool = False
    returnable: bool = False  #: replaced after the grace period: the person may come back

    def summary(self, connected: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": self.index, "name": self.name, "kind": self.kind, "bot": self.bot,
            "connected": connected,
        }
        if self.replaced:
            out["replaced"] = True
        return out


@dataclass(eq=False)
class Table:
    """One table: settings, seats, the game state, and its runtime parts
    (connections, bots, pending tasks), which are never stored."""

    id: str
    code: str
    preset: str
    rules: Rules
    n_seats: int
    turn_timer: int | None
    private: bool
    created_at: datetime
    status: str = "open"  #: open, playing, finished, closed
    host: int = 0
    seats: list[Seat] = field(default_factory=list)
    game: Game | None = None
    state: State | None = None
    start: int = 0
    seq: int = 0  #: the last stored event's number
    move_number: int = 0
    last_event: dict[str, Any] = field(default_factory=lambda: {"kind": "sync"})
    chat: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=50))
    #: per round index, (commitment, seed) in hex (docs/fair-dice.md); secret until the round's reveal
    seeds: dict[int, tuple[str, str]] = field(default_factory=dict)
    # runtime only
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: set["Conn"] = field(default_factory=set)
    bots: dict[int, Bot] = field(default_factory=dict)
    deadline: float | None = None
    turn_task: asyncio.Task[None] | None = None
    grace_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    finished_at: datetime | None = None
    rules_dict: dict[str, Any] = field(default_factory=dict)  #: ``rules.to_dict()``, computed once
    results_json: tuple[int, list[dict[str, Any]], str] | None = None  #: (rounds, their results, as JSON), see views

    # -- construction ----------------------------------------------------------

    @staticmethod
    def from_created(payload: dict[str, Any]) -> "Table":
        t = Table(
            id=payload["id"], code=payload["code"], preset=payload["preset"],
            rules=Rules.from_dict(payload["rules"]), n_seats=payload["n_seats"],
            turn_timer=payload["turn_timer"], private=payload["private"],
            created_at=datetime.fromisoformat(payload["created_at"]),
        )
        t.seats = [Seat(i) for i in range(t.n_seats)]
        t.rules_dict = t.rules.to_dict()
        t.seq = 1
        return t

    @staticmethod
    def rebuild(events: list[tuple[int, str, dict[str, Any]]]) -> "Table":
        """The table after its stored events, oldest first (the first is ``created``)."""
        seq, kind, payload = events[0]
        assert kind == "created", kind
        t = Table.from_created(payload)
        t.seq = seq
        for seq, kind, payload in events[1:]:
            t.apply_event(kind, payload)
            t.seq = seq
        t.last_event = {"kind": "sync"}
        return t

    # -- facts -------------------------------------------------------------------

    @property
    def names(self) -> set[str]:
        return {s.name for s in self.seats if s.name is not None}

    def empty_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind == "empty"]

    def seat_of_token(self, token_hash: str) -> int | None:
        for s in self.seats:
            if s.token_hash is not None and s.token_hash == token_hash:
                return s.index
        return None

    def connected_seats(self) -> set[int]:
        return {c.seat for c in self.conns if c.seat is not None}

    def visitors(self) -> int:
        return sum(1 for c in self.conns if c.seat is None)

    @property
    def round(self) -> int:
        return len(self.state.results) + (0 if self.state.is_over else 1) if self.state else 0

    def summary(self) -> dict[str, Any]:
        """The table summary of ``docs/server-protocol.md``."""
        connected = self.connected_seats()
        winner = None
        if self.state is not None and self.state.winner is not None:
            winner = self.state.game.players[self.state.winner]
        return {
            "code": self.code,
            "status": self.status,
            "rules": self.rules_dict,
            "preset": self.preset,
            "n_seats": self.n_seats,
            "turn_timer": self.turn_timer,
            "private": self.private,
            "host": self.host,
            "seats": [s.summary(s.kind == "bot" or s.index in connected) for s in self.seats],
            "visitors": self.visitors(),
            "created_at": self.created_at.isoformat().replace("+00:00", "Z"),
            "winner": winner,
        }

    # -- the one way a table changes ---------------------------------------------

    def apply_event(self, kind: str, p: dict[str, Any]) -> None:
        """Apply one stored event.

        :raises liars_dice.engine.LiarsDiceError: when a game event does not fit
            the state (never for events this server made).
        """
        if kind == "joined":
            s = self.seats[p["seat"]]
            s.kind, s.name, s.bot, s.token_hash, s.replaced = "human", p["name"], None, p["token_hash"], False
        elif kind == "bot_added":
            s = self.seats[p["seat"]]
            s.kind, s.name, s.bot, s.token_hash, s.replaced = "bot", p["name"], p["bot"], None, False
            self.bots[s.index] = make_bot(p["bot"])
        elif kind == "seat_freed":
            self.seats[p["seat"]] = Seat(p["seat"])
            self.bots.pop(p["seat"], None)
        elif kind == "host":
            self.host = p["seat"]
        elif kind == "closed":
            self.status = "closed"
        elif kind == "started":
            self.game = Game.create(self.rules, p["players"])
            self.start = p["start"]
            self.state = self.game.initial_state(self.start)
            self.status = "playing"
            self.last_event = {"kind": "start"}
        elif kind == "dealt":
            assert self.state is not None
            if p.get("seed") is not None:
                self.seeds[len(self.state.logs)] = (p["commitment"], p["seed"])
            self.state = self.state.deal(p["hands"])
        elif kind == "move":
            assert self.state is not None
            seat = p["seat"]
            name = self.state.game.players[seat]
            if p.get("challenge"):
                self.state = self.state.apply(CHALLENGE, seat=seat)
                self.last_event = {
                    "kind": "challenge", "player": name, "by_bot": bool(p.get("by_bot")),
                    "result_index": len(self.state.results) - 1,
                }
            else:
                bid = Bid(p["bid"]["quantity"], p["bid"]["face"])
                show = tuple(p.get("show") or ())
                self.state = self.state.apply(bid, show, seat=seat)
                if show:
                    self.state = self.state.reroll(p["reroll"])
                ev: dict[str, Any] = {"kind": "bid", "player": name, "bid": bid.to_json(), "by_bot": bool(p.get("by_bot"))}
                if show:
                    ev["show"] = list(show)
                self.last_event = ev
            self.move_number += 1
        elif kind == "replaced":
            s = self.seats[p["seat"]]
            s.kind, s.bot, s.replaced = "bot", p["bot"], True
            s.returnable = p.get("reason") == "grace"
            self.bots[s.index] = make_bot(p["bot"])
        elif kind == "returned":
            s = self.seats[p["seat"]]
            s.kind, s.bot, s.replaced, s.returnable = "human", None, False, False
            self.bots.pop(s.index, None)
        elif kind == "chat":
            self.chat.append({"seat": p["seat"], "name": p["name"], "text": p["text"], "at": p["at"]})
        elif kind == "finished":
            self.status = "finished"
        else:  # pragma: no cover - an unknown kind means a newer server wrote it
            raise ValueError(f"Unknown table event {kind!r}.")

    @property
    def waiting_for_dice(self) -> bool:
        return self.state is not None and self.state.phase in (Phase.DEAL, Phase.REROLL)
