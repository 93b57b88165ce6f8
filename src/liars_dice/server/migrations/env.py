"""Alembic environment: run with the connection handed over by
:func:`liars_dice.server.runtime.db.migrate` (no alembic.ini, no logging set-up)."""

from __future__ import annotations

from alembic import context

from liars_dice.server.runtime.db import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only through migrate()
    raise RuntimeError("Run migrations through liars_dice.server.runtime.db.migrate().")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
