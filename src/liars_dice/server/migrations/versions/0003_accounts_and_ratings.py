"""Accounts, sessions, ratings (issue 18): optional accounts beside today's guests.

* ``accounts``: a registered name, its confusable ``skeleton`` (unique: no two
  accounts, and no guest, may take names that look alike), the Argon2id
  ``password_hash`` and the hashed one-time ``recovery_hash``. Deleting an
  account clears both hashes and sets ``deleted_at``/``deleted_number``
  ("deleted player N" in past games).
* ``account_sessions``: a signed-in session, stored as the SHA-256 of its
  token only, with its expiry and revocation.
* ``seats.account_id``: the account a seat was taken under (NULL for a guest).
* ``tables.rated``: whether a table's games count for the ratings.
* ``ratings``: the current openskill rating of an account in a rule set.
* ``rating_history``: one row per rated game and account, in order, from which
  ``liars-dice ratings rebuild`` and the profile's plot read.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_BigId = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", _BigId, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("skeleton", sa.String(128), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("recovery_hash", sa.String(255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("password_changed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deleted_number", sa.Integer, nullable=True, unique=True),
    )
    op.create_table(
        "account_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", _BigId, sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    # Plain ALTER TABLE ADD COLUMN, not a batch: on SQLite a batch with a
    # server default rebuilds the table (copy, DROP, rename), and the DROP of
    # ``tables`` fails on a database holding games (events and seats refer to
    # it, and the engine turns foreign keys on). Both dialects add these
    # columns in place.
    op.add_column("seats", sa.Column("account_id", _BigId, nullable=True))
    op.create_index("ix_seats_account_id", "seats", ["account_id"])
    op.add_column("tables", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "ratings",
        sa.Column("account_id", _BigId, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("rule_set", sa.String(80), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", _BigId, primary_key=True, autoincrement=True),
        sa.Column("account_id", _BigId, sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("rule_set", sa.String(80), nullable=False),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), nullable=False, index=True),
        sa.Column("game_no", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("account_id", "table_id", "game_no", name="uq_rating_history_game"),
    )


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_table("ratings")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rated")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_account_id")
        batch.drop_column("account_id")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
