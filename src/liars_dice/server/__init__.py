"""``liars-dice serve``: tables, lobby, real-time play over websockets, persistence.

Layer: server, above arena; imports engine, records, bots. The protocol is
``docs/server-protocol.md``. Needs the ``server`` extra (FastAPI, uvicorn,
SQLAlchemy, alembic, psycopg).
"""

from .app import create_app
from .config import Settings

__all__ = ["Settings", "create_app"]
