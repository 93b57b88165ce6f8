"""Accounts in the store of record (issue 18): sign-up, sign-in, sessions,
passwords, recovery codes and deletion, and the names of deleted players.

Every database call runs on the store's reader threads through
:meth:`~.store.Store.read`, wrapped by the service's
:meth:`~.service.TableService.stored`: a database outage is the clear
``server/unavailable`` refusal (:class:`~.store.StoreFailed`), never a 500.
Argon2id hashing runs on a pool of its own (:data:`HASH_THREADS` threads,
each hash takes 64 MiB), never on the event loop.

Sessions: a session token is 32 random bytes (:func:`~..core.security.new_token`);
only its SHA-256 is stored (``account_sessions.token_hash``). A session lives
:data:`~..core.accounts.SESSION_SECONDS`; signing out revokes it, a password
change revokes every other session of the account, a reset or a deletion
revokes them all. Each revocation is told to the :class:`Revocations`, which
closes the websockets opened under those sessions, on every worker (through
Redis when several workers share the database).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import Connection, func, insert, or_, select, update, delete
from sqlalchemy.exc import IntegrityError

from ..core.accounts import (
    SESSION_SECONDS,
    AccountBusy,
    HashingBusy,
    NameRegistered,
    RecoveryFailed,
    SignedOut,
    SignInFailed,
    check_password,
    deleted_name,
    name_skeleton,
    new_recovery_code,
    normal_password,
    normal_recovery_code,
)
from ..core.security import hash_token, new_token
from ..core.text import skeleton
from .closing import within
from .db import account_sessions_t, accounts_t, seats_t, tables_t
from .hashing import FairHashing
from .store import Store, utcnow

if TYPE_CHECKING:
    from .service import TableService

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Threads that hash passwords (each Argon2id hash holds 64 MiB while it runs).
HASH_THREADS = 2
#: The Redis channel of revoked sessions: JSON ``{"sessions": [token hashes], "tables": [codes renamed]}``.
REVOKED_CHANNEL = "liars:sessions:revoked"


@dataclass(frozen=True, slots=True)
class Account:
    """A signed-in account: ``id``, ``name``, and the session's ``token_hash`` and ``expires_at``."""

    id: int
    name: str
    token_hash: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class NewSession:
    """A session just opened: the account and the session ``token`` (shown once, as a cookie)."""

    account: Account
    token: str


