"""Events: one index on ``table_id`` (issue 16, "cheaper moves").

The unique constraint on ``(table_id, seq)`` is an index whose first column
is ``table_id``, so every look-up by table uses it; the separate index on
``table_id`` cost one more B-tree insert per stored event and nothing else
(single-row commits on SQLite in WAL: 62 against 84 us of CPU an event,
medians of three rounds, ``benchmarks/event_index.py``).

Revision ID: 0004
Revises: 0003
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_events_table_id", table_name="events")


def downgrade() -> None:
    op.create_index("ix_events_table_id", "events", ["table_id"])
