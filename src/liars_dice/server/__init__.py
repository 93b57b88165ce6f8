"""``liars-dice serve``: tables, lobby, real-time play over websockets, persistence.

Layer: server, above arena; imports engine, records, bots. The protocol is
``docs/server-protocol.md``. Needs the ``server`` extra (FastAPI, uvicorn,
SQLAlchemy, alembic, psycopg).
"""

from .core.config import Settings
from .edge.app import create_app

__all__ = ["Settings", "create_app"]
