"""The tables service of one worker: the rooms it holds, and the one path of
every change.

Every change follows one path, under the room's lock (:meth:`TableService.run`):
the command becomes events by :func:`~liars_dice.server.core.commands.step`
(checked; nothing changes if it is refused), the events are stored
(committed), the room's table becomes the new value, then
:meth:`TableService._after` schedules what comes next (:mod:`.turns`) and
tells the clients (:mod:`.hub`). A new table is created by the same path
(:class:`~liars_dice.server.core.commands.Create`), and the timers fire their
commands into it (:meth:`TableService.execute`).

Seats are claimed by connecting: a person's seat whose owner has no websocket
(never said ``hello`` since joining, or every socket closed) is given up after
``Settings.grace`` seconds: freed before the start, played by a bot after it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from ...engine import DiceSource, LiarsDiceError, SecureDice
from ..core.commands import Command, Create, Join, Leave, Move, Rematch, Return, Settle, Stale, step
from ..core.config import Settings
from ..core.errors import BadToken, LeaseLost, ServerBusy, TableDamaged, TableNotFound, TokenRevoked
from ..core.listing import safe_entries
from ..core.messages import CreateTable, JoinTable
from ..core.rules_check import listed_name, rules_for
from ..core.security import hash_token, is_code, new_code, new_token, normalize_code
from ..core.ratings import outcome
from ..core.tables import Departure, Event, EventKind, SeatKind, Table, TableStatus, rebuild, unopened
from ..core.views import record_of
from .clock import Clock, SystemClock
from .conn import Conn
from .hub import Broadcaster
from .learning import Learner
from .owners import LocalOwners, Owners
from .queries import Queries
from .replica import catch_up
from .room import Room
from . import metrics
from .store import Op, Store, StoreFailed, utcnow
from .timers import Evict, GraceOver, Scheduler, TimerCommand, TurnDue
from .turns import Turns

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Events after which the table summary changes.
_TABLE_EVENTS = frozenset({
    EventKind.JOINED, EventKind.BOT_ADDED, EventKind.SEAT_FREED, EventKind.HOST, EventKind.CLOSED,
    EventKind.STARTED, EventKind.REPLACED, EventKind.RETURNED, EventKind.FINISHED, EventKind.NEW_GAME,
})
#: Events after which the game view changes.
_GAME_EVENTS = frozenset({
    EventKind.STARTED, EventKind.DEALT, EventKind.MOVE, EventKind.REPLACED, EventKind.RETURNED, EventKind.FINISHED,
    EventKind.NEW_GAME,
})


def _ops(table_id: str, first_seq: int, events: Sequence[Event], table: Table | None = None,
         creator: str | None = None) -> list[Op]:
    """The database writes for ``events`` numbered from ``first_seq``: the
    events, plus the ``tables`` row, ``seats`` rows and row updates they imply,
    and, for a rated game's ``finished`` event, its rating (``table`` is the
    table after the events; :mod:`.ratings_store`). ``creator``: the address
    that created the table (``Room.creator``), kept in its row while it is live
    and cleared when it finishes or closes (migration 0005)."""
    ops: list[Op] = []
    for e in events:
        if e.kind is EventKind.CREATED:
            p = e.payload
            ops.append(Store.op_insert_table({
                "id": p["id"], "code": p["code"], "created_at": datetime.fromisoformat(p["created_at"]), "status": TableStatus.OPEN.value,
                "private": p["private"], "preset": p["preset"], "n_seats": p["n_seats"], "turn_timer": p["turn_timer"],
                "rated": bool(p.get("rated", False)), "creator": creator,
            }))
    ops += [Store.op_event(table_id, first_seq + i, e.kind.value, e.payload) for i, e in enumerate(events)]
    for e in events:
        p = e.payload
        if e.kind is EventKind.JOINED:
            ops.append(Store.op_seat(table_id, p["seat"], p["name"], p["token_hash"], p.get("account")))
        elif e.kind is EventKind.STARTED:
            ops.append(Store.op_update_table(table_id, status=TableStatus.PLAYING.value, players=p["players"]))
        elif e.kind is EventKind.NEW_GAME:  # "Play again": the row describes the game in play
            ops.append(Store.op_update_table(
                table_id, status=TableStatus.PLAYING.value, players=p["players"], winner=None, finished_at=None,
                creator=creator,
            ))
        elif e.kind is EventKind.FINISHED:
            ops.append(Store.op_update_table(
                table_id, status=TableStatus.FINISHED.value, winner=p["winner"], finished_at=utcnow(), creator=None
            ))
            game = outcome(table) if table is not None else None
            if game is not None:  # in the finish's transaction, by the table's owner (issue 18)
                ops.append(Store.op_rate(game))
        elif e.kind is EventKind.CLOSED:
            ops.append(Store.op_update_table(table_id, status=TableStatus.CLOSED.value, creator=None))
    return ops


class TableService:
    """Holds the live rooms of one worker and runs them.

    :param scheduler: runs the timers (a new :class:`Scheduler` if ``None``).
    :param broadcaster: tells the clients (a new :class:`Broadcaster` if ``None``).
    :param dice: where each round seed comes from, one byte per 256-faced die (:class:`SecureDice` if ``None``; the dice are derived from the seeds, see :mod:`~liars_dice.server.core.fairness`).
    :param owners: who runs which table (:mod:`.owners`): :class:`~.owners.LocalOwners`
        if ``None`` (one process), a :class:`~.cluster.Cluster` for many workers.
        Started by the caller with this service as its host.
    :param clock: time for the timers (:class:`~.clock.SystemClock` if ``None``;
        tests pass a :class:`~.clock.ManualClock`). A given ``scheduler`` keeps its own.
    """

    def __init__(
        self, settings: Settings, store: Store, scheduler: Scheduler | None = None,
        broadcaster: Broadcaster | None = None, dice: DiceSource | None = None,
        owners: Owners | None = None, clock: Clock | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock: Clock = clock or (scheduler.clock if scheduler is not None else SystemClock())
        self.scheduler = scheduler or Scheduler(self.clock)
        self.scheduler.bind(self.execute, retry_on=(StoreFailed,))
        self.tell = broadcaster or Broadcaster(settings.presence_interval, settings.presence_fanout)
        self.dice: DiceSource = dice or SecureDice()
        self.rooms: dict[str, Room] = {}
        #: rooms that left memory but are still held (a socket looked one up and
        #: has not said hello yet): found again, never loaded a second time
        self._gone: weakref.WeakValueDictionary[str, Room] = weakref.WeakValueDictionary()
        #: a load from the store under way, by join code: one load per code
        self._loading: dict[str, asyncio.Future[Room]] = {}
        self.learner = Learner(store, record_of)
        self.turns = Turns(settings, self.scheduler, self.learner, self.run, self.clock)
        self.queries = Queries(self.rooms, store, self.get_room, self.stored)
        self.store_failed = 0.0  #: monotonic time of the store's last failure (0: never)
        self.store_ok = 0.0  #: and of its last success
        self._store_log = (0.0, 0)  #: (no database-failure line before this monotonic time, lines left out)
        #: who runs which table: this process (one worker), or the lease holder among many (:mod:`.cluster`)
        self.owners: Owners = owners or LocalOwners()

    # -- life cycle -------------------------------------------------------------

    async def startup(self) -> None:
        """Rebuild every unfinished table from its events and resume it. A
        table whose events do not rebuild (a gap, an event it cannot apply)
        is set aside: one log line, its row marked ``damaged`` (its players
        get :class:`TableDamaged`'s sentence), and the others start."""
        ids = await self.store.read(self.store.unfinished_table_ids)
        resumed = 0
        for table_id in ids:
            try:
                await self.resume(table_id)
            except Exception as e:  # noqa: BLE001 - one damaged table must never stop the server
                await self._set_aside(table_id, e)
                continue
            resumed += 1
        if ids:
            log.info("resumed %d tables", resumed)

    async def _set_aside(self, table_id: str, why: BaseException) -> None:
        """Mark table ``table_id`` ``damaged`` (its events do not rebuild: ``why``)."""
        log.error("table %s set aside as damaged: its stored events do not rebuild (%s: %s)",
                  table_id, type(why).__name__, why)
        try:
            await self.store.write([Store.op_update_table(table_id, status="damaged")])
        except Exception:  # noqa: BLE001 - it is refused again at each load
            log.warning("table %s could not be marked damaged", table_id)

    async def resume(self, table_id: str) -> Room:
        """Rebuild table ``table_id`` from its stored events and run it here:
        a deal due, the grace of each person, the turn (a restart, or a
        takeover from a dead worker, :mod:`.cluster`)."""
        table = rebuild(await self.stored(self.store.read(self.store.events, table_id)), self.settings.chat_history)
        room = self.rooms.get(table.code)
        if room is None:
            room = self.rooms[table.code] = Room(table)
        else:  # a replica kept for this worker's sockets (.replica) becomes the owner's room
            room.table = table
        if room.creator is None:  # under its address's cap, its bots in its address's turn (migration 0005)
            room.creator = await self.stored(self.store.read(self.store.creator_of, table_id))
        await self.run(room, Settle())  # a deal due (never: a round's events are stored together)
        for seat in room.table.humans():
            if not room.is_connected(seat):
                self.turns.start_grace(room, seat)
        self.turns.schedule_turn(room)
        return room

    async def shutdown(self) -> None:
        await self.scheduler.shutdown()
        self.turns.close()

    # -- the one path of a change --------------------------------------------------

    async def run(self, room: Room, command: Command) -> list[Event]:
        """Check ``command``, store its events, apply them, then tell and schedule.

        Another worker that runs the table decides it instead (the port's
        :meth:`~.owners.Owners.route`). A write refused because this worker's
        hold on the table lapsed is tried once more: the hold taken back if
        nobody else took it (a lone worker starved of CPU past its lease,
        issue 36 fault 9: its own players' moves got ``server/moved``), else
        forwarded to the worker that took it.

        :raises LiarsDiceError: the command is refused; nothing changed.
        :raises Stale: a timer's move for a move that has passed.
        """
        for attempt in range(2):
            forwarded = await self.owners.route(room, command)
            if forwarded is not None:
                return forwarded
            try:
                return await self._decide(room, command)
            except LeaseLost:
                if attempt:
                    raise
                if await self.owners.regain(room.table.id):
                    room.unsure = True  # the store of record says where the table stands
        raise AssertionError("unreachable")  # pragma: no cover

    async def _decide(self, room: Room, command: Command) -> list[Event]:
        """:meth:`run` on this worker, the table's owner."""
        began = time.perf_counter()  # metrics: a move's latency (issue 36)
        async with room.lock:
            if room.unsure:
                await self._reread(room)
            new, events = step(room.table, command, self.dice)
            if not events:
                return events
            # "play again" makes the asker the creator of the live table (stop 33's
            # attacker: rematches of finished tables passed the open-table caps)
            creator = command.address if isinstance(command, Rematch) and command.address else room.creator
            ops = _ops(new.id, room.table.seq + 1, events, new, creator)
            fence = self.owners.fence(new.id)  # only the table's owner may store (.ownership)
            if fence is not None:
                ops.insert(0, fence)
            try:
                await self.stored(self.store.write(ops))
            except StoreFailed:
                # Failed, or committed without our knowing (the connection died
                # at the commit): nothing is applied, and the store of record
                # says what happened before the next change (never number from
                # memory past a gap).
                room.unsure = True
                raise
            first = room.table.seq + 1
            room.table = new
            room.creator = creator
        self.owners.committed(room, first, events)  # published after the commit, never before
        self._after(room, events)
        metrics.moved(time.perf_counter() - began)  # the moves counter and latency histogram (issue 36)
        return events

    async def stored(self, work: Awaitable[T]) -> T:
        """``work`` (a write or read of the store), its failure as
        :class:`~.store.StoreFailed` (a ``server/unavailable`` refusal) (issue 16, fault 9: a move whose write failed
        dropped the socket with no message, and ``POST /api/tables`` answered
        ``500 text/plain``). :attr:`store_failed` keeps the time of the last
        failure and :attr:`store_ok` of the last success, for ``/healthz``.

        :raises StoreFailed: the store raised (the cause is logged).
        """
        try:
            out = await work
        except LiarsDiceError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure of the database
            self.store_failed = time.monotonic()
            self._log_store_failure(e)
            raise StoreFailed(
                "The server cannot store the game just now (its database failed): nothing changed; try again in a moment."
            ) from e
        self.store_ok = time.monotonic()
        return out

    #: Seconds between two log lines of database failures: an outage under load
    #: fails every request, and one line per request would fill the disk.
    STORE_LOG_SECONDS = 5.0

    def _log_store_failure(self, e: Exception) -> None:
        """Log a database failure: the first at once, then at most one line per
        :data:`STORE_LOG_SECONDS`, saying how many were left out."""
        now = time.monotonic()
        quiet_until, left_out = self._store_log
        if now < quiet_until:
            self._store_log = (quiet_until, left_out + 1)
            return
        more = f" ({left_out} more failures since the last line)" if left_out else ""
        log.warning("database failure: %s%s", str(e).splitlines()[0][:300] if str(e) else type(e).__name__, more)
        self._store_log = (now + self.STORE_LOG_SECONDS, 0)

    async def _reread(self, room: Room) -> None:
        """After a failed or uncertain commit: the room's table becomes what its
        stored events make (under the room's lock). Events that were stored
        after all are told and scheduled as usual.

        :raises StoreFailed: the store cannot be read yet (the room stays unsure).
        :raises TableDamaged: the stored events do not rebuild.
        """
        try:
            rows = await self.stored(self.store.read(self.store.events, room.table.id))
        except StoreFailed:
            raise
        have = room.table.seq
        if not rows and have == 0:  # a Create whose write failed: nothing stored
            room.unsure = False
            return
        if rows and rows[-1][0] == have:
            room.unsure = False
            return
        try:
            table = rebuild(rows, self.settings.chat_history)
        except Exception as e:  # noqa: BLE001 - any event that does not apply
            await self._set_aside(room.table.id, e)
            raise TableDamaged(f"Table {room.code}'s stored history is damaged, so it cannot go on.") from e
        missed = [Event(EventKind(kind), payload) for seq, kind, payload in rows if seq > have]
        log.info("table %s re-read from the store: events %d to %d (had %d)", room.code, rows[0][0], rows[-1][0], have)
        room.table = table
        room.unsure = False
        self._after(room, missed)
        if not missed:  # the store holds less than memory did: everyone syncs to it
            self.turns.schedule_turn(room)
            self.tell.state(room)

    async def execute(self, room: Room, command: TimerCommand) -> None:
        """A timer's command (:mod:`.timers`), fired into the change path."""
        if isinstance(command, GraceOver):
            await self._grace_over(room, command.seat)
        elif isinstance(command, TurnDue):
            await self.turns.play(room, command)
        elif isinstance(command, Evict):
            replica = room.table.is_live and not self.owners.owns(room)
            if not room.conns and (replica or not room.table.is_live) and self.rooms.get(room.code) is room:
                del self.rooms[room.code]
                if replica:  # another worker runs it: stop following it (loaded again when asked for)
                    await self.owners.dropped(room)
                    return
                # a socket that looked the room up but has not said hello still
                # holds it: get_room finds it here rather than loading a copy
                self._gone[room.code] = room

    #: Seconds before a grace period is checked again when whether another
    #: worker holds the seat cannot be known (the shared presence is away).
    GRACE_UNKNOWN_SECONDS = 5.0

    async def _grace_over(self, room: Room, seat: int) -> None:
        """``seat``'s grace period ran out on this worker. Only the table's owner
        gives a seat up, and only when no worker holds a socket for it: a seat
        is held while any worker holds one (issue 36, fault 1: a replica's
        grace gave up the seat of a person whose page had moved its socket to
        the owner). Held elsewhere, the grace starts again; unknowable now
        (the shared presence is away or was just restarted), it is checked
        again in :data:`GRACE_UNKNOWN_SECONDS`: a seat is never given up on a guess."""
        t = room.table
        if room.is_connected(seat) or not t.is_live or t.seats[seat].kind is not SeatKind.HUMAN:
            return
        if not self.owners.owns(room):
            return  # the owner keeps the grace (a replica's socket counts there, through presence)
        held = await self.owners.held_elsewhere(room, seat)
        if held is False:
            await self.leave(room, seat, Departure.GRACE)
        else:
            self.turns.start_grace(room, seat, None if held else min(self.settings.grace, self.GRACE_UNKNOWN_SECONDS))

    def _after(self, room: Room, events: Sequence[Event]) -> None:
        """What follows stored ``events``: seats given up lose their clients'
        view and timers, the turn is scheduled, the clients are told."""
        t = room.table
        kinds = {e.kind for e in events}
        if EventKind.NEW_GAME in kinds:
            room.results_cache = None  # the results are the new game's
        self.turns.note_reveal(room, events)
        unseated = False
        for e in events:
            if e.kind is EventKind.JOINED:
                self.turns.start_grace(room, e.payload["seat"])
            elif e.kind is EventKind.SEAT_FREED or (
                e.kind is EventKind.REPLACED and e.payload.get("reason") != Departure.GRACE
            ):
                self.scheduler.cancel(room, ("grace", e.payload["seat"]))
                for conn in room.unseat(e.payload["seat"]):
                    unseated = True
                    conn.send({"type": "unseated", "seat": e.payload["seat"], "message": (
                        "You left this game: a bot plays your seat, and you are watching."
                        if e.kind is EventKind.REPLACED else "You no longer hold a seat here: you are watching."
                    )})
            elif e.kind is EventKind.RETURNED:
                self.scheduler.cancel(room, ("grace", e.payload["seat"]))
            elif e.kind is EventKind.NEW_GAME:  # a person not here for the next game: a bot plays after the grace
                for seat in t.humans():
                    self.turns.start_grace(room, seat)
        if not t.is_live:
            for seat in range(t.n_seats):
                self.scheduler.cancel(room, ("grace", seat))
            room.release()
            self.turns.evict_later(room)
        if kinds & _GAME_EVENTS:
            self.turns.schedule_turn(room)
        if kinds & _TABLE_EVENTS:
            self.tell.table(room)
        if unseated:
            self.tell.presence(room)
        if kinds & _GAME_EVENTS or unseated:
            self.tell.state(room)
        for e in events:
            if e.kind is EventKind.CHAT:
                self.tell.chat(room, e.payload)

    # -- what the ownership port may ask (.owners.Host) ------------------------------------

    async def catch_up(self, room: Room, first: int, events: Sequence[Event]) -> str:
        """A replica's published batch numbered from ``first`` (:func:`.replica.catch_up`)."""
        return await catch_up(room, first, events, self.store, self.tell, self.settings.chat_history)

    def stop_timers(self, room: Room) -> None:
        """Another worker runs ``room`` now: none of its timers fires here."""
        self.scheduler.cancel_room(room)

    def announce(self, room: Room) -> None:
        """Tell ``room``'s sockets its table and state as they are now (a takeover)."""
        if room.conns:
            self.tell.table(room)
            self.tell.state(room)

    # -- tables -------------------------------------------------------------------

    async def get_room(self, code: str) -> Room:
        """The room of join code ``code`` (loaded from the database if it is not
        in memory: a finished or closed table).

        :raises TableNotFound: no table has that code.
        """
        code = normalize_code(code)
        room = self.rooms.pop(code, None)
        if room is not None:
            self.rooms[code] = room  # the most recently asked for: the last to be dropped
            return room
        if not is_code(code):
            raise TableNotFound("There is no table with that code.")
        room = self._gone.pop(code, None)
        if room is not None:  # evicted, but still held: the one copy comes back
            self.rooms[code] = room
            self.turns.evict_later(room)
            return room
        loading = self._loading.get(code)
        if loading is None:  # one load per code; the others wait for it
            loading = self._loading[code] = asyncio.ensure_future(self._load(code))
            loading.add_done_callback(lambda _: self._loading.pop(code, None))
        return await asyncio.shield(loading)

    async def _load(self, code: str) -> Room:
        table_id = await self.stored(self.store.read(self.store.table_id_for_code, code))
        if table_id is None:
            raise TableNotFound(f"There is no table with code {code}.")
        events = await self.stored(self.store.read(self.store.events, table_id))
        try:
            table = rebuild(events, self.settings.chat_history)
        except Exception as e:  # noqa: BLE001 - any event that does not apply
            log.error("table %s cannot be shown: its stored events do not rebuild (%s: %s)", code, type(e).__name__, e)
            raise TableDamaged(
                f"Table {code}'s stored history is damaged, so it cannot be shown or played; the server set it aside."
            ) from e
        room = self.rooms.get(code)
        if room is None:
            room = self.rooms[code] = Room(table)
            self.turns.evict_later(room)
            self._drop_idle_rooms()
            await self.owners.loaded(room)  # owned here if nobody runs it, else a replica (.cluster)
        return room

    def _drop_idle_rooms(self) -> None:
        """Hold at most ``Settings.idle_rooms_max`` finished or closed rooms with
        no client, dropping the least recently asked for first (they are
        reloaded when asked for). Without it, looking up finished tables kept
        each in memory for ``finished_ttl`` (about 62 KB a finished game), as
        many as a client could name."""
        idle = [r for r in self.rooms.values() if not r.conns and not r.table.is_live]
        for old in idle[: max(0, len(idle) - self.settings.idle_rooms_max)]:
            self.scheduler.cancel(old, "evict")
            del self.rooms[old.code]

    def forget_tables(self, codes: Sequence[str]) -> None:
        """The names shown at tables ``codes`` changed (an account was deleted):
        drop this worker's rooms of those that are finished or closed and have
        no client, so that they are loaded again with the names as shown now
        ("deleted player N"; :meth:`.store.Store.events`)."""
        for code in codes:
            room = self.rooms.get(code)
            if room is not None and not room.table.is_live and not room.conns:
                self.scheduler.cancel(room, "evict")
                del self.rooms[code]
            self._gone.pop(code, None)

    def lobby(self) -> list[dict[str, Any]]:
        """Open public tables with an empty seat, newest first."""
        rooms = [
            r for r in self.rooms.values()
            if r.table.status is TableStatus.OPEN and not r.table.private and r.table.empty_seats()
        ]
        rooms.sort(key=lambda r: r.table.created_at, reverse=True)
        # One table that fails to build or encode is left out, never the listing.
        here = safe_entries(rooms[: self.settings.lobby_max], Room.summary)
        return self.owners.lobby(here, self.settings.lobby_max)  # and the other workers' tables

    async def create_table(self, req: CreateTable, name: str, base_url: str, account: int | None = None,
                           address: str | None = None) -> dict[str, Any]:
        """``POST /api/tables``: a new open table with its creator, ``name``
        (cleaned at the edge), in seat 0 (the host), through the change path;
        ``account``: the signed-in creator's account id (``None``: a guest);
        ``address``: the creator's address, the key of the table's bots'
        turns (:mod:`.bot_queue`) and of its place under the open-table cap
        per address; stored with the table while it is live (``tables.creator``).

        :raises ServerError: on a bad request (nothing is stored).
        """
        rules = rules_for(self.settings, req)
        preset = req.preset if req.rules_text is None else listed_name(rules)
        for _ in range(20):
            code = new_code()
            if code not in self.rooms and await self.stored(self.store.read(self.store.table_id_for_code, code)) is None:
                break
        else:  # pragma: no cover - 31^6 codes
            raise ServerBusy("No free join code was found; try again.")
        payload = {
            "id": uuid.uuid4().hex, "code": code, "preset": preset, "rules": rules.to_dict(),
            "n_seats": req.seats, "turn_timer": req.turn_timer, "private": req.private,
            "created_at": utcnow().isoformat(),
            **({"bots_learn": True} if req.bots_learn else {}),
            **({"rated": True} if req.rated else {}),
        }
        token = new_token()
        room = Room(unopened(payload, self.settings.chat_history))
        room.creator = address
        await self.run(room, Create(payload, name, hash_token(token), account))
        self.rooms[code] = room
        return {
            "code": code, "share_url": f"{base_url.rstrip('/')}/#/table/{code}", "seat": 0, "token": token,
            "table": room.summary(),
        }

    async def join(self, code: str, req: JoinTable, name: str, account: int | None = None) -> dict[str, Any]:
        """``POST /api/tables/{code}/join``: a seat for ``name`` (cleaned at the
        edge), claimed by connecting within the grace period; ``account``: the
        signed-in player's account id (``None``: a guest).

        :raises ServerError: on a refusal."""
        room = await self.get_room(code)
        token = new_token()
        events = await self.run(room, Join(name, hash_token(token), req.seat, account))
        return {"code": room.code, "seat": events[0].payload["seat"], "token": token, "table": room.summary()}

    # -- connections --------------------------------------------------------------

    async def claim(self, room: Room, conn: Conn, token: str | None, account: int | None = None,
                    by_account: bool = False) -> int | None:
        """Attach ``conn`` to its token's seat (claiming it, a returning person
        taking the seat back from the stand-in bot), or as a spectator
        (``token`` is ``None``). Returns the seat.

        A seat taken under an account is the account's (issue 18): its token
        works only with ``account``, that account's id (the socket's session);
        with ``by_account`` and no token, the seat ``account`` holds at the
        table is claimed (signing in on another device), if it holds one.

        :raises BadToken: the token never held a seat here, or its seat is
            another account's (or a signed-in player's, and ``account`` is ``None``).
        :raises TokenRevoked: the token's seat was given up.
        """
        seat: int | None = None
        if token is None and by_account and account is not None:
            seat = room.table.seat_of_account(account)
            if seat is not None:
                token = ""  # claimed below as a token's seat is
        if token is not None:
            th = hash_token(token) if token else ""
            if token:
                seat = room.table.seat_of_token(th)
                if seat is None and room.table.revoked_by(th) is None:
                    # a replica may not have the join's event yet: read it again, then look
                    if await self.owners.refresh(room):
                        seat = room.table.seat_of_token(th)
                if seat is not None and room.table.seats[seat].account not in (None, account):
                    raise BadToken("That seat belongs to a registered player: sign in as them to play it.")
            if seat is None:
                how = room.table.revoked_by(th)
                if how is EventKind.REPLACED:
                    raise TokenRevoked("You left this game: a bot plays that seat now, and this token holds no seat.")
                if how is EventKind.SEAT_FREED:
                    raise TokenRevoked(
                        "That seat was given up before the start (left, removed by the host, or not "
                        "connected within the grace period); join again to play."
                    )
                raise BadToken("That token holds no seat at this table.")
            self.scheduler.cancel(room, ("grace", seat))
            if room.table.seats[seat].returnable:
                await self.run(room, Return(seat))
        if self.rooms.get(room.code) is not room:
            # it left memory while this socket was between its look-up and its
            # hello: no copy was loaded meanwhile (get_room finds held rooms)
            self._gone.pop(room.code, None)
            if self.rooms.setdefault(room.code, room) is room and not self.owners.owns(room):
                await self.owners.loaded(room)  # a replica dropped meantime: follow it again
        room.attach(conn, seat)
        conn.hello_done = True
        if seat is not None:
            self.owners.seats_changed(room)  # every worker's grace sees this socket (presence)
        return seat

    def goodbye(self, room: Room, conn: Conn) -> None:
        """``conn`` closed: presence, and the grace period of a seat left with no client."""
        if not room.detach(conn):
            return
        seat = conn.seat
        t = room.table
        owner = self.owners.owns(room)
        if seat is not None:
            self.owners.seats_changed(room)
            if owner and t.is_live and t.seats[seat].kind is SeatKind.HUMAN:
                self.turns.start_grace(room, seat)  # the owner's alone: a replica never gives a seat up
        if not t.is_live or not owner:
            # a finished table, or a replica of a table another worker runs (.replica):
            # it leaves memory after its last client (before, replicas stayed for good)
            self.turns.evict_later(room)
        self.tell.presence(room)

    async def leave(self, room: Room, seat: int, reason: Departure) -> None:
        """``seat``'s person gives it up: for good (``LEAVE``: the token is
        revoked), or unconnected past the grace period (``GRACE``)."""
        await self.run(room, Leave(seat, reason, self.turns.stand_in_name()))

    async def move(self, room: Room, seat: int, action: Any, show: tuple[int, ...], *, client: bool = False) -> bool:
        """A bid, challenge or calza for ``seat``: checked by the engine (once),
        the dice of any reroll and of the next deal rolled, stored, applied, told.

        :param client: the move came from a person's client (refused for a seat a bot took over).
        :raises LiarsDiceError: when refused (nothing changed).
        """
        if client:
            self.turns.check_reveal(room)
        try:
            await self.run(room, Move(seat, action, show, False, client, None))
        except Stale:  # pragma: no cover - a client's move has no expected move number
            return False
        return True
