"""``liars-dice serve``: tables, lobby, real-time play over websockets, persistence.

Layer: server, above arena; imports engine, records, bots. The protocol is
``docs/server-protocol.md``. Needs the ``server`` extra (FastAPI, uvicorn,
SQLAlchemy, alembic, psycopg).

``Settings`` and ``create_app`` are imported on first use (PEP 562), so that a
part of the server that needs neither (a bot process, which imports only
:mod:`.runtime.bots_runner`) does not load FastAPI and SQLAlchemy: 63 against
about 21 MiB at the start of each bot process (benchmarks/bot_process_memory.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core.config import Settings
    from .edge.app import create_app

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "Settings":
        from .core.config import Settings

        return Settings
    if name == "create_app":
        from .edge.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
