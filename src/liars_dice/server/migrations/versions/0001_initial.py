"""Initial schema: tables, events (append-only), seats.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_BigId = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(8), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("n_seats", sa.Integer, nullable=False),
        sa.Column("turn_timer", sa.Integer, nullable=True),
        sa.Column("players", sa.JSON, nullable=True),
        sa.Column("winner", sa.String(64), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "events",
        sa.Column("id", _BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), nullable=False, index=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
    )
    op.create_table(
        "seats",
        sa.Column("id", _BigId, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), nullable=False, index=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False, index=True),
        sa.Column("token_hash", sa.String(64), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("seats")
    op.drop_table("events")
    op.drop_table("tables")
