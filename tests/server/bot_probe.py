"""A bot for tests/server/test_bot_processes.py that notes what the process it
thinks in holds. It lives apart from the test module, whose own imports (the
server's core, the store's helpers) would otherwise follow it into the bot
process when it is unpickled there; this module imports only the bots and the
engine."""

from __future__ import annotations

import os
import sys
import threading

from liars_dice.bots import Decision
from liars_dice.engine import SeatView

#: the server's web and database libraries, which a bot process has no use for
HEAVY = ("fastapi", "sqlalchemy", "starlette", "uvicorn", "alembic")


class LookingBot:
    """The first legal action, noting the process's id, which of :data:`HEAVY`
    it has imported, and its threads' names."""

    name = "looking"

    def __init__(self) -> None:
        self.pid = 0
        self.heavy: list[str] = []
        self.threads: list[str] = []

    def decide(self, view: SeatView) -> Decision:
        self.pid = os.getpid()
        self.heavy = sorted(m for m in HEAVY if m in sys.modules)
        self.threads = sorted(t.name for t in threading.enumerate())
        return Decision(view.legal_actions()[0])
