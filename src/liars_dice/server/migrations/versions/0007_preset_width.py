"""Tables: ``preset`` as wide as a rule set's name (issue 36, fault 4).

A table from a rules file is listed under ``"custom: "`` and the file's own
name (up to ``text_chars``, 40 characters), 48 characters in all, in a
32-character column: PostgreSQL refused the row (a database failure, 503, and
``/healthz`` red for 10 s), where SQLite, which does not enforce a length,
made the table. The column is now :data:`~liars_dice.server.core.config.RULE_SET_COLUMN`
(80) characters, as ``ratings.rule_set`` holds the same name; the settings
keep ``text_chars`` within it (``core/config.py _MOST``). SQLite keeps any
length, so only PostgreSQL's column changes.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("tables", "preset", type_=sa.String(80), existing_type=sa.String(32), existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("tables", "preset", type_=sa.String(32), existing_type=sa.String(80),
                        existing_nullable=False, postgresql_using="left(preset, 32)")
