"""Tables: the address that created each, while it is live (issue 16, stop 33).

The open-table cap per address (``open_tables_per_address``) and the bots'
fair queue (``runtime/bot_queue.py``) key on the address that created a
table. It lived in the worker's memory only, so after a restart or a
takeover by another worker every live table counted under no address: one
address could hold its cap of tables, have them taken over, and make as many
again. ``creator`` keeps it with the table (an IP address, or an IPv6 /64
network, as ``edge/proxies.py address_key`` gives it) while the table is open
or in play; it is set to NULL when the table finishes or closes, so the store
keeps no address past the game.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("creator", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("creator")
