"""Accounts' skeletons taken after case folding (issue 38, fault 1).

Until now ``accounts.skeleton`` was ICU's skeleton taken before case folding,
so a capital "I" became an "l": "KIMMY155" could be registered beside
"Kimmy155", and signing in as "KIMMY155" failed. The skeleton is now taken on
the case-folded name (``core/text.py skeleton``); this recomputes it for every
account, so that sign-in (which looks a name up by its skeleton) finds them.

Two accounts registered under names that now share a skeleton (the fault
itself let them in) both stay: the older one takes the new skeleton, the newer
one keeps its old one (or the old one with ``#id`` when even that is taken), and
signs in by its exact name (``runtime/accounts.py sign_in``).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from liars_dice.server.core.text import skeleton

    conn = op.get_bind()
    accounts = sa.table("accounts", sa.column("id", sa.BigInteger), sa.column("name", sa.String),
                        sa.column("skeleton", sa.String))
    rows = conn.execute(sa.select(accounts.c.id, accounts.c.name, accounts.c.skeleton).order_by(accounts.c.id)).all()
    new: dict[int, str] = {}
    taken: set[str] = set()
    for row in rows:
        sk = skeleton(row.name)[:128]
        if sk in taken:
            sk = row.skeleton if row.skeleton not in taken else f"{row.skeleton[:100]}#{row.id}"
        taken.add(sk)
        new[row.id] = sk
    # two passes, so that the unique index never sees one name's new skeleton
    # beside another's old one
    for aid in new:
        conn.execute(accounts.update().where(accounts.c.id == aid).values(skeleton=f"#{aid}"))
    for aid, sk in new.items():
        conn.execute(accounts.update().where(accounts.c.id == aid).values(skeleton=sk))


def downgrade() -> None:
    pass  # the old skeletons are not kept; the new ones refuse more look-alikes, never fewer
