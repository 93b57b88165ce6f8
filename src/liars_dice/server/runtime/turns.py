"""Timer policy and bot turns: who moves next and when, the grace period of a
person away, and a finished table leaving memory.

After a challenge (or a calza) that leaves the game on, the reveal shows for
``Settings.reveal_seconds``: the next turn's clock (the turn timer, or a bot's
pause) starts when it is over, and a person's move before then is refused
(``turn/reveal``, :meth:`Turns.check_reveal`).

:class:`Turns` decides which timer commands (:mod:`.timers`) are due and
plays a bot's turn when its :class:`~.timers.TurnDue` fires; the move itself
goes through the one change path it is given.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

from ...engine import LiarsDiceError, Phase
from collections.abc import Sequence

from ..core.commands import Command, Move, Stale
from ..core.config import Settings
from ..core.errors import RevealShowing
from ..core.tables import Event, EventKind, SeatKind, TableStatus
from . import bots_runner
from .bot_queue import FairQueue
from .clock import Clock, SystemClock
from .learning import Learner
from .room import Room
from .timers import Evict, GraceOver, Scheduler, TurnDue

log = logging.getLogger(__name__)

Run = Callable[[Room, Command], Awaitable[list[Event]]]


class Turns:
    """The timers of every room of one worker, and the bots' turns.

    :param run: the change path (:meth:`~liars_dice.server.runtime.service.TableService.run`).
    :param clock: whose time the reveal and the turn's deadline are in (UNIX seconds).
    """

    def __init__(self, settings: Settings, scheduler: Scheduler, learner: Learner, run: Run,
                 clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.scheduler = scheduler
        self.learner = learner
        self.run = run
        #: the bots' own processes (``Settings.bot_processes``), started with the worker; None: threads
        self.processes = (bots_runner.BotProcesses(settings.bot_processes, settings.bot_nice, settings.trim_seconds)
                          if settings.bot_processes else None)
        #: the decisions' slots (the processes, or the bots' threads), taken in turn by
        #: the addresses that made the tables (:mod:`.bot_queue`; stop 31's attacker)
        self.queue = FairQueue(settings.bot_processes or bots_runner.BOT_THREADS)

    def close(self) -> None:
        """Stop the bots' processes, if any."""
        if self.processes is not None:
            self.processes.close()

    def stand_in_name(self) -> str:
        """The bot that plays for a person who left or ran out of time."""
        return bots_runner.stand_in_name(self.settings.timeout_bot)

    # -- what is due -----------------------------------------------------------------

    def start_grace(self, room: Room, seat: int, delay: float | None = None) -> None:
        """The grace period of ``seat``'s person (``delay`` seconds; ``None``: the
        whole of ``Settings.grace``), unless they are connected or it runs."""
        if room.is_connected(seat) or self.scheduler.pending(room, ("grace", seat)):
            return
        self.scheduler.after(room, ("grace", seat), self.settings.grace if delay is None else delay, GraceOver(seat))

    def note_reveal(self, room: Room, events: Sequence[Event]) -> None:
        """Stored ``events`` that hold a challenge (or calza) after which the
        game goes on start the reveal: it is over ``reveal_seconds`` from now."""
        t = room.table
        if t.status is not TableStatus.PLAYING or self.settings.reveal_seconds <= 0:
            return
        for e in events:
            if e.kind is EventKind.MOVE and (e.payload.get("challenge") or e.payload.get("calza")):
                room.reveal_until = self.clock.time() + self.settings.reveal_seconds
            elif e.kind is EventKind.NEW_GAME:
                room.reveal_until = 0.0

    def check_reveal(self, room: Room) -> None:
        """Refuse a person's move while the reveal is showing.

        :raises RevealShowing: before ``room.reveal_until``.
        """
        left = room.reveal_until - self.clock.time()
        if left > 0:
            raise RevealShowing(f"The reveal is still showing: the next round's turn begins in {max(1, round(left))} s.")

    def schedule_turn(self, room: Room) -> None:
        """Who moves next, and when: a bot after its pause, or the turn timer's
        stand-in for a person. Sets ``room.deadline`` for the views."""
        t = room.table
        want: tuple[int, int, str | None] | None = None  # (move number, seat, bot or None: the timer)
        if t.status is TableStatus.PLAYING and t.state is not None and t.state.phase is Phase.BID:
            seat = t.state.to_move
            assert seat is not None
            s = t.seats[seat]
            if s.kind is SeatKind.BOT or t.turn_timer:
                want = (t.move_number, seat, s.bot if s.kind is SeatKind.BOT else None)
        if want == room.turn_for and (want is None or self.scheduler.pending(room, "turn")):
            return
        room.turn_for = want
        room.deadline = None
        if want is None:
            self.scheduler.cancel(room, "turn")
            return
        mn, seat, bot_name = want
        now = self.clock.time()
        reveal = max(0.0, room.reveal_until - now)  # the clock starts when the reveal is over
        if bot_name is not None:
            delay = reveal + self.settings.bot_delay
        else:
            assert t.turn_timer is not None
            delay = reveal + float(t.turn_timer)
            room.deadline = now + delay
        self.scheduler.after(room, "turn", delay, TurnDue(seat, mn, bot_name))

    def evict_later(self, room: Room) -> None:
        """A finished or closed table leaves memory ``finished_ttl`` seconds after
        its last client (it is reloaded from the database when asked for)."""
        if room.conns:
            return
        self.scheduler.after(room, "evict", self.settings.finished_ttl, Evict())

    # -- a bot's turn ------------------------------------------------------------------

    async def play(self, room: Room, due: TurnDue) -> None:
        """A bot's move for ``due.seat`` (its own bot, or the turn timer's
        stand-in), unless the game moved on."""
        t = room.table
        seat, expect = due.seat, due.expect
        if t.move_number != expect or t.status is not TableStatus.PLAYING or t.state is None:
            return
        if due.bot is not None:
            bot, by_bot = room.bot(seat), t.seats[seat].replaced
        else:
            bot, by_bot = room.stand_in(self.stand_in_name()), True
        view = t.state.view(seat)
        kind = t.seats[seat].kind
        if t.bots_learn and kind is SeatKind.BOT and seat not in room.models_given:
            await self._give_models(room, seat, bot)
        async with self.queue.turn(room.creator or f"table:{t.code}"):
            if room.table.move_number != expect:  # the game moved on while this decision waited
                return
            d = await bots_runner.decide(bot, view, f"at table {t.code}", self.processes)
        if room.table.seats[seat].kind is not kind:
            # the person came back to the seat (or left it) while the bot thought:
            # the move is theirs now (attack7: the bot still made it for them)
            return
        try:
            await self._move(room, Move(seat, d.action, d.show, by_bot, False, expect, kind))
        except LiarsDiceError:
            log.exception("bot %s made an illegal move at table %s", getattr(bot, "name", bot), t.code)
            acts = view.legal_actions()
            await self._move(room, Move(seat, random.choice(acts), (), by_bot, False, expect, kind))

    async def _move(self, room: Room, move: Move) -> None:
        try:
            await self.run(room, move)
        except Stale:
            pass

    async def _give_models(self, room: Room, seat: int, bot: Any) -> None:
        """The table option "bots learn from this player's past games": a bot that
        takes opponent models (``set_models``) gets one per person seated under
        their account (issue 18; a guest gets none), fitted on that account's last finished public games under the table's rules (a model is
        of one rule set), once per seat (:class:`~.learning.Learner`). The models
        are given as untrusted (``trusted=False``): names are not identities."""
        room.models_given.add(seat)
        set_models = getattr(bot, "set_models", None)
        if set_models is None:
            return
        if room.learned is None:
            t = room.table
            people = {s.index: s.name for s in t.seats if s.kind is SeatKind.HUMAN and s.name is not None}
            # only a person seated under their account is learned from, on that account's own
            # games; a guest gets no model (issue 18): nobody can shape someone else's
            from .ratings_store import reading, seat_accounts

            store = self.learner.store
            try:
                held = await store.read(reading, store.engine, seat_accounts, t.id, people)
            except Exception:  # noqa: BLE001 - the database failed: the bots play without models
                held = {}
            accounts = {people[seat]: aid for seat, aid in held.items()}
            room.learned = await self.learner.models(list(people.values()), t.code, t.preset, t.rules, accounts)
        # the plans against these models still wait for in-game evidence (bots/strong.py, step 4)
        set_models(room.learned, trusted=False)
