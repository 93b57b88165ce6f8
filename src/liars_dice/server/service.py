"""The tables service: creating, joining, playing, and everything that follows
a change (storing, bots, timers, telling the clients).

Every change follows one path, under the table's lock: check the request
(nothing changes if it is refused), make the events, store them (committed),
apply them to the table (:meth:`Table.apply_event`), then schedule what comes
next and send every client its own view.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import unicodedata
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from ..bots import REGISTRY, Bot
from ..engine import (
    CHALLENGE,
    PRESETS,
    SEED_PRESETS,
    Action,
    Bid,
    LiarsDiceError,
    Phase,
    Rules,
    SecureDice,
)
from ..records import record_from_state
from . import bots_runner, fairness, hub
from .bots_runner import bot_names
from .config import Settings
from .hub import Conn
from .messages import (
    AddBotMsg,
    BidMsg,
    ChallengeMsg,
    ChatMsg,
    CreateTable,
    Hello,
    JoinTable,
    LeaveMsg,
    PingMsg,
    RemoveBotMsg,
    StartMsg,
)
from .security import hash_token, new_code, new_token, normalize_code
from .store import Op, Store, utcnow
from .tables import Table
from .timers import TurnScheduler
from .views import replay_steps, state_message

log = logging.getLogger("liars_dice.server")

NICKNAME_MAX = 24
MAX_DICE_PER_PLAYER = 10
#: Finished tables with nobody watching leave memory after this many seconds.
FINISHED_TTL = 300.0


class ServiceError(Exception):
    """A refused request. :ivar code: stable code. :ivar status: HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def clean_nickname(raw: str) -> str:
    """A nickname trimmed, 1-24 printable characters.

    :raises ServiceError: ``name/invalid`` otherwise.
    """
    name = " ".join(raw.split())
    if not 1 <= len(name) <= NICKNAME_MAX or any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise ServiceError("name/invalid", f"A nickname has 1 to {NICKNAME_MAX} printable characters.")
    return name


