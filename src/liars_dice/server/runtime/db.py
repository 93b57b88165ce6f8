"""The database: SQLAlchemy 2 tables, the engine factory, and migrations at start-up.

The tables:

* ``tables``: one row per game table, an index for the lobby and player
  listings (status, players, winner). Derived from the events.
* ``events``: every table event, append-only, numbered per table (``seq``).
  The events are the truth: a table's state is rebuilt by replaying them
  through the engine (see :mod:`liars_dice.server.core.tables`).
* ``seats``: one row per seat taken by a person (name, token hash), append-only,
  for "my games" listings.
* ``table_leases``: which worker owns a table (``owner``, ``fence``,
  ``expires_at``), when several workers share the database (see
  :mod:`liars_dice.server.runtime.ownership`).
* ``accounts``, ``account_sessions``, ``ratings``, ``rating_history``, with
  ``seats.account_id`` and ``tables.rated``: optional accounts and their
  ratings per rule set (issue 18; migration 0003 says what each holds).
* ``tables.creator``: the address that created a table, kept while it is
  open or in play and cleared when it ends (migration 0005).
* Every column that holds a client's text is as wide as the longest text the
  protocol accepts for it (:data:`~..core.config.NAME_COLUMN`,
  :data:`~..core.config.RULE_SET_COLUMN`; migration 0007), so both stores take
  the same requests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    create_engine,
    event,
    false,
    text,
)
from sqlalchemy.engine import make_url

from ..core.config import NAME_COLUMN, RULE_SET_COLUMN, normalize_db_url

metadata = MetaData()

_BigId = BigInteger().with_variant(Integer, "sqlite")

tables_t = Table(
    "tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("code", String(8), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("private", Boolean, nullable=False),
    Column("preset", String(RULE_SET_COLUMN), nullable=False),  # 32 before migration 0007
    Column("n_seats", Integer, nullable=False),
    Column("turn_timer", Integer, nullable=True),
    Column("players", JSON, nullable=True),
    Column("winner", String(NAME_COLUMN), nullable=True),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("rated", Boolean, nullable=False, server_default=false()),
    # the creating client's address while the table is live (migration 0005)
    Column("creator", String(64), nullable=True),
)

events_t = Table(
    "events",
    metadata,
    Column("id", _BigId, primary_key=True, autoincrement=True),
    # no index of its own: uq_events_table_seq leads with it (migration 0004)
    Column("table_id", String(32), ForeignKey("tables.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(24), nullable=False),
    Column("payload", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
)

seats_t = Table(
    "seats",
    metadata,
    Column("id", _BigId, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("tables.id"), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("name", String(NAME_COLUMN), nullable=False, index=True),
    Column("token_hash", String(64), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("account_id", _BigId, nullable=True, index=True),
)

leases_t = Table(
    "table_leases",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("owner", String(64), nullable=False),
    Column("fence", BigInteger, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False, index=True),
)

accounts_t = Table(
    "accounts",
    metadata,
    Column("id", _BigId, primary_key=True, autoincrement=True),
    Column("name", String(NAME_COLUMN), nullable=False, unique=True),
    Column("skeleton", String(128), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=True),
    Column("recovery_hash", String(255), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("password_changed_at", DateTime(timezone=True), nullable=True),
    Column("deleted_at", DateTime(timezone=True), nullable=True),
    Column("deleted_number", Integer, nullable=True, unique=True),
)

account_sessions_t = Table(
    "account_sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", _BigId, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False, index=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)

ratings_t = Table(
    "ratings",
    metadata,
    Column("account_id", _BigId, ForeignKey("accounts.id"), primary_key=True),
    Column("rule_set", String(RULE_SET_COLUMN), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

rating_history_t = Table(
    "rating_history",
    metadata,
    Column("id", _BigId, primary_key=True, autoincrement=True),
    Column("account_id", _BigId, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("rule_set", String(RULE_SET_COLUMN), nullable=False),
    Column("table_id", String(32), ForeignKey("tables.id"), nullable=False, index=True),
    Column("game_no", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("account_id", "table_id", "game_no", name="uq_rating_history_game"),
)

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def make_engine(url: str, durable: bool = False) -> Engine:
    """An engine for ``url`` (``postgresql://`` mapped to psycopg 3).

    A commit returns once the database holds the write, durably enough that
    neither a killed server process nor a crashed database loses a committed
    event (store before announce, issue 16 fault 8): PostgreSQL keeps its
    default ``synchronous_commit=on`` (the WAL is flushed before the commit
    returns; with ``off``, a database crash lost moves already shown to the
    players), and SQLite runs WAL with ``synchronous=NORMAL``, which loses
    nothing when a process dies (the WAL is in the OS's page cache). Only a
    power cut or an OS crash may then lose SQLite's last fraction of a second
    of moves (never corrupt anything); ``durable=True`` waits for the disk at
    every SQLite commit too (``synchronous=FULL``). SQLite's automatic
    checkpoints are off; the :class:`~liars_dice.server.runtime.store.Store`
    checkpoints on a thread of its own."""
    url = normalize_db_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL" if durable else "PRAGMA synchronous=NORMAL")
            # Checkpoints run on their own thread (Store), never inside a move's commit.
            cur.execute("PRAGMA wal_autocheckpoint=0")
            # When a checkpoint resets the WAL, cut the file back to 4 MiB.
            cur.execute("PRAGMA journal_size_limit=4194304")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    # synchronous_commit stays on (whatever the server's default says): an
    # event is announced once committed, so its commit must survive a crash.
    # The URL's own libpq options (``?options=-csearch_path%3Dgames``) are
    # kept, before it (a connect_args "options" would replace them).
    u = make_url(url)
    given = u.query.get("options")
    options = " ".join([*([given] if isinstance(given, str) else list(given or ())), "-c synchronous_commit=on"])
    args = {"options": options}
    return create_engine(u.difference_update_query(["options"]), pool_pre_ping=True, pool_size=5, max_overflow=5, connect_args=args)


#: The PostgreSQL advisory lock key that serialises :func:`migrate` across workers.
MIGRATION_LOCK = 0x11A25D1CE


def migrate(engine: Engine) -> None:
    """Bring the schema to the latest alembic revision (idempotent).

    On PostgreSQL the migration runs under a transaction-level advisory lock
    (:data:`MIGRATION_LOCK`), so that workers starting together on a fresh
    database migrate one after the other: without it, two workers both created
    ``alembic_version`` and the second failed its start (``UniqueViolation``).
    """
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
