"""What happens without a client message: a bot's turn after its pause, the
turn timer (a bot plays the move for a person who ran out of time), and the
grace period (a person gone too long is replaced by a bot).

:class:`TurnScheduler` is a mixin of :class:`~liars_dice.server.service.TableService`;
it calls the service's ``move`` and ``leave``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any

from ..bots import Bot
from ..engine import LiarsDiceError, Phase
from . import bots_runner
from .config import Settings
from .tables import Table

log = logging.getLogger(__name__)


class TurnScheduler:
    """Per table, at most one pending turn task (a bot's move or the turn
    timer) and one grace task per absent person."""

    settings: Settings
    _stand_ins: dict[str, Bot]

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:  # provided by the service
        raise NotImplementedError

    async def move(self, *args: Any, **kw: Any) -> bool:  # provided by the service
        raise NotImplementedError

    async def leave(self, table: Table, seat: int, reason: str) -> None:  # provided by the service
        raise NotImplementedError

    def stand_in(self, table: Table) -> Bot:
        """The bot that plays for people at ``table`` when their timer runs out."""
        bot = self._stand_ins.get(table.id)
        if bot is None:
            bot = self._stand_ins[table.id] = bots_runner.new_bot(bots_runner.stand_in_name(self.settings.timeout_bot))
        return bot

    def _schedule(self, table: Table) -> None:
        """After a change: who moves next, and when (a bot's pause, the turn timer).
        Sets ``table.deadline`` for the views."""
        old = table.turn_task
        if old is not None and old is not asyncio.current_task() and not old.done():
            old.cancel()
        table.turn_task = None
        table.deadline = None
        if table.status != "playing" or table.state is None or table.state.phase is not Phase.BID:
            return
        seat = table.state.to_move
        assert seat is not None
        s = table.seats[seat]
        if s.kind == "bot":
            table.turn_task = self._spawn(
                self._bot_turn(table, seat, table.move_number, self.settings.bot_delay, table.bots[seat], s.replaced)
            )
        elif table.turn_timer:
            table.deadline = time.time() + table.turn_timer
            table.turn_task = self._spawn(
                self._bot_turn(table, seat, table.move_number, float(table.turn_timer), self.stand_in(table), True)
            )

    async def _bot_turn(self, table: Table, seat: int, expect: int, delay: float, bot: Bot, by_bot: bool) -> None:
        """A bot's move for ``seat`` after ``delay`` seconds, unless the game moved on."""
        if delay > 0:
            await asyncio.sleep(delay)
        if table.move_number != expect or table.status != "playing" or table.state is None:
            return
        view = table.state.view(seat)
        d = await bots_runner.decide(bot, view, f"at table {table.code}")
        try:
            await self.move(table, seat, d.action, d.show, by_bot=by_bot, expect_move=expect)
        except LiarsDiceError:
            log.exception("bot %s made an illegal move at table %s", getattr(bot, "name", bot), table.code)
            if table.move_number == expect and table.state is not None:
                acts = table.state.view(seat).legal_actions()
                await self.move(table, seat, random.choice(acts), (), by_bot=by_bot, expect_move=expect)

    def _start_grace(self, table: Table, seat: int) -> None:
        if seat not in table.grace_tasks:
            table.grace_tasks[seat] = self._spawn(self._grace(table, seat))

    def _cancel_grace(self, table: Table, seat: int) -> None:
        task = table.grace_tasks.pop(seat, None)
        if task is not None:
            task.cancel()

    async def _grace(self, table: Table, seat: int) -> None:
        await asyncio.sleep(self.settings.grace)
        table.grace_tasks.pop(seat, None)
        if seat not in table.connected_seats():
            await self.leave(table, seat, "grace")
