"""Optional JSON logs (``liars-dice serve --log-json``; issue 36, "What
operators expect": "Optional JSON logs, one line per event, with the table
and the worker").

One JSON object a line on standard error, from the standard library's
``logging`` (no other library): ``{"time", "level", "logger", "message",
"worker", "table"?, "error"?}``. ``worker`` is the worker's route
(``--route``) or its process id; ``table`` the join code of the table whose
websocket the event happened in (:data:`TABLE`, set by ``edge/session.py``),
when known; ``error`` a traceback's text. Every handler of the root logger and
of uvicorn's loggers is replaced, so uvicorn's own lines are JSON too.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from contextvars import ContextVar
from datetime import datetime, timezone

#: The table (join code) of the websocket being served, for the log lines said meanwhile.
TABLE: ContextVar[str | None] = ContextVar("liars_dice_log_table", default=None)

#: uvicorn's loggers, whose handlers its own logging config set.
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON (see the module docstring).

    :param worker: what names this worker in every line (its route, or its process id).
    """

    def __init__(self, worker: str) -> None:
        super().__init__()
        self.worker = worker

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "worker": self.worker,
        }
        table = getattr(record, "table", None) or TABLE.get()
        if table:
            line["table"] = table
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def install(worker: str | None = None, level: int = logging.WARNING) -> logging.Handler:
    """Log JSON lines to standard error from now on (at ``level`` and above
    for the root logger); returns the handler."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(worker or str(os.getpid())))
    root = logging.root  # configured here, not logged to (each module logs to getLogger(__name__))
    root.handlers = [handler]
    root.setLevel(level)
    for name in UVICORN_LOGGERS:  # those uvicorn's logging config made: to the root's handler
        logger = logging.root.manager.loggerDict.get(name)
        if isinstance(logger, logging.Logger):
            logger.handlers = []
            logger.propagate = True
    return handler


__all__ = ["JsonFormatter", "TABLE", "install"]