def _aware(t: datetime) -> datetime:
    """SQLite gives back naive datetimes (stored as UTC)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)


class Revocations:
    """The websockets opened under each session on this worker, and the
    revocations that close them (on every worker when ``redis_url`` is given).

    A socket registers ``(token_hash, close)``; :meth:`revoked` calls every
    ``close`` of those hashes here and publishes them on :data:`REVOKED_CHANNEL`,
    so the other workers close theirs.
    """

    def __init__(self, redis_url: str | None = None) -> None:
        self._sockets: dict[str, set[Callable[[], None]]] = {}
        self._redis_url = redis_url
        self._redis: Any = None
        self._pubsub: Any = None
        self._task: asyncio.Task[None] | None = None
        #: what forgets the rooms of tables whose names changed (the service's ``forget_tables``)
        self.forget: Callable[[Sequence[str]], None] | None = None

    async def start(self) -> None:
        """Listen for the other workers' revocations (with Redis only)."""
        if self._redis_url is None:
            return
        import redis.asyncio as redis_async

        from .broker import CONNECT_SECONDS

        self._redis = redis_async.from_url(self._redis_url, socket_connect_timeout=CONNECT_SECONDS)
        pubsub = self._pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(REVOKED_CHANNEL)

        async def listen() -> None:
            while True:
                try:
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is not None:
                        data = json.loads(msg["data"])
                        self._close_here(data.get("sessions", ()))
                        if data.get("tables") and self.forget is not None:
                            self.forget(data["tables"])
                except asyncio.CancelledError:
                    raise  # close() closes the pub/sub, bounded
                except Exception:  # noqa: BLE001 - a bad message or a lost connection: keep listening
                    log.warning("session revocations: listening failed; retrying", exc_info=False)
                    await asyncio.sleep(0.5)

        self._task = asyncio.create_task(listen())

    async def close(self) -> None:
        """Stop listening; each step bounded (:func:`.closing.within`)."""
        if self._task is not None:
            self._task.cancel()
            await within("the revocations' listener", asyncio.gather(self._task, return_exceptions=True))
        if self._pubsub is not None:
            await within("the revocations' pub/sub", self._pubsub.aclose())
        if self._redis is not None:
            await within("the revocations' redis", self._redis.aclose())

    def register(self, token_hash: str, close: Callable[[], None]) -> Callable[[], None]:
        """Call ``close`` when session ``token_hash`` is revoked; returns the unregister function."""
        self._sockets.setdefault(token_hash, set()).add(close)

        def unregister() -> None:
            held = self._sockets.get(token_hash)
            if held is not None:
                held.discard(close)
                if not held:
                    del self._sockets[token_hash]

        return unregister

    def _close_here(self, hashes: Iterable[str]) -> None:
        for th in hashes:
            for close in list(self._sockets.pop(th, ())):
                close()

    async def revoked(self, hashes: Sequence[str], tables: Sequence[str] = ()) -> None:
        """Sessions ``hashes`` were revoked: close their sockets here and on the
        other workers (who also forget their rooms of ``tables``, whose names changed)."""
        if not hashes and not tables:
            return
        self._close_here(hashes)
        if self._redis is not None:
            try:
                await self._redis.publish(REVOKED_CHANNEL, json.dumps({"sessions": list(hashes), "tables": list(tables)}))
            except Exception:  # noqa: BLE001 - the sockets elsewhere close at their next check
                log.warning("session revocations: could not tell the other workers")

    def held(self) -> list[str]:
        """The session hashes of the sockets open here."""
        return list(self._sockets)

    def close_sessions(self, hashes: Iterable[str]) -> None:
        """Close the sockets of ``hashes`` here (sessions found ended by a sweep)."""
        self._close_here(hashes)

    def open_sockets(self) -> int:
        """Sockets registered here (for tests)."""
        return sum(len(v) for v in self._sockets.values())


