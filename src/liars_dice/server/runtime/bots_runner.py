"""Bots in seats: which bot plays for a person, and running a bot's decision
off the event loop (a strong bot may think for a while)."""

from __future__ import annotations

import asyncio
import logging
import random
from concurrent.futures import ThreadPoolExecutor

from ...bots import REGISTRY, Bot, Decision, make_bot
from ...bots.names import DEFAULT_BOT
from ...engine import SeatView

log = logging.getLogger(__name__)

#: Preferred bots to play for a timed-out or departed person, strongest first.
PREFERRED = ("strong", "probabilistic", "random")

#: Threads that run the bots' decisions: a pool of their own, so that slow
#: database reads (the store's pool) never stop the bots' moves (issue 16
#: fault 10: with asyncio's shared default pool, 12 slow reads cut the bot
#: moves of the whole server from 52.7/s to 0.5/s).
BOT_THREADS = 4
_pool = ThreadPoolExecutor(BOT_THREADS, thread_name_prefix="liars-dice-bot")


def bot_kinds() -> list[str]:
    """Every registered bot kind (``random``, ``probabilistic``...), read at call
    time (bots merged later appear); the players' names of bots are
    :func:`liars_dice.bots.names.bot_names`."""
    return sorted(REGISTRY)


#: The bot the pages offer first: the terminal's default (``liars-dice play --bots``), issue 17 fault 1.
def default_bot() -> str:
    """The bots' default (:data:`liars_dice.bots.names.DEFAULT_BOT`, the terminal's
    too) if registered, else the strongest registered of :data:`PREFERRED`."""
    return DEFAULT_BOT if DEFAULT_BOT in REGISTRY else stand_in_name(None)


def stand_in_name(configured: str | None) -> str:
    """The bot that plays a move when the turn timer runs out, or takes over a
    seat: ``configured`` if registered, else the strongest of :data:`PREFERRED`."""
    if configured and configured in REGISTRY:
        return configured
    for name in PREFERRED:
        if name in REGISTRY:
            return name
    return bot_kinds()[0]


def new_bot(name: str) -> Bot:
    """:func:`liars_dice.bots.make_bot`, unseeded (online play)."""
    return make_bot(name)


async def decide(bot: Bot, view: SeatView, where: str = "") -> Decision:
    """``bot.decide(view)`` on a thread of the bots' own pool
    (:data:`BOT_THREADS`). A bot that raises is replaced, for this move, by a
    uniform choice among the legal actions."""
    try:
        return await asyncio.get_running_loop().run_in_executor(_pool, bot.decide, view)
    except Exception:  # noqa: BLE001 - a broken bot must not stall the table
        log.exception("bot %s failed %s", getattr(bot, "name", bot), where)
        return Decision(random.choice(view.legal_actions()))