class TableService(TurnScheduler):
    """Holds the live tables and runs them. One per app."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self.tables: dict[str, Table] = {}
        self.dice = SecureDice()
        self._stand_ins: dict[str, Bot] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- life cycle -------------------------------------------------------------

    async def startup(self) -> None:
        """Rebuild every unfinished table from its events and resume it."""
        ids = await asyncio.to_thread(self.store.unfinished_table_ids)
        for table_id in ids:
            events = await asyncio.to_thread(self.store.events, table_id)
            table = Table.rebuild(events)
            self.tables[table.code] = table
            await self._resume(table)
        if ids:
            log.info("resumed %d tables", len(ids))

    async def _resume(self, table: Table) -> None:
        async with table.lock:
            if table.status == "playing" and table.waiting_for_dice:  # pragma: no cover - events are stored together
                assert table.state is not None
                await self._commit(table, [("dealt", fairness.deal(table.state)[1])])
        for s in table.seats:
            if s.kind == "human" and table.status in ("open", "playing"):
                self._start_grace(table, s.index)
        self._schedule(table)

    async def shutdown(self) -> None:
        for table in self.tables.values():
            for t in [table.turn_task, *table.grace_tasks.values()]:
                if t is not None:
                    t.cancel()
        for t in list(self._tasks):
            t.cancel()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- storing ----------------------------------------------------------------

    async def _commit(
        self,
        table: Table,
        events: Sequence[tuple[str, dict[str, Any]]],
        pre_ops: Iterable[Op] = (),
        post_ops: Iterable[Op] = (),
    ) -> None:
        """Store ``events`` (committed), then apply them. Call under ``table.lock``.
        If storing fails, nothing changes."""
        ops = list(pre_ops)
        seq = table.seq
        for kind, payload in events:
            seq += 1
            ops.append(Store.op_event(table.id, seq, kind, payload))
        ops.extend(post_ops)
        await self.store.write(ops)
        for kind, payload in events:
            table.apply_event(kind, payload)
        table.seq = seq

    # -- tables -------------------------------------------------------------------

    async def get_table(self, code: str) -> Table:
        """The table with join code ``code`` (loaded from the database if it is
        finished and not in memory).

        :raises ServiceError: ``table/not_found``.
        """
        code = normalize_code(code)
        table = self.tables.get(code)
        if table is not None:
            return table
        if len(code) > 16:
            raise ServiceError("table/not_found", "There is no table with that code.", 404)
        table_id = await asyncio.to_thread(self.store.table_id_for_code, code)
        if table_id is None:
            raise ServiceError("table/not_found", f"There is no table with code {code}.", 404)
        events = await asyncio.to_thread(self.store.events, table_id)
        table = self.tables.setdefault(code, Table.rebuild(events))
        table.finished_at = utcnow()
        return table

    def lobby(self) -> list[dict[str, Any]]:
        """Open public tables with an empty seat, newest first."""
        open_tables = [
            t for t in self.tables.values() if t.status == "open" and not t.private and t.empty_seats()
        ]
        open_tables.sort(key=lambda t: t.created_at, reverse=True)
        return [t.summary() for t in open_tables[:200]]

    def _sweep(self) -> None:
        now = utcnow()
        for code, t in list(self.tables.items()):
            if t.status in ("finished", "closed") and not t.conns:
                if t.finished_at is None:
                    t.finished_at = now
                elif (now - t.finished_at).total_seconds() > FINISHED_TTL:
                    del self.tables[code]

    def _rules_for(self, req: CreateTable) -> Rules:
        if req.preset not in PRESETS:
            raise ServiceError(
                "table/invalid", f"There is no rule set called {req.preset!r}; choose from {', '.join(PRESETS)}."
            )
        rules = PRESETS[req.preset]
        if req.options:
            opts = {k: v for k, v in req.options.items() if k != "name"}
            try:
                rules = rules.with_options(**opts)
            except (LiarsDiceError, TypeError, ValueError) as e:
                msg = e.message if isinstance(e, LiarsDiceError) else f"Bad rule option: {e}."
                raise ServiceError("table/invalid", msg) from None
            if not isinstance(rules.dice_per_player, int) or not 1 <= rules.dice_per_player <= MAX_DICE_PER_PLAYER:
                raise ServiceError("table/invalid", f"Each player starts with 1 to {MAX_DICE_PER_PLAYER} dice here.")
        if not rules.min_players <= req.seats <= rules.max_players:
            raise ServiceError(
                "table/invalid",
                f"{rules.name} is played by {rules.min_players} to {rules.max_players} players, not {req.seats}.",
            )
        return rules

    async def create_table(self, req: CreateTable, base_url: str) -> dict[str, Any]:
        """``POST /api/tables``. :raises ServiceError: on a bad request."""
        name = clean_nickname(req.nickname)
        rules = self._rules_for(req)
        self._sweep()
        for _ in range(20):
            code = new_code()
            if code not in self.tables and await asyncio.to_thread(self.store.table_id_for_code, code) is None:
                break
        else:  # pragma: no cover - 31^6 codes
            raise ServiceError("table/invalid", "No free join code was found; try again.", 503)
        created_at = utcnow()
        created = {
            "id": uuid.uuid4().hex, "code": code, "preset": req.preset, "rules": rules.to_dict(),
            "n_seats": req.seats, "turn_timer": req.turn_timer, "private": req.private,
            "created_at": created_at.isoformat(),
        }
        table = Table.from_created(created)
        token = new_token()
        th = hash_token(token)
        row = {
            "id": table.id, "code": code, "created_at": created_at, "status": "open", "private": req.private,
            "preset": req.preset, "n_seats": req.seats, "turn_timer": req.turn_timer,
        }
        async with table.lock:
            await self._commit(
                table,
                [("joined", {"seat": 0, "name": name, "token_hash": th})],
                pre_ops=[Store.op_insert_table(row), Store.op_event(table.id, 1, "created", created)],
                post_ops=[Store.op_seat(table.id, 0, name, th)],
            )
        self.tables[code] = table
        return {
            "code": code, "share_url": f"{base_url.rstrip('/')}/#/table/{code}", "seat": 0, "token": token,
            "table": table.summary(),
        }

    async def join(self, code: str, req: JoinTable) -> dict[str, Any]:
        """``POST /api/tables/{code}/join``. :raises ServiceError: on a refusal."""
        table = await self.get_table(code)
        name = clean_nickname(req.nickname)
        async with table.lock:
            if table.status != "open":
                raise ServiceError("table/started", "This game has already started: you can watch it.", 409)
            empty = table.empty_seats()
            if not empty:
                raise ServiceError("table/full", "Every seat at this table is taken: you can watch.", 409)
            if req.seat is not None:
                if req.seat >= table.n_seats:
                    raise ServiceError("seat/taken", f"This table has seats 0 to {table.n_seats - 1}.", 409)
                if req.seat not in empty:
                    raise ServiceError("seat/taken", f"Seat {req.seat} is taken.", 409)
                seat = req.seat
            else:
                seat = empty[0]
            if name in table.names:
                raise ServiceError("name/taken", f"Someone at this table is already called {name!r}.", 409)
            token = new_token()
            th = hash_token(token)
            await self._commit(
                table, [("joined", {"seat": seat, "name": name, "token_hash": th})],
                post_ops=[Store.op_seat(table.id, seat, name, th)],
            )
        hub.broadcast_table(table)
        return {"code": table.code, "seat": seat, "token": token, "table": table.summary()}

    async def games_of_name(self, name: str) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.store.games_of, name=name)

    async def games_of_tokens(self, tokens: Sequence[str]) -> list[dict[str, Any]]:
        hashes = [hash_token(t) for t in tokens]
        if not hashes:
            return []
        return await asyncio.to_thread(self.store.games_of, token_hashes=hashes)

    async def record(self, code: str) -> dict[str, Any]:
        """The finished game's record (RECORD-FORMAT.md). :raises ServiceError: before the end."""
        table = await self.get_table(code)
        if table.status != "finished" or table.state is None:
            raise ServiceError("game/not_finished", "The record is available once the game is over.", 409)
        return record_from_state(table.state, table.start, fairness.record_seeds(table.state, table.seeds))

    async def replay(self, code: str) -> dict[str, Any]:
        table = await self.get_table(code)
        if table.status != "finished" or table.state is None or table.game is None:
            raise ServiceError("game/not_finished", "The replay is available once the game is over.", 409)
        st = table.state
        return {
            "record": record_from_state(st, table.start, fairness.record_seeds(st, table.seeds)),
            "rules": table.rules_dict,
            "players": list(table.game.players),
            "steps": replay_steps(table.game, table.start, st),
            "winner": table.game.players[st.winner] if st.winner is not None else None,
        }

    # -- connections --------------------------------------------------------------

    async def hello(self, table: Table, conn: Conn, msg: Hello) -> None:
        """Attach ``conn`` to its seat (token) or as a visitor."""
        seat: int | None = None
        if msg.token is not None:
            seat = table.seat_of_token(hash_token(msg.token))
            if seat is None:
                raise ServiceError("auth/bad_token", "That token holds no seat at this table.")
        if seat is not None:
            self._cancel_grace(table, seat)
            s = table.seats[seat]
            if s.returnable and table.status == "playing":
                async with table.lock:
                    if s.returnable and table.status == "playing":
                        await self._commit(table, [("returned", {"seat": seat})])
                self._after_change(table, table_changed=True)
        conn.seat = seat
        conn.hello_done = True
        table.conns.add(conn)
        conn.send({
            "type": "welcome", "seat": seat, "name": table.seats[seat].name if seat is not None else None,
            "host": seat == table.host, "table": table.summary(), "id": msg.id,
        })
        for line in table.chat:
            conn.send({"type": "chat", **line, "history": True})
        if table.state is not None:
            ev = table.last_event
            table.last_event = {"kind": "sync"}
            try:
                conn.send(state_message(table, seat))
            finally:
                table.last_event = ev
        hub.broadcast_presence(table)

    def goodbye(self, table: Table, conn: Conn) -> None:
        """``conn`` closed: presence, and the grace period for a seat left with no client."""
        table.conns.discard(conn)
        if not conn.hello_done:
            return
        seat = conn.seat
        if seat is not None and table.seats[seat].kind == "human" and seat not in table.connected_seats():
            if table.status in ("open", "playing"):
                self._start_grace(table, seat)
        hub.broadcast_presence(table)

    async def handle(self, table: Table, conn: Conn, msg: Any) -> None:
        """One parsed client message after ``hello``.

        :raises ServiceError: or :class:`LiarsDiceError` when refused (nothing changed).
        """
        if isinstance(msg, PingMsg):
            conn.send({"type": "pong", "id": msg.id})
            return
        if isinstance(msg, Hello):
            raise ServiceError("message/invalid", "This connection has already said hello.")
        seat = conn.seat
        if seat is None:
            raise ServiceError("seat/visitor", "Visitors watch: take a seat to play or chat.")
        if isinstance(msg, BidMsg):
            await self.move(table, seat, Bid(msg.quantity, msg.face), tuple(msg.show), client=True)
        elif isinstance(msg, ChallengeMsg):
            await self.move(table, seat, CHALLENGE, (), client=True)
        elif isinstance(msg, ChatMsg):
            await self.chat(table, seat, msg.text)
        elif isinstance(msg, AddBotMsg):
            await self.add_bot(table, seat, msg.bot, msg.seat)
        elif isinstance(msg, RemoveBotMsg):
            await self.remove_bot(table, seat, msg.seat)
        elif isinstance(msg, StartMsg):
            await self.start(table, seat)
        elif isinstance(msg, LeaveMsg):
            await self.leave(table, seat, "leave")
        else:  # pragma: no cover - the message union is closed
            raise ServiceError("message/invalid", "Unknown message.")
        conn.send({"type": "ack", "id": msg.id})

    # -- lobby actions ------------------------------------------------------------

    def _require_host(self, table: Table, seat: int) -> None:
        if seat != table.host:
            raise ServiceError("table/not_host", "Only the host can do that.")
        if table.status != "open":
            raise ServiceError("table/started", "The game has already started.")

    async def add_bot(self, table: Table, seat: int, bot: str, where: int | None) -> None:
        async with table.lock:
            self._require_host(table, seat)
            if bot not in REGISTRY:
                raise ServiceError("bot/unknown", f"There is no bot called {bot!r}; choose from {', '.join(bot_names())}.")
            empty = table.empty_seats()
            if where is None:
                if not empty:
                    raise ServiceError("table/full", "Every seat is taken.")
                where = empty[0]
            elif where >= table.n_seats or where not in empty:
                raise ServiceError("seat/taken", f"Seat {where} is not an empty seat.")
            name = f"{bot} bot {where + 1}"
            while name in table.names:
                name += "'"
            await self._commit(table, [("bot_added", {"seat": where, "bot": bot, "name": name})])
        hub.broadcast_table(table)

    async def remove_bot(self, table: Table, seat: int, where: int) -> None:
        async with table.lock:
            self._require_host(table, seat)
            if where >= table.n_seats or table.seats[where].kind != "bot":
                raise ServiceError("seat/taken", f"Seat {where} holds no bot.")
            await self._commit(table, [("seat_freed", {"seat": where})])
        hub.broadcast_table(table)

    async def start(self, table: Table, seat: int) -> None:
        async with table.lock:
            self._require_host(table, seat)
            if table.empty_seats():
                raise ServiceError("table/seats_empty", "Fill every seat (invite players or add bots) before the start.")
            players = [s.name for s in table.seats]
            first = secrets.randbelow(table.n_seats)
            assert all(players)
            # Trial run: the engine accepts these players (nothing stored yet).
            from ..engine import Game

            _, dealt = fairness.deal(Game.create(table.rules, players).initial_state(first))
            await self._commit(
                table,
                [("started", {"players": players, "start": first}), ("dealt", dealt)],
                post_ops=[Store.op_update_table(table.id, status="playing", players=players)],
            )
        self._after_change(table, table_changed=True)

    async def leave(self, table: Table, seat: int, reason: str) -> None:
        """Leave for good (``reason`` ``leave``) or gone past the grace period (``grace``)."""
        async with table.lock:
            s = table.seats[seat]
            if s.kind != "human":
                return
            if table.status == "open":
                events: list[tuple[str, dict[str, Any]]] = [("seat_freed", {"seat": seat})]
                post: list[Op] = []
                if seat == table.host:
                    humans = [x.index for x in table.seats if x.kind == "human" and x.index != seat]
                    if humans:
                        events.append(("host", {"seat": humans[0]}))
                    else:
                        events.append(("closed", {}))
                        post.append(Store.op_update_table(table.id, status="closed"))
                await self._commit(table, events, post_ops=post)
                for c in table.conns:
                    if c.seat == seat:
                        c.seat = None  # the seat is free again: its clients now watch
            elif table.status == "playing":
                await self._commit(table, [("replaced", {"seat": seat, "bot": bots_runner.stand_in_name(self.settings.timeout_bot), "reason": reason})])
            else:
                return
        self._after_change(table, table_changed=True)

    async def chat(self, table: Table, seat: int, text: str) -> None:
        text = " ".join(text.split())
        if not text or any(unicodedata.category(ch) == "Cc" for ch in text):
            raise ServiceError("message/invalid", "A chat line needs some printable text.")
        async with table.lock:
            line = {"seat": seat, "name": table.seats[seat].name, "text": text, "at": utcnow().isoformat()}
            await self._commit(table, [("chat", line)])
        hub.broadcast(table, {"type": "chat", **line})

    # -- play -------------------------------------------------------------------------

    async def move(
        self, table: Table, seat: int, action: Action, show: tuple[int, ...], *, by_bot: bool = False,
        expect_move: int | None = None, client: bool = False,
    ) -> bool:
        """A bid or challenge for ``seat``: checked by the engine, the dice of any
        reroll and of the next deal derived from the round's fair-dice seed (:mod:`.fairness`), stored, applied.

        :param client: the move came from a person's client (refused for a seat a bot took over).
        :returns: False when ``expect_move`` no longer matches (a stale bot move).
        :raises ServiceError: before the start or after the end.
        :raises LiarsDiceError: when the engine refuses the move.
        """
        async with table.lock:
            if expect_move is not None and table.move_number != expect_move:
                return False
            if table.status == "finished":
                raise ServiceError("game/over", "The game is over.")
            if table.status != "playing" or table.state is None:
                raise ServiceError("table/not_started", "The game has not started yet.")
            if client and table.seats[seat].kind == "bot":
                raise ServiceError("seat/replaced", "A bot has taken over this seat.")
            state = table.state
            nxt = state.apply(action, show, seat=seat)
            payload: dict[str, Any] = {
                "seat": seat, "bid": action.to_json() if isinstance(action, Bid) else None,
                "challenge": not isinstance(action, Bid), "show": list(show), "reroll": [], "by_bot": by_bot,
            }
            if nxt.phase is Phase.REROLL:
                nxt = fairness.reroll(nxt, table.seeds, self.dice)
                payload["reroll"] = list(nxt.moves[-1].reroll)
            events: list[tuple[str, dict[str, Any]]] = [("move", payload)]
            post: list[Op] = []
            if nxt.phase is Phase.DEAL:
                nxt, dealt = fairness.deal(nxt)
                events.append(("dealt", dealt))
            finished = nxt.is_over
            if finished:
                assert nxt.winner is not None
                winner = nxt.game.players[nxt.winner]
                events.append(("finished", {"winner": winner}))
                post.append(Store.op_update_table(table.id, status="finished", winner=winner, finished_at=utcnow()))
            await self._commit(table, events, post_ops=post)
            if finished:
                table.finished_at = utcnow()
        self._after_change(table, table_changed=finished)
        return True

    # -- telling the clients ----------------------------------------------------------

    def _after_change(self, table: Table, *, table_changed: bool = False) -> None:
        self._schedule(table)
        if table_changed:
            hub.broadcast_table(table)
        if table.state is not None:
            hub.broadcast_state(table)


def config_json() -> dict[str, Any]:
    """``GET /api/config``."""
    return {
        "presets": {name: r.to_dict() for name, r in PRESETS.items()},
        "seed_presets": list(SEED_PRESETS),
        "option_choices": {
            "ordering": ["plain", "track"], "loss": ["one", "difference"],
            "exact": ["challenger_loses", "all_but_bidder"], "next_opener": ["loser", "winner"],
        },
        "bots": bot_names(),
        "seats": {"min": 2, "max": 6},
        "turn_timer": {"min": 5, "max": 600, "choices": [None, 15, 30, 60, 120]},
        "limits": {"nickname_max": NICKNAME_MAX, "chat_max": 300, "message_max_bytes": 4096,
                   "dice_per_player_max": MAX_DICE_PER_PLAYER},
    }
