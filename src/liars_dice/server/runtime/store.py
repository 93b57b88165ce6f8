"""Writing and reading the database without blocking the event loop.

Writes go through one writer thread that commits whatever is queued in one
transaction (group commit): at hundreds of moves per second, one commit serves
many tables. :meth:`Store.write` returns once the write is committed, so the
server stores a move before anyone learns of it, and a killed server loses no
move it has announced.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, TypeVar

T = TypeVar("T")

#: Threads that run the store's reads (:meth:`Store.read`): their own pool, so
#: slow reads never hold up the bots' decisions or anything else on asyncio's
#: default pool (issue 16 fault 10), and at most this many database
#: connections read at once (PostgreSQL's pool holds 10).
READ_THREADS = 6

from sqlalchemy import Connection, Engine, func, insert, select, update
from sqlalchemy.exc import DataError

from ..core.accounts import accounts_in, deleted_name, rename_players
from ..core.errors import ServerUnavailable, StoreRefused
from . import metrics
from .db import accounts_t, events_t, seats_t, tables_t

log = logging.getLogger(__name__)


class StoreFailed(ServerUnavailable):
    """A write to the store of record failed, or its commit is uncertain (the
    database was unreachable, crashed, or the disk was full), or a read failed:
    nothing was applied in memory, and the room re-reads its events from the
    store before its next change. A client gets it as ``server/unavailable``
    (one sentence, 503); a timer's command that meets it is fired again later
    (:class:`~liars_dice.server.runtime.timers.Scheduler`)."""


@dataclass(frozen=True, slots=True)
class Op:
    """One write: ``kind`` is ``table`` (insert a table row), ``event``,
    ``seat`` (insert rows), ``update`` (change a table row), ``fence``
    (check this worker's lease: the op's :attr:`check`) or ``rate``
    (rate a finished game, :func:`.ratings_store.apply_outcome`)."""

    kind: str
    row: dict[str, Any]
    table_id: str = ""
    #: for a ``fence`` op: the check run in the write's transaction before any
    #: row, ``check(conn, row)``, raising to roll it back (the lease's, given by
    #: :meth:`.ownership.Leases.fence_op`: the store imports no owner of tables)
    check: Callable[[Connection, dict[str, Any]], None] | None = None


#: Seconds between SQLite WAL checkpoints.
CHECKPOINT_SECONDS = 2.0


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Store:
    """The database behind the tables, with one writer thread.

    :param engine: a migrated SQLAlchemy engine.
    :param wal_bytes: SQLite only: a WAL file larger than this (bytes) is
        checkpointed with ``TRUNCATE`` at the next check.
    :param wal_truncate_seconds: SQLite only: the longest time between two
        ``TRUNCATE`` checkpoints (the others are ``PASSIVE``).
    """

    def __init__(self, engine: Engine, *, wal_bytes: int = 16 * 1024 * 1024, wal_truncate_seconds: float = 60.0) -> None:
        self.engine = engine
        self.wal_bytes = wal_bytes
        self.wal_truncate_seconds = wal_truncate_seconds
        self.truncations = 0  #: TRUNCATE checkpoints run (for tests)
        self._q: queue.SimpleQueue[tuple[Sequence[Op], asyncio.Future[None], asyncio.AbstractEventLoop] | None] = (
            queue.SimpleQueue()
        )
        self._readers = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="liars-dice-db-read")
        self._thread = threading.Thread(target=self._run, name="liars-dice-db-writer", daemon=True)
        self._thread.start()
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        if engine.dialect.name == "sqlite":
            self._checkpointer = threading.Thread(target=self._checkpoints, name="liars-dice-db-checkpoint", daemon=True)
            self._checkpointer.start()

    def wal_size(self) -> int:
        """SQLite only: the size of the WAL file in bytes (0 if there is none)."""
        db = self.engine.url.database
        if not db or db == ":memory:":
            return 0
        try:
            return os.path.getsize(db + "-wal")
        except OSError:
            return 0

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """SQLite only: one WAL checkpoint (``PASSIVE`` or ``TRUNCATE``)."""
        with self.engine.connect() as conn:
            conn.exec_driver_sql(f"PRAGMA wal_checkpoint({'TRUNCATE' if mode == 'TRUNCATE' else 'PASSIVE'})")
        if mode == "TRUNCATE":
            self.truncations += 1

    def _checkpoints(self) -> None:
        """SQLite only: move the WAL into the database every few seconds, off
        the commit path. ``PASSIVE`` checkpoints never wait for, nor block, the
        writer, but under steady load they never reset the WAL, which then
        grows without end (issue 7: 316 MB beside a 13.7 MB database). So when
        the WAL passes :attr:`wal_bytes`, or :attr:`wal_truncate_seconds` have
        passed, the checkpoint is ``TRUNCATE``: it waits for the writer's
        current commit, copies the WAL back and truncates it to zero bytes."""
        last_truncate = time.monotonic()
        while not self._stop.wait(CHECKPOINT_SECONDS):
            try:
                due = time.monotonic() - last_truncate >= self.wal_truncate_seconds
                if due or self.wal_size() > self.wal_bytes:
                    self.checkpoint("TRUNCATE")
                    last_truncate = time.monotonic()
                else:
                    self.checkpoint("PASSIVE")
            except Exception:  # noqa: BLE001 - retried next time
                pass

    # -- reading -------------------------------------------------------------

    async def read(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` (a blocking read: one of the methods below)
        on the store's own reader threads (:data:`READ_THREADS`), never on
        asyncio's default pool.

        :raises StoreRefused: the database refused a value of the read (:func:`_refused`).
        :raises Exception: whatever else ``fn`` raises."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._readers, lambda: fn(*args, **kwargs))
        except DataError as e:  # a value the database cannot compare (PostgreSQL: a NUL in a text)
            raise _refused(e) from None
        except Exception:
            metrics.DATABASE_ERRORS.inc()
            raise

    # -- writing -------------------------------------------------------------

    async def write(self, ops: Sequence[Op]) -> None:
        """Run ``ops`` in one transaction (possibly shared with other writes) and
        return once it is committed.

        :raises Exception: whatever the database raised for these ops.
        """
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._q.put((ops, fut, loop))
        await fut

    def close(self) -> None:
        """Stop the writer thread after the queued writes."""
        self._stop.set()
        self._q.put(None)
        self._thread.join(timeout=10)
        self._readers.shutdown(wait=False, cancel_futures=True)
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=10)

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < 500:
                try:
                    nxt = self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                batch.append(nxt)
            try:
                began = time.perf_counter()
                with self.engine.begin() as conn:
                    _execute(conn, [op for ops, _, _ in batch for op in ops])
                metrics.COMMIT_SECONDS.observe(time.perf_counter() - began)
                results: list[BaseException | None] = [None] * len(batch)
            except Exception:
                # One bad write must not sink the others: retry one by one.
                results = []
                for ops, _, _ in batch:
                    try:
                        with self.engine.begin() as conn:
                            _execute(conn, ops)
                        results.append(None)
                    except DataError as e:  # this write's own values, not the database (refused, rolled back)
                        results.append(_refused(e))
                    except Exception as e:  # noqa: BLE001 - handed to the waiting coroutine
                        metrics.DATABASE_ERRORS.inc()
                        results.append(e)
            for (_, fut, loop), err in zip(batch, results):
                try:
                    loop.call_soon_threadsafe(_settle, fut, err)
                except RuntimeError:  # its event loop is closed: nobody waits for it
                    pass
            if stop:
                return

    # -- ops -------------------------------------------------------------------

    @staticmethod
    def op_event(table_id: str, seq: int, kind: str, payload: dict[str, Any]) -> Op:
        return Op("event", {"table_id": table_id, "seq": seq, "kind": kind, "payload": payload, "created_at": utcnow()})

    @staticmethod
    def op_rate(game: Any) -> Op:
        """Rate ``game`` (a :class:`~liars_dice.server.core.ratings.Outcome`) in the write's transaction."""
        return Op("rate", {"game": game, "at": utcnow()}, game.table_id)

    @staticmethod
    def op_insert_table(row: dict[str, Any]) -> Op:
        return Op("table", row)

    @staticmethod
    def op_update_table(table_id: str, **values: Any) -> Op:
        return Op("update", values, table_id)

    @staticmethod
    def op_seat(table_id: str, seat: int, name: str, token_hash: str, account_id: int | None = None) -> Op:
        return Op("seat", {"table_id": table_id, "seat": seat, "name": name, "token_hash": token_hash,
                           "created_at": utcnow(), "account_id": account_id})

    # -- reading (call from a worker thread) -----------------------------------

    def unfinished_table_ids(self) -> list[str]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(tables_t.c.id).where(tables_t.c.status.in_(("open", "playing"))))
            return [r[0] for r in rows]

    def table_id_for_code(self, code: str) -> str | None:
        with self.engine.connect() as conn:
            return conn.execute(select(tables_t.c.id).where(tables_t.c.code == code)).scalar_one_or_none()

    def creator_of(self, table_id: str) -> str | None:
        """The address that created a live table (``tables.creator``; ``None``
        once it has finished or closed, or for a table made before migration 0005)."""
        with self.engine.connect() as conn:
            return conn.execute(select(tables_t.c.creator).where(tables_t.c.id == table_id)).scalar_one_or_none()

    def last_seq(self, table_id: str) -> int:
        """The number of the table's last stored event (0: none), from the
        ``(table_id, seq)`` index alone."""
        with self.engine.connect() as conn:
            return int(conn.execute(
                select(func.coalesce(func.max(events_t.c.seq), 0)).where(events_t.c.table_id == table_id)
            ).scalar_one())

    def last_seqs(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The number of each table's last stored event, in one query over the
        ``(table_id, seq)`` index (a table with none is left out): a worker's
        replicas checked against the store of record at each heartbeat
        (:meth:`.cluster.Cluster.resync`)."""
        if not table_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(events_t.c.table_id, func.max(events_t.c.seq))
                .where(events_t.c.table_id.in_(list(table_ids))).group_by(events_t.c.table_id)
            )
            return {str(t): int(n) for t, n in rows}

    def events(self, table_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        """The table's events in order, ``(seq, kind, payload)``, with the names
        of deleted accounts as every view shows them ("deleted player N":
        :func:`~..core.accounts.rename_players`; the stored rows keep theirs)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(events_t.c.seq, events_t.c.kind, events_t.c.payload)
                .where(events_t.c.table_id == table_id)
                .order_by(events_t.c.seq)
            )
            out = [(r[0], r[1], r[2]) for r in rows]
            ids = accounts_in(out)
            if not ids:
                return out
            deleted = {
                r[0]: deleted_name(r[1]) for r in conn.execute(
                    select(accounts_t.c.id, accounts_t.c.deleted_number)
                    .where(accounts_t.c.id.in_(sorted(ids)), accounts_t.c.deleted_at.is_not(None)))
            }
            return rename_players(out, deleted)

    def created_of(self, codes: Sequence[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """The tables of join codes ``codes``: ``{code: (table id, the created
        event's payload)}`` (one query; a code with no table is left out)."""
        if not codes:
            return {}
        q = (select(tables_t.c.code, tables_t.c.id, events_t.c.payload)
             .join(events_t, events_t.c.table_id == tables_t.c.id)
             .where(tables_t.c.code.in_(list(codes)), events_t.c.seq == 1))
        with self.engine.connect() as conn:
            return {r[0]: (r[1], r[2]) for r in conn.execute(q)}

    def games_of(self, *, name: str | None = None, token_hashes: Sequence[str] = ()) -> list[dict[str, Any]]:
        """Tables where a seat was taken by ``name`` (public, finished; one entry
        per table) or by one of ``token_hashes`` (any status; one entry per seat
        taken, with the ``token_hash`` that took it, for the caller to judge
        and drop), newest first. ``winner_stand_in: true`` marks a game won by
        a bot playing in a person's seat under their name; ``not_in_last_game: true``
        a seat whose name did not play the table's last game (the caller keeps the
        earlier games it played, :meth:`~.queries.Queries` ``_each_game``)."""
        q = select(
            tables_t.c.code, tables_t.c.status, tables_t.c.private, tables_t.c.preset, tables_t.c.players,
            tables_t.c.winner, tables_t.c.finished_at, tables_t.c.created_at, seats_t.c.seat, seats_t.c.name,
            seats_t.c.token_hash, events_t.c.payload.label("finished"),
        ).join(seats_t, seats_t.c.table_id == tables_t.c.id).outerjoin(
            # the ``finished`` event says whether the winner was a stand-in bot (issue 17, fault 2)
            events_t, (events_t.c.table_id == tables_t.c.id) & (events_t.c.kind == "finished"))
        if name is not None:
            # "playing" too: a table playing again holds finished games (the caller keeps those)
            q = q.where(seats_t.c.name == name, tables_t.c.status.in_(("finished", "playing")), tables_t.c.private.is_(False))
        else:
            q = q.where(seats_t.c.token_hash.in_(list(token_hashes)))
        q = q.order_by(tables_t.c.created_at.desc()).limit(500)
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        with self.engine.connect() as conn:
            for r in conn.execute(q):
                players = r.players
                # not a player of the table's last game: left the seat before it started, or
                # (a table that played again) left an earlier game, whose stand-in bot kept
                # the seat under a bot's name; the caller keeps the earlier games it played
                elsewhere = players is not None and not (r.seat < len(players) and players[r.seat] == r.name)
                if players is None and name is not None:
                    continue
                if name is not None:
                    if r.code in seen:
                        continue
                    seen.add(r.code)
                entry = {
                    "code": r.code, "status": r.status, "rules": r.preset, "players": players or [],
                    "winner": r.winner, "seat": r.seat, "name": r.name,
                    **({"winner_stand_in": True} if isinstance(r.finished, dict) and r.finished.get("stand_in") else {}),
                    "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                    "created_at": r.created_at.isoformat() if r.created_at else None,
                    **({"not_in_last_game": True} if elsewhere else {}),
                }
                if name is None:
                    entry["token_hash"] = r.token_hash
                out.append(entry)
        return out


    def games_played(self, codes: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Per table code, its games in order ("Play again", issue 17), read from
        the ``started``, ``new_game`` and ``finished`` events: ``[{"game", "players",
        "winner", "finished_at"}]`` (``winner`` and ``finished_at`` ``None`` while it is on),
        with ``"winner_stand_in": bool`` once it is over (a bot standing in for the person won)."""
        if not codes:
            return {}
        q = (
            select(tables_t.c.code, events_t.c.kind, events_t.c.payload, events_t.c.created_at)
            .join(events_t, events_t.c.table_id == tables_t.c.id)
            .where(tables_t.c.code.in_(list(codes)), events_t.c.kind.in_(("started", "new_game", "finished")))
            .order_by(tables_t.c.code, events_t.c.seq)
        )
        out: dict[str, list[dict[str, Any]]] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(q):
                games = out.setdefault(r.code, [])
                if r.kind == "finished":
                    if games:
                        games[-1]["winner"] = r.payload.get("winner")
                        # a stand-in bot's win is not the person's (issue 17, fault 2), game by game
                        games[-1]["winner_stand_in"] = bool(r.payload.get("stand_in"))
                        games[-1]["finished_at"] = r.created_at.isoformat() if r.created_at else None
                else:
                    games.append({"game": len(games) + 1, "players": r.payload["players"], "winner": None, "finished_at": None})
        return out


def _execute(conn: Connection, ops: Sequence[Op]) -> None:
    """Run ``ops`` on ``conn``: the lease checks first (a ``fence`` op, see
    :mod:`.ownership`: a worker that lost the table stores nothing), new table
    rows (events refer to them), then every event and seat row, each kind in
    one executemany, then the updates."""
    fences = [op for op in ops if op.kind == "fence"]
    # in table id order, as the heartbeat renews them (no lock cycle between the two)
    for op in sorted(fences, key=lambda o: str(o.row["table_id"])):
        assert op.check is not None, "a fence op carries its check"
        op.check(conn, op.row)
    tables = [op.row for op in ops if op.kind == "table"]
    events = [op.row for op in ops if op.kind == "event"]
    seats = [op.row for op in ops if op.kind == "seat"]
    rates = [op.row for op in ops if op.kind == "rate"]
    if rates:
        from .ratings_store import lock  # ratings build on this module's Op

        lock(conn)  # before the events: their ids follow the order of the ratings
    if tables:
        conn.execute(insert(tables_t), tables)
    if events:
        conn.execute(insert(events_t), events)
    if seats:
        conn.execute(insert(seats_t), seats)
    for op in ops:
        if op.kind == "update":
            conn.execute(update(tables_t).where(tables_t.c.id == op.table_id).values(**op.row))
    for row in rates:
        _rate(conn, row)


def _rate(conn: Connection, row: dict[str, Any]) -> None:
    """One game's rating, in a savepoint: a rating that fails is logged and
    left to ``liars-dice ratings rebuild``; the game's events are stored anyway."""
    from .ratings_store import apply_outcome

    try:
        with conn.begin_nested():
            apply_outcome(conn, row["game"], row["at"])
    except Exception:  # noqa: BLE001 - the finish must not fail for its rating
        log.exception("the rating of table %s game %s failed", row["game"].table_id, row["game"].game_no)


def _refused(e: DataError) -> StoreRefused:
    """A write the database refused for its own values (a text longer than its
    column, a number out of range: ``DataError``, SQLSTATE class 22) as one
    request's refusal: rolled back, nothing stored, and the database is well,
    so it is no failure of the store (``/healthz`` stays green: issue 36,
    fault 4, one anonymous request every 10 s kept every worker out of a load
    balancer). The gate's bounds keep every text within its column
    (``core/config.py _MOST``); this is the net under them."""
    first = str(e.orig if e.orig is not None else e).splitlines()
    log.warning("a write refused for its values: %s", first[0][:300] if first else type(e).__name__)
    return StoreRefused("A value of this request does not fit the server's database: nothing changed.")


def _settle(fut: asyncio.Future[None], err: BaseException | None) -> None:
    if fut.done():
        return
    if err is None:
        fut.set_result(None)
    else:
        fut.set_exception(err)