class Accounts:
    """The accounts of one worker's store.

    :param service: the tables service (its store and :meth:`~.service.TableService.stored`).
    :param hasher: the Argon2id hasher (argon2-cffi's defaults, RFC 9106's low-memory profile).
    :param revocations: where revoked sessions are told (a local one if ``None``).
    :param hash_waiting_max: hashes (and verifications) that may wait for the
        hashing threads at once; one more raises :class:`~.hashing.HashingRefused`
        (429), after taking a suspect address's place if it can (:mod:`.hashing`).
    """

    def __init__(self, service: "TableService", hasher: PasswordHasher | None = None,
                 revocations: Revocations | None = None, hash_waiting_max: int = 16) -> None:
        self.service = service
        self.store: Store = service.store
        self.hasher = hasher or PasswordHasher()
        self.revocations = revocations or Revocations()
        self.revocations.forget = service.forget_tables
        self._hash_pool = ThreadPoolExecutor(HASH_THREADS, thread_name_prefix="liars-dice-argon2")
        self._sweeper: asyncio.Task[None] | None = None
        #: the pool's turns, fair by address, bounded (issue 36, fault 5; the pool's own queue has no bound)
        self.hashing = FairHashing(self._hash_pool, HASH_THREADS, hash_waiting_max)
        #: a hash of a random password, verified when a name is unknown (the same time as a
        #: known one); made on the hashing pool, so the app's start does not wait for it
        self._dummy = self._hash_pool.submit(self.hasher.hash, new_token())

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        self._hash_pool.shutdown(wait=False, cancel_futures=True)

    def start_sweeps(self, every: float) -> None:
        """Every ``every`` seconds, close the sockets here whose sessions ended
        without this worker being told (a revocation published while Redis or
        this worker's subscription was down is lost: pub/sub keeps nothing).
        ``every <= 0``: no sweeps."""
        if every <= 0:
            return

        async def sweeps() -> None:
            while True:
                await asyncio.sleep(every)
                try:
                    await self.sweep()
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001 - the database is down: the next sweep tries again
                    log.warning("session sweep failed; trying again in %.0f s", every)

        self._sweeper = asyncio.create_task(sweeps())

    async def sweep(self) -> int:
        """Close the sockets here whose sessions are no longer live (revoked,
        expired, or the account deleted). Returns how many sessions were closed.

        :raises StoreFailed: the database failed.
        """
        held = self.revocations.held()
        if not held:
            return 0
        now = utcnow()

        def q(conn: Connection) -> set[str]:
            live: set[str] = set()
            for i in range(0, len(held), 500):
                live.update(r[0] for r in conn.execute(
                    select(account_sessions_t.c.token_hash)
                    .join(accounts_t, accounts_t.c.id == account_sessions_t.c.account_id)
                    .where(account_sessions_t.c.token_hash.in_(held[i:i + 500]),
                           account_sessions_t.c.revoked_at.is_(None), account_sessions_t.c.expires_at > now,
                           accounts_t.c.deleted_at.is_(None))))
            return live

        live = await self._db(q)
        ended = [h for h in held if h not in live]
        self.revocations.close_sessions(ended)
        return len(ended)

    # -- plumbing --------------------------------------------------------------------

    async def _db(self, fn: Callable[[Connection], T]) -> T:
        """``fn(conn)`` in one transaction on the store's threads. :raises StoreFailed: the database failed."""
        def tx() -> T:
            with self.store.engine.begin() as conn:
                return fn(conn)

        return await self.service.stored(self.store.read(tx))

    async def _on_pool(self, fn: Callable[[], T]) -> T:
        """``fn()`` on the hashing threads, in the request's address's fair turn
        (:class:`~.hashing.FairHashing`: at most ``hash_waiting_max`` wait, by
        address, round robin, the addresses with a failed sign-in last).

        :raises HashingRefused: too many wait already (``rate/limited``, 429; nothing was started)."""
        return await self.hashing.run(fn)

    async def _hash(self, password: str) -> str:
        return await self._on_pool(lambda: self.hasher.hash(password))

    async def _verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored`` (the dummy when ``None``: the same work, never a match)."""
        def verify() -> bool:
            try:
                return self.hasher.verify(stored or self._dummy.result(), password) and stored is not None
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        return await self._on_pool(verify)

    @staticmethod
    def _open_session(conn: Connection, account_id: int) -> tuple[str, datetime]:
        token = new_token()
        now = utcnow()
        expires = now + timedelta(seconds=SESSION_SECONDS)
        # the account's sessions that ended long ago go (their rows bound the table's size)
        conn.execute(delete(account_sessions_t).where(
            account_sessions_t.c.account_id == account_id, account_sessions_t.c.expires_at < now))
        conn.execute(insert(account_sessions_t).values(
            token_hash=hash_token(token), account_id=account_id, created_at=now, expires_at=expires))
        return token, expires

    # -- names ------------------------------------------------------------------------

    async def registered_like(self, name: str) -> str | None:
        """The registered name that ``name`` is or looks like (same skeleton), or ``None``.

        :raises StoreFailed: the database failed.
        """
        sk = skeleton(name)

        def q(conn: Connection) -> str | None:
            return conn.execute(select(accounts_t.c.name).where(
                accounts_t.c.skeleton == sk, accounts_t.c.deleted_at.is_(None))).scalar_one_or_none()

        return await self._db(q)

    async def check_guest_name(self, name: str) -> None:
        """A guest's nickname, refused if it is or looks like a registered name.

        :raises NameRegistered: it does. :raises StoreFailed: the database failed.
        """
        from ..core.accounts import is_deleted_name

        if is_deleted_name(name):
            raise NameRegistered("Names such as \"deleted player 1\" are kept for deleted accounts: choose another.")
        if await self.registered_like(name) is not None:
            raise NameRegistered(
                "That nickname is, or looks like, a registered player's name: choose another, or sign in if it is yours."
            )

    async def deleted_names(self, account_ids: Iterable[int]) -> dict[int, str]:
        """``{account id: "deleted player N"}`` for those of ``account_ids`` deleted."""
        ids = sorted(set(account_ids))
        if not ids:
            return {}

        def q(conn: Connection) -> dict[int, str]:
            rows = conn.execute(select(accounts_t.c.id, accounts_t.c.deleted_number).where(
                accounts_t.c.id.in_(ids), accounts_t.c.deleted_at.is_not(None)))
            return {r[0]: deleted_name(r[1]) for r in rows}

        return await self._db(q)

    # -- sign-up, sign-in, sessions -----------------------------------------------------

    async def sign_up(self, name: str, password: str) -> tuple[NewSession, str]:
        """A new account ``name`` (cleaned at the edge) with ``password``, signed in.
        Returns the session and the one-time recovery code (shown once; only its hash is kept).

        :raises PasswordInvalid: the password breaks the rules.
        :raises NameInvalid: a name kept for deleted players.
        :raises NameRegistered: the name, or one that looks like it, is taken.
        :raises StoreFailed: the database failed.
        """
        pw = await self._on_pool(lambda: check_password(password, name))  # zxcvbn: up to 0.15 s of CPU
        sk = name_skeleton(name)
        code = new_recovery_code()
        pw_hash = await self._hash(pw)
        rc_hash = await self._hash(normal_recovery_code(code))

        def tx(conn: Connection) -> tuple[int, str, datetime] | None:
            now = utcnow()
            if conn.execute(select(accounts_t.c.id).where(accounts_t.c.skeleton == sk)).first() is not None:
                return None
            try:
                with conn.begin_nested():
                    key = conn.execute(insert(accounts_t).values(
                        name=name, skeleton=sk, password_hash=pw_hash, recovery_hash=rc_hash,
                        created_at=now, password_changed_at=now)).inserted_primary_key
                    assert key is not None
                    aid = int(key[0])
            except IntegrityError:
                if conn.execute(select(accounts_t.c.id).where(accounts_t.c.skeleton == sk)).first() is None:
                    raise  # not the name: the database failed
                return None  # taken meanwhile (the unique skeleton)
            token, expires = self._open_session(conn, aid)
            return aid, token, expires

        got = await self._db(tx)
        if got is None:
            raise NameRegistered("That name, or one that looks like it, is already registered: choose another.")
        aid, token, expires = got
        log.info("account %d signed up", aid)
        return NewSession(Account(aid, name, hash_token(token), expires), token), code

    async def sign_in(self, name: str, password: str) -> NewSession:
        """A new session for ``name`` with ``password``. An unknown name costs the
        same work as a known one (a dummy hash is verified), and gets the same answer.
        A hash made with other parameters than the hasher's is made again.

        :raises SignInFailed: no such account, or the wrong password.
        :raises StoreFailed: the database failed.
        """
        sk = skeleton(name)

        def find(conn: Connection) -> Any:
            # the name is found by its skeleton, so case does not matter (issue 38); an
            # account that shared its skeleton with an older one before migration 0006
            # is found by its exact name
            rows = conn.execute(select(accounts_t.c.id, accounts_t.c.name, accounts_t.c.password_hash).where(
                or_(accounts_t.c.skeleton == sk, accounts_t.c.name == name),
                accounts_t.c.deleted_at.is_(None)).order_by(accounts_t.c.id).limit(2)).all()
            return next((r for r in rows if r.name == name), rows[0] if rows else None)

        row = await self._db(find)
        pw = normal_password(password)
        stored = row.password_hash if row is not None else None
        ok = await self._verify(stored, pw)
        if not ok or row is None:
            raise SignInFailed("That name and password do not go together.")
        rehash = None
        if self.hasher.check_needs_rehash(stored):  # type: ignore[arg-type]  # stored is the str hash read above
            rehash = await self._hash(pw)

        def tx(conn: Connection) -> tuple[str, datetime]:
            if rehash is not None:
                conn.execute(update(accounts_t).where(accounts_t.c.id == row.id).values(password_hash=rehash))
            return self._open_session(conn, row.id)

        token, expires = await self._db(tx)
        return NewSession(Account(row.id, row.name, hash_token(token), expires), token)

    async def session(self, token: str | None) -> Account | None:
        """The account of session ``token``, or ``None`` (no token, unknown, expired, revoked, deleted).

        :raises StoreFailed: the database failed.
        """
        if not token or len(token) > 128:
            return None
        th = hash_token(token)

        def q(conn: Connection) -> Any:
            return conn.execute(
                select(accounts_t.c.id, accounts_t.c.name, account_sessions_t.c.expires_at)
                .join(accounts_t, accounts_t.c.id == account_sessions_t.c.account_id)
                .where(account_sessions_t.c.token_hash == th, account_sessions_t.c.revoked_at.is_(None),
                       accounts_t.c.deleted_at.is_(None))
            ).first()

        row = await self._db(q)
        if row is None or _aware(row.expires_at) <= utcnow():
            return None
        return Account(row.id, row.name, th, _aware(row.expires_at))

    async def require(self, token: str | None) -> Account:
        """Like :meth:`session`. :raises SignedOut: no live session."""
        acct = await self.session(token)
        if acct is None:
            raise SignedOut("You are not signed in (or your session ended): sign in again.")
        return acct

    async def _revoke(self, conn_fn: Callable[[Connection], list[str]]) -> list[str]:
        hashes = await self._db(conn_fn)
        await self.revocations.revoked(hashes)
        return hashes

    @staticmethod
    def _revoke_where(conn: Connection, *where: Any) -> list[str]:
        now = utcnow()
        hashes = [r[0] for r in conn.execute(select(account_sessions_t.c.token_hash).where(
            account_sessions_t.c.revoked_at.is_(None), *where))]
        if hashes:
            conn.execute(update(account_sessions_t).where(account_sessions_t.c.token_hash.in_(hashes))
                         .values(revoked_at=now))
        return hashes

    async def sign_out(self, acct: Account) -> None:
        """Revoke ``acct``'s session (its sockets close). :raises StoreFailed: the database failed."""
        await self._revoke(lambda c: self._revoke_where(c, account_sessions_t.c.token_hash == acct.token_hash))

    async def change_password(self, acct: Account, old: str, new: str) -> None:
        """A new password for ``acct`` (the old one checked); every other session is revoked.

        :raises SignInFailed: the old password is wrong. :raises PasswordInvalid: the new one breaks the rules.
        :raises StoreFailed: the database failed.
        """
        pw = await self._on_pool(lambda: check_password(new, acct.name))
        stored = await self._db(lambda c: c.execute(select(accounts_t.c.password_hash).where(
            accounts_t.c.id == acct.id)).scalar_one_or_none())
        if not await self._verify(stored, normal_password(old)):
            raise SignInFailed("That is not your current password.")
        new_hash = await self._hash(pw)

        def tx(conn: Connection) -> list[str]:
            conn.execute(update(accounts_t).where(accounts_t.c.id == acct.id).values(
                password_hash=new_hash, password_changed_at=utcnow()))
            return self._revoke_where(conn, account_sessions_t.c.account_id == acct.id,
                                      account_sessions_t.c.token_hash != acct.token_hash)

        await self._revoke(tx)

    async def reset(self, name: str, code: str, new: str) -> tuple[NewSession, str]:
        """The password of ``name`` reset with its recovery code: every session is
        revoked, a new session opened and a new recovery code made (the old one is spent).
        Returns the session and the new recovery code.

        :raises RecoveryFailed: no such account, or the wrong code (one answer).
        :raises PasswordInvalid: the new password breaks the rules.
        :raises StoreFailed: the database failed.
        """
        pw = await self._on_pool(lambda: check_password(new, name))
        sk = skeleton(name)
        row = await self._db(lambda c: c.execute(select(accounts_t.c.id, accounts_t.c.name, accounts_t.c.recovery_hash)
                                                 .where(accounts_t.c.skeleton == sk, accounts_t.c.deleted_at.is_(None))).first())
        stored = row.recovery_hash if row is not None else None
        if not await self._verify(stored, normal_recovery_code(code)) or row is None:
            raise RecoveryFailed("That name and recovery code do not go together.")
        fresh = new_recovery_code()
        pw_hash = await self._hash(pw)
        rc_hash = await self._hash(normal_recovery_code(fresh))

        def tx(conn: Connection) -> tuple[list[str], str, datetime] | None:
            # spent once: only if the code is still the one checked
            done = conn.execute(update(accounts_t).where(
                accounts_t.c.id == row.id, accounts_t.c.recovery_hash == stored).values(
                password_hash=pw_hash, recovery_hash=rc_hash, password_changed_at=utcnow()))
            if done.rowcount != 1:
                return None
            hashes = self._revoke_where(conn, account_sessions_t.c.account_id == row.id)
            token, expires = self._open_session(conn, row.id)
            return hashes, token, expires

        got = await self._db(tx)
        if got is None:
            raise RecoveryFailed("That name and recovery code do not go together.")
        hashes, token, expires = got
        await self.revocations.revoked(hashes)
        return NewSession(Account(row.id, row.name, hash_token(token), expires), token), fresh

    async def delete(self, acct: Account, password: str) -> str:
        """Delete ``acct`` (its password checked): the password hash, the recovery
        code and every session go; its name is freed; its past games show
        "deleted player N" (the ``seats`` and ``tables`` index rows are rewritten;
        the events stay as they were and are shown renamed, see
        :func:`~..core.accounts.rename_players`). Returns that name.

        :raises SignInFailed: the wrong password.
        :raises AccountBusy: the account holds a seat at a table not finished.
        :raises StoreFailed: the database failed.
        """
        stored = await self._db(lambda c: c.execute(select(accounts_t.c.password_hash).where(
            accounts_t.c.id == acct.id)).scalar_one_or_none())
        if not await self._verify(stored, normal_password(password)):
            raise SignInFailed("That is not your password.")
        live = await self._db(lambda c: [r[0] for r in c.execute(
            select(tables_t.c.code).join(seats_t, seats_t.c.table_id == tables_t.c.id).where(
                seats_t.c.account_id == acct.id, tables_t.c.status.in_(("open", "playing"))))])
        for code in live:  # a seat given up before the start does not count; a game on does
            t = (await self.service.get_room(code)).table
            if t.is_live and any(s.account == acct.id for s in t.seats):
                raise AccountBusy(f"You have a seat at table {t.code}, whose game is not over: finish it first.")

        def tx(conn: Connection) -> tuple[list[str], str, list[str]]:
            n = (conn.execute(select(func.max(accounts_t.c.deleted_number))).scalar() or 0) + 1
            new_name = deleted_name(n)
            old_name = conn.execute(select(accounts_t.c.name).where(accounts_t.c.id == acct.id)).scalar_one()
            conn.execute(update(accounts_t).where(accounts_t.c.id == acct.id).values(
                name=new_name, skeleton=skeleton(new_name), password_hash=None, recovery_hash=None,
                deleted_at=utcnow(), deleted_number=n))
            hashes = [r[0] for r in conn.execute(select(account_sessions_t.c.token_hash).where(
                account_sessions_t.c.account_id == acct.id))]
            conn.execute(delete(account_sessions_t).where(account_sessions_t.c.account_id == acct.id))
            # the index rows of past games: names as the games show them now
            rows = conn.execute(select(seats_t.c.table_id, seats_t.c.seat).where(seats_t.c.account_id == acct.id)).all()
            conn.execute(update(seats_t).where(seats_t.c.account_id == acct.id).values(name=new_name))
            for table_id in {r[0] for r in rows}:
                t = conn.execute(select(tables_t.c.players, tables_t.c.winner).where(tables_t.c.id == table_id)).first()
                if t is None:
                    continue
                values: dict[str, Any] = {}
                if t.players is not None and old_name in t.players:
                    values["players"] = [new_name if p == old_name else p for p in t.players]
                if t.winner == old_name:
                    values["winner"] = new_name
                if values:
                    conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(**values))
            codes = [r[0] for r in conn.execute(select(tables_t.c.code).where(
                tables_t.c.id.in_(sorted({r[0] for r in rows}))))]
            return hashes, new_name, codes

        for _ in range(5):  # two deletions at once may pick the same number: the unique column says which
            try:
                hashes, new_name, codes = await self._db(tx)
                break
            except Exception as e:  # noqa: BLE001
                if not isinstance(e.__cause__, IntegrityError):
                    raise
        else:  # pragma: no cover
            raise AccountBusy("The account could not be deleted just now: try again.")
        self.service.forget_tables(codes)
        await self.revocations.revoked(hashes, codes)
        log.info("account %d deleted (now %s)", acct.id, new_name)
        return new_name
