"""The tables service: creating, joining, playing, and everything that follows
a change (storing, timers, telling the clients).

Every change follows one path, under the room's lock (:meth:`TableService._run`):
the command becomes events by :func:`~liars_dice.server.commands.step` (checked;
nothing changes if it is refused), the events are stored (committed), the
room's table becomes the new value, then :meth:`TableService._after` schedules
what comes next and tells the clients. The scheduler and the broadcaster are
passed in.

Seats are claimed by connecting: a person's seat whose owner has no websocket
(never said ``hello`` since joining, or every socket closed) is given up after
``Settings.grace`` seconds: freed before the start, played by a bot after it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from ..engine import (
    CALZA,
    CHALLENGE,
    PRESETS,
    SEED_PRESETS,
    Bid,
    DiceSource,
    LiarsDiceError,
    Phase,
    Rules,
    RulesError,
    SecureDice,
)
from ..engine.summary import CHOICE_WORDS, OPTION_LABELS
from ..records import parse_rules_text, record_from_state
from ..engine.echo import echo
from .explain import bounded
from . import bots_runner, fairness
from .bots_runner import bot_names, default_bot
from .config import Settings
from .errors import (
    ChatInvalid,
    BadToken,
    ChatFull,
    GameNotFinished,
    MessageInvalid,
    NameInvalid,
    ServerBusy,
    SeatVisitor,
    TableInvalid,
    TableNotFound,
    TokenRevoked,
)
from .conn import Conn
from .hub import Broadcaster
from .messages import (
    AddBotMsg,
    BidMsg,
    CalzaMsg,
    ChallengeMsg,
    ChatMsg,
    CreateTable,
    Hello,
    JoinTable,
    LeaveMsg,
    PingMsg,
    RemoveBotMsg,
    RulesQuery,
    StartMsg,
)
from .listing import safe_entries
from .room import Room
from .security import hash_token, is_code, new_code, new_token, normalize_code
from .store import Op, Store, utcnow
from .commands import AddBot, Chat, Command, Join, Leave, Move, RemoveSeat, Return, Settle, Stale, Start, step
from .tables import Departure, Event, EventKind, SeatKind, Table, TableStatus, created, rebuild, rules_summary
from .text import clean_text
from .timers import Scheduler
from .views import replay_steps, state_message_text

log = logging.getLogger(__name__)

#: Finished games per seated person the table option "bots learn" fits a model on.
LEARN_GAMES = 50
#: Seconds a "bots learn" model of a (name, rule set) is reused before it is fitted
#: again: a table started by anyone under a prolific player's name cost up to 8 s of
#: CPU (five names, 50 games each), and the same again at every such start (attack7).
LEARN_CACHE_SECONDS = 600.0
#: The most (name, rule set) models kept at once; the oldest used goes first.
LEARN_CACHE_SIZE = 512

#: Events after which the table summary changes.
_TABLE_EVENTS = frozenset({
    EventKind.JOINED, EventKind.BOT_ADDED, EventKind.SEAT_FREED, EventKind.HOST, EventKind.CLOSED,
    EventKind.STARTED, EventKind.REPLACED, EventKind.RETURNED, EventKind.FINISHED,
})
#: Events after which the game view changes.
_GAME_EVENTS = frozenset({
    EventKind.STARTED, EventKind.DEALT, EventKind.MOVE, EventKind.REPLACED, EventKind.RETURNED, EventKind.FINISHED,
})


def clean_nickname(raw: str, max_len: int = 24) -> str:
    """A nickname by the text rules (:func:`~liars_dice.server.text.clean_text`:
    NFC, no control, format or bidi characters, white space folded), 1 to
    ``max_len`` characters.

    :raises NameInvalid: otherwise.
    """
    return clean_text(raw, "A nickname", max_len, error=NameInvalid)


def clean_chat(raw: str, max_len: int = 300) -> str:
    """A chat line by the text rules (:func:`~liars_dice.server.text.clean_text`),
    1 to ``max_len`` characters.

    :raises ChatInvalid: otherwise.
    """
    return clean_text(raw, "A chat line", max_len, error=ChatInvalid)


def _ops(table_id: str, first_seq: int, events: Sequence[Event]) -> list[Op]:
    """The database writes for ``events`` numbered from ``first_seq``: the
    events, plus the ``seats`` rows and ``tables`` row updates they imply."""
    ops = [Store.op_event(table_id, first_seq + i, e.kind.value, e.payload) for i, e in enumerate(events)]
    for e in events:
        p = e.payload
        if e.kind is EventKind.JOINED:
            ops.append(Store.op_seat(table_id, p["seat"], p["name"], p["token_hash"]))
        elif e.kind is EventKind.STARTED:
            ops.append(Store.op_update_table(table_id, status=TableStatus.PLAYING.value, players=p["players"]))
        elif e.kind is EventKind.FINISHED:
            ops.append(Store.op_update_table(
                table_id, status=TableStatus.FINISHED.value, winner=p["winner"], finished_at=utcnow()
            ))
        elif e.kind is EventKind.CLOSED:
            ops.append(Store.op_update_table(table_id, status=TableStatus.CLOSED.value))
    return ops


class TableService:
    """Holds the live rooms and runs them. One per app.

    :param scheduler: runs the timers (a new :class:`Scheduler` if ``None``).
    :param broadcaster: tells the clients (a new :class:`Broadcaster` if ``None``).
    :param dice: where each round seed comes from, one byte per 256-faced die (:class:`SecureDice` if ``None``; the dice are derived from the seeds, see :mod:`.fairness`).
    """

    def __init__(
        self, settings: Settings, store: Store, scheduler: Scheduler | None = None,
        broadcaster: Broadcaster | None = None, dice: DiceSource | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.scheduler = scheduler or Scheduler()
        self.tell = broadcaster or Broadcaster(settings.presence_interval, settings.presence_fanout)
        self.dice: DiceSource = dice or SecureDice()
        self.rooms: dict[str, Room] = {}
        #: "bots learn" models by (name, preset, rules): (monotonic expiry, model or None)
        self._learn_cache: OrderedDict[tuple[str, str, Any], tuple[float, Any]] = OrderedDict()
        self._learn_lock: asyncio.Lock | None = None  # made on the event loop, at first use

    # -- life cycle -------------------------------------------------------------

    async def startup(self) -> None:
        """Rebuild every unfinished table from its events and resume it."""
        ids = await asyncio.to_thread(self.store.unfinished_table_ids)
        for table_id in ids:
            room = Room(rebuild(await asyncio.to_thread(self.store.events, table_id), self.settings.chat_history))
            self.rooms[room.code] = room
            await self._run(room, Settle())  # a deal due (never: a round's events are stored together)
            for seat in room.table.humans():
                self._start_grace(room, seat)
            self._schedule_turn(room)
        if ids:
            log.info("resumed %d tables", len(ids))

    async def shutdown(self) -> None:
        await self.scheduler.shutdown()

    # -- the one path of a change --------------------------------------------------

    async def _run(self, room: Room, command: Command) -> list[Event]:
        """Check ``command``, store its events, apply them, then tell and schedule.

        :raises LiarsDiceError: the command is refused; nothing changed.
        :raises Stale: a timer's move for a move that has passed.
        """
        async with room.lock:
            new, events = step(room.table, command, self.dice)
            if not events:
                return events
            await self.store.write(_ops(new.id, room.table.seq + 1, events))
            room.table = new
        self._after(room, events)
        return events

    def _after(self, room: Room, events: Sequence[Event]) -> None:
        """What follows stored ``events``: seats given up lose their clients'
        view and timers, the turn is scheduled, the clients are told."""
        t = room.table
        kinds = {e.kind for e in events}
        unseated = False
        for e in events:
            if e.kind is EventKind.JOINED:
                self._start_grace(room, e.payload["seat"])
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
        if not t.is_live:
            for seat in range(t.n_seats):
                self.scheduler.cancel(room, ("grace", seat))
            self._evict_later(room)
        if kinds & _GAME_EVENTS:
            self._schedule_turn(room)
        if kinds & _TABLE_EVENTS:
            self.tell.table(room)
        if unseated:
            self.tell.presence(room)
        if kinds & _GAME_EVENTS or unseated:
            self.tell.state(room)
        for e in events:
            if e.kind is EventKind.CHAT:
                self.tell.chat(room, e.payload)

    # -- timers ---------------------------------------------------------------------

    def _start_grace(self, room: Room, seat: int) -> None:
        """The grace period of ``seat``'s person, unless they are connected or it runs."""
        if room.is_connected(seat) or self.scheduler.pending(room, ("grace", seat)):
            return
        self.scheduler.after(room, ("grace", seat), self.settings.grace, lambda: self._grace_over(room, seat))

    async def _grace_over(self, room: Room, seat: int) -> None:
        if not room.is_connected(seat) and room.table.seats[seat].kind is SeatKind.HUMAN:
            await self.leave(room, seat, Departure.GRACE)

    def _schedule_turn(self, room: Room) -> None:
        """Who moves next, and when: a bot after its pause, or the turn timer's
        stand-in for a person. Sets ``room.deadline`` for the views."""
        t = room.table
        want: tuple[int, int, str | None] | None = None  # (move number, seat, bot or None: the timer)
        if t.status is TableStatus.PLAYING and t.state is not None and t.state.phase is Phase.BID:
            seat = t.state.to_move
            assert seat is not None
            s = t.seats[seat]
            if s.kind is SeatKind.BOT or t.turn_timer:
                want = (t.move_number, seat, s.bot if s.kind is SeatKind.BOT else None)
        if want == room.turn_for and (want is None or self.scheduler.pending(room, "turn")):
            return
        room.turn_for = want
        room.deadline = None
        if want is None:
            self.scheduler.cancel(room, "turn")
            return
        mn, seat, bot_name = want
        if bot_name is not None:
            bot, by_bot, delay = room.bot(seat), t.seats[seat].replaced, self.settings.bot_delay
        else:
            assert t.turn_timer is not None
            bot, by_bot, delay = room.stand_in(self._stand_in_name()), True, float(t.turn_timer)
            room.deadline = time.time() + delay
        self.scheduler.after(room, "turn", delay, lambda: self._bot_turn(room, seat, mn, bot, by_bot))

    async def _bot_turn(self, room: Room, seat: int, expect: int, bot: Any, by_bot: bool) -> None:
        """A bot's move for ``seat``, unless the game moved on."""
        t = room.table
        if t.move_number != expect or t.status is not TableStatus.PLAYING or t.state is None:
            return
        view = t.state.view(seat)
        kind = t.seats[seat].kind
        if t.bots_learn and kind is SeatKind.BOT and seat not in room.models_given:
            await self._give_models(room, seat, bot)
        d = await bots_runner.decide(bot, view, f"at table {t.code}")
        if room.table.seats[seat].kind is not kind:
            # the person came back to the seat (or left it) while the bot thought:
            # the move is theirs now (attack7: the bot still made it for them)
            return
        try:
            await self.move(room, seat, d.action, d.show, by_bot=by_bot, expect_move=expect)
        except LiarsDiceError:
            log.exception("bot %s made an illegal move at table %s", getattr(bot, "name", bot), t.code)
            acts = view.legal_actions()
            await self.move(room, seat, random.choice(acts), (), by_bot=by_bot, expect_move=expect)

    async def _give_models(self, room: Room, seat: int, bot: Any) -> None:
        """The table option "bots learn from this player's past games": a bot that
        takes opponent models (``set_models``) gets one per seated person, fitted
        on their last :data:`LEARN_GAMES` finished public games under the table's
        rules (a model is of one rule set), once per seat. The models are given
        as untrusted (``trusted=False``): names are not identities. The games
        are read, rebuilt and fitted in a worker thread, and not kept in memory
        (five persons' 250 games rebuilt on the event loop stalled every table
        for about 8 s, 32 ms a game of six seats and ten dice). Fits are made
        one at a time server-wide and reused (:meth:`_learn`)."""
        room.models_given.add(seat)
        set_models = getattr(bot, "set_models", None)
        if set_models is None:
            return
        if room.learned is None:
            t = room.table
            names = [s.name for s in t.seats if s.kind is SeatKind.HUMAN and s.name is not None]
            room.learned = await self._learn(names, t.code, t.preset, t.rules)
        # fitted on games played under a name, which anyone can take: the
        # plans against these models wait for in-game evidence (bots/strong.py, step 4)
        set_models(room.learned, trusted=False)

    async def _learn(self, names: Sequence[str], code: str, preset: str, rules: Any) -> dict[str, Any]:
        """:meth:`_learned_models` of ``names``, bounded: one fit at a time
        server-wide (a worker thread: at most one core, whoever starts tables),
        and each (name, preset, rules) model kept :data:`LEARN_CACHE_SECONDS`
        (at most :data:`LEARN_CACHE_SIZE` of them, least recently used out
        first), so tables started again and again under the same prolific
        names fit them once. A person's games finished meanwhile count from
        the next fit. The models are shared: bots copy what they are given."""
        if self._learn_lock is None:
            self._learn_lock = asyncio.Lock()
        cache = self._learn_cache
        async with self._learn_lock:
            now = time.monotonic()
            learned: dict[str, Any] = {}
            missing: list[str] = []
            for name in dict.fromkeys(names):
                hit = cache.get((name, preset, rules))
                if hit is not None and hit[0] > now:
                    cache.move_to_end((name, preset, rules))
                    if hit[1] is not None:
                        learned[name] = hit[1]
                else:
                    missing.append(name)
            if missing:
                fitted = await asyncio.to_thread(self._learned_models, missing, code, preset, rules)
                expires = time.monotonic() + LEARN_CACHE_SECONDS
                for name in missing:
                    cache[(name, preset, rules)] = (expires, fitted.get(name))
                    cache.move_to_end((name, preset, rules))
                    if name in fitted:
                        learned[name] = fitted[name]
                while len(cache) > LEARN_CACHE_SIZE:
                    cache.popitem(last=False)
            return learned

    def _learned_models(self, names: Sequence[str], code: str, preset: str, rules: Any) -> dict[str, Any]:
        """Models of ``names`` by name, each fitted on the person's last
        :data:`LEARN_GAMES` finished public games of ``preset`` (other than table
        ``code``) that are under ``rules``; none for a person without one.
        Blocking (database and CPU): for a worker thread."""
        from ..bots.opponent_model import ModelError, fit

        learned: dict[str, Any] = {}
        for name in names:
            codes = [g["code"] for g in self.store.games_of(name=name)
                     if g.get("code") != code and g.get("rules") == preset][:LEARN_GAMES]
            records = []
            for c in codes:
                table_id = self.store.table_id_for_code(c)
                if table_id is None:
                    continue
                try:
                    past = rebuild(self.store.events(table_id), 0)
                except (LiarsDiceError, ValueError):
                    continue
                if past.status is not TableStatus.FINISHED or past.state is None:
                    continue
                records.append(_record_of(past))
            if records:
                try:
                    learned[name] = fit(records, name, rules=rules)
                except ModelError:
                    continue
        return learned

    def _evict_later(self, room: Room) -> None:
        """A finished or closed table leaves memory ``finished_ttl`` seconds after
        its last client (it is reloaded from the database when asked for)."""
        if room.conns:
            return

        async def evict() -> None:
            if not room.conns and not room.table.is_live and self.rooms.get(room.code) is room:
                del self.rooms[room.code]

        self.scheduler.after(room, "evict", self.settings.finished_ttl, evict)

    def _stand_in_name(self) -> str:
        return bots_runner.stand_in_name(self.settings.timeout_bot)

    # -- tables -------------------------------------------------------------------

    async def get_room(self, code: str) -> Room:
        """The room of join code ``code`` (loaded from the database if it is not
        in memory: a finished or closed table).

        :raises TableNotFound: no table has that code.
        """
        code = normalize_code(code)
        room = self.rooms.get(code)
        if room is not None:
            return room
        if not is_code(code):
            raise TableNotFound("There is no table with that code.")
        table_id = await asyncio.to_thread(self.store.table_id_for_code, code)
        if table_id is None:
            raise TableNotFound(f"There is no table with code {code}.")
        events = await asyncio.to_thread(self.store.events, table_id)
        room = self.rooms.get(code)
        if room is None:
            room = self.rooms[code] = Room(rebuild(events, self.settings.chat_history))
            self._evict_later(room)
        return room

    def lobby(self) -> list[dict[str, Any]]:
        """Open public tables with an empty seat, newest first."""
        rooms = [
            r for r in self.rooms.values()
            if r.table.status is TableStatus.OPEN and not r.table.private and r.table.empty_seats()
        ]
        rooms.sort(key=lambda r: r.table.created_at, reverse=True)
        # One table that fails to build or encode is left out, never the listing.
        return safe_entries(rooms[: self.settings.lobby_max], Room.summary)

    def _rules_for(self, req: CreateTable) -> Rules:
        """The rules of a create request, within the settings' limits.

        :raises TableInvalid: naming what does not fit.
        """
        st = self.settings
        if req.rules_text is not None:  # an uploaded or pasted rules file (issue 9)
            rules = self._rules_file(req.rules_text)
        else:
            rules = self._preset_with(req.preset, req.options)
        lo, hi = max(rules.min_players, st.seats_min), min(rules.max_players, st.seats_max)
        if not lo <= req.seats <= hi:
            raise TableInvalid(f"{rules.name} is played here by {lo} to {hi} players, not {echo(req.seats)}.")
        if req.turn_timer is not None and not st.turn_timer_min <= req.turn_timer <= st.turn_timer_max:
            raise TableInvalid(
                f"A turn timer runs {st.turn_timer_min} to {st.turn_timer_max} seconds, not {echo(req.turn_timer)}."
            )
        return rules

    def _preset_with(self, preset: str, options: dict[str, Any]) -> Rules:
        """A preset with some options changed, within the settings' limits.

        :raises TableInvalid: naming the unknown preset or the bad option.
        """
        st = self.settings
        if preset not in PRESETS:
            raise TableInvalid(f"There is no rule set called {echo(preset)}; choose from {', '.join(PRESETS)}.")
        rules = PRESETS[preset]
        if options:
            opts = {k: v for k, v in options.items() if k != "name"}
            try:
                rules = rules.with_options(**opts)
            except (LiarsDiceError, TypeError, ValueError) as e:
                msg = e.message if isinstance(e, LiarsDiceError) else f"Bad rule option: {bounded(str(e), 120)}."
                raise TableInvalid(msg) from None
            dpp = rules.dice_per_player
            if not isinstance(dpp, int) or not 1 <= dpp <= st.dice_per_player_max:
                raise TableInvalid(f"Each player starts with 1 to {st.dice_per_player_max} dice here.")
        return rules

    def _rules_file(self, text: str) -> Rules:
        """The rule set of a rules file's text, as a table here takes it.

        :raises TableInvalid: the file does not read, or its dice do not fit this server.
        """
        try:
            rules = parse_rules_text(text, "The rules file")
        except RulesError as e:
            raise TableInvalid(e.message) from None
        top = self.settings.dice_per_player_max
        if not 1 <= rules.dice_per_player <= top:
            raise TableInvalid(f"Each player starts with 1 to {top} dice here.")
        return rules

    def rules_summary(self, req: RulesQuery) -> dict[str, Any]:
        """``POST /api/rules/summary``: a preset with options, or a rules file's
        text (``rules_text``, the preview of issue 17), in the engine's words
        (``{"summary": [{"topic", "sentence"}, ...]}``), for the create form.

        :raises TableInvalid: naming the unknown preset, the bad option, or what the rules file gets wrong.
        """
        if req.rules_text is not None:
            return {"summary": rules_summary(self._rules_file(req.rules_text))}
        return {"summary": rules_summary(self._preset_with(req.preset, req.options))}

    async def create_table(self, req: CreateTable, base_url: str) -> dict[str, Any]:
        """``POST /api/tables``: a new open table with its creator in seat 0 (the host).

        :raises ServerError: on a bad request (nothing is stored).
        """
        name = clean_nickname(req.nickname, self.settings.nickname_max)
        rules = self._rules_for(req)
        preset = req.preset if req.rules_text is None else rules.name
        for _ in range(20):
            code = new_code()
            if code not in self.rooms and await asyncio.to_thread(self.store.table_id_for_code, code) is None:
                break
        else:  # pragma: no cover - 31^6 codes
            raise ServerBusy("No free join code was found; try again.")
        created_at = utcnow()
        payload = {
            "id": uuid.uuid4().hex, "code": code, "preset": preset, "rules": rules.to_dict(),
            "n_seats": req.seats, "turn_timer": req.turn_timer, "private": req.private,
            "created_at": created_at.isoformat(),
            **({"bots_learn": True} if req.bots_learn else {}),
        }
        table = created(payload, self.settings.chat_history)
        token = new_token()
        new, events = step(table, Join(name, hash_token(token), 0), self.dice)
        row = {
            "id": table.id, "code": code, "created_at": created_at, "status": TableStatus.OPEN.value,
            "private": req.private, "preset": preset, "n_seats": req.seats, "turn_timer": req.turn_timer,
        }
        await self.store.write([
            Store.op_insert_table(row), Store.op_event(table.id, 1, EventKind.CREATED.value, payload),
            *_ops(table.id, 2, events),
        ])
        room = self.rooms[code] = Room(new)
        self._after(room, events)
        return {
            "code": code, "share_url": f"{base_url.rstrip('/')}/#/table/{code}", "seat": 0, "token": token,
            "table": room.summary(),
        }

    async def join(self, code: str, req: JoinTable) -> dict[str, Any]:
        """``POST /api/tables/{code}/join``: a seat, claimed by connecting within
        the grace period. :raises ServerError: on a refusal."""
        room = await self.get_room(code)
        name = clean_nickname(req.nickname, self.settings.nickname_max)
        token = new_token()
        events = await self._run(room, Join(name, hash_token(token), req.seat))
        return {"code": room.code, "seat": events[0].payload["seat"], "token": token, "table": room.summary()}

    async def games_of_name(self, name: str) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.store.games_of, name=name)

    async def games_of_tokens(self, tokens: Sequence[str]) -> list[dict[str, Any]]:
        """``POST /api/my-games``: the tables these tokens took a seat at, newest
        first, one entry per table, as a player expects them:

        * a game they played is listed, also when they left it: a token
          revoked during the game (``leave``) keeps the game on the list, with
          ``"left": true`` while it is in play (the seat is a bot's for good:
          the client offers to watch, and a ``hello`` with the token gets
          ``auth/revoked``, never the seat);
        * a seat given up before the start (``leave``, removed by the host, not
          claimed within the grace period) is no game played: not listed, nor
          is a table that closed before its start.
        """
        hashes = [hash_token(t) for t in tokens]
        if not hashes:
            return []
        rows = await asyncio.to_thread(self.store.games_of, token_hashes=hashes)
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for g in rows:
            th = g.pop("token_hash")
            if g["code"] in seen or g["status"] == TableStatus.CLOSED.value:
                continue
            room = self.rooms.get(g["code"])
            if g["status"] == TableStatus.OPEN.value:
                if room is None or room.table.seat_of_token(th) is None:
                    continue  # the seat was given up before the start
            elif g["status"] == TableStatus.PLAYING.value and room is not None:
                if room.table.revoked_by(th) is not None:
                    g["left"] = True
            seen.add(g["code"])
            out.append(g)
        return out

    async def _finished(self, code: str, what: str) -> Room:
        room = await self.get_room(code)
        if room.table.status is not TableStatus.FINISHED or room.table.state is None:
            raise GameNotFinished(f"The {what} is available once the game is over.")
        return room

    async def record(self, code: str) -> dict[str, Any]:
        """The finished game's record (RECORD-FORMAT.md). :raises GameNotFinished: before the end."""
        return _record_of((await self._finished(code, "record")).table)

    async def replay(self, code: str) -> dict[str, Any]:
        """The replay page's data. :raises GameNotFinished: before the end."""
        t = (await self._finished(code, "replay")).table
        st = t.state
        assert st is not None
        return {
            "record": _record_of(t),
            "rules": t.rules_dict,
            "players": list(st.game.players),
            "steps": replay_steps(st.game, t.start, st),
            "winner": t.winner,
        }

    # -- connections --------------------------------------------------------------

    async def hello(self, room: Room, conn: Conn, msg: Hello) -> None:
        """Attach ``conn`` to its token's seat (claiming it), or as a spectator.

        :raises BadToken: the token never held a seat here.
        :raises TokenRevoked: the token's seat was given up.
        """
        seat: int | None = None
        if msg.token is not None:
            th = hash_token(msg.token)
            seat = room.table.seat_of_token(th)
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
                await self._run(room, Return(seat))
        room.attach(conn, seat)
        conn.hello_done = True
        t = room.table
        conn.send({
            "type": "welcome", "seat": seat, "name": t.seats[seat].name if seat is not None else None,
            "host": seat == t.host, "table": room.summary(), "id": msg.id,
        })
        for line in t.chat:
            conn.send({"type": "chat", **line, "history": True})
        if t.state is not None:
            conn.send_text(state_message_text(room, seat, sync=True))
        self.tell.presence(room)

    def goodbye(self, room: Room, conn: Conn) -> None:
        """``conn`` closed: presence, and the grace period of a seat left with no client."""
        if not room.detach(conn):
            return
        seat = conn.seat
        t = room.table
        if seat is not None and t.is_live and t.seats[seat].kind is SeatKind.HUMAN:
            self._start_grace(room, seat)
        if not t.is_live:
            self._evict_later(room)
        self.tell.presence(room)

    async def handle(self, room: Room, conn: Conn, msg: Any) -> None:
        """One parsed client message after ``hello``; an ``ack`` when done.

        :raises LiarsDiceError: when refused (nothing changed).
        """
        if isinstance(msg, PingMsg):
            conn.send({"type": "pong", "id": msg.id})
            return
        if isinstance(msg, Hello):
            raise MessageInvalid("This connection has already said hello.")
        seat = conn.seat
        if seat is None:
            raise SeatVisitor("Spectators watch: take a seat to play or chat.")
        if isinstance(msg, BidMsg):
            await self.move(room, seat, Bid(msg.quantity, msg.face), tuple(msg.show), client=True)
        elif isinstance(msg, ChallengeMsg):
            await self.move(room, seat, CHALLENGE, (), client=True)
        elif isinstance(msg, CalzaMsg):
            await self.move(room, seat, CALZA, (), client=True)
        elif isinstance(msg, ChatMsg):
            if room.table.chat_count >= self.settings.chat_table_max:
                raise ChatFull(f"This table's chat is full ({self.settings.chat_table_max} lines): no more lines are kept.")
            text = clean_chat(msg.text, self.settings.chat_max)
            await self._run(room, Chat(seat, text, utcnow().isoformat()))
        elif isinstance(msg, AddBotMsg):
            await self._run(room, AddBot(seat, msg.bot, msg.seat))
        elif isinstance(msg, RemoveBotMsg):
            await self._run(room, RemoveSeat(seat, msg.seat))
        elif isinstance(msg, StartMsg):
            await self._run(room, Start(seat, secrets.randbelow(room.table.n_seats)))
        elif isinstance(msg, LeaveMsg):
            await self.leave(room, seat, Departure.LEAVE)
        else:  # pragma: no cover - the message union is closed
            raise MessageInvalid("Unknown message.")
        conn.send({"type": "ack", "id": msg.id})

    async def leave(self, room: Room, seat: int, reason: Departure) -> None:
        """``seat``'s person gives it up: for good (``LEAVE``: the token is
        revoked), or unconnected past the grace period (``GRACE``)."""
        await self._run(room, Leave(seat, reason, self._stand_in_name()))

    async def move(
        self, room: Room, seat: int, action: Any, show: tuple[int, ...], *, by_bot: bool = False,
        expect_move: int | None = None, client: bool = False,
    ) -> bool:
        """A bid or challenge for ``seat``: checked by the engine (once), the dice
        of any reroll and of the next deal rolled, stored, applied, told.

        :param client: the move came from a person's client (refused for a seat a bot took over).
        :returns: False when ``expect_move`` no longer matches (a stale timer's move).
        :raises LiarsDiceError: when refused (nothing changed).
        """
        try:
            await self._run(room, Move(seat, action, show, by_bot, client, expect_move))
        except Stale:
            return False
        return True


def config_json(settings: Settings) -> dict[str, Any]:
    """``GET /api/config``: the rule sets, bots and every limit a client needs,
    read from ``settings``."""
    s = settings
    return {
        "presets": {name: r.to_dict() for name, r in PRESETS.items()},
        "seed_presets": list(SEED_PRESETS),
        "option_choices": {
            "ordering": ["plain", "track", "half_up"], "loss": ["one", "difference"],
            "exact": ["challenger_loses", "all_but_bidder"], "next_opener": ["loser", "winner"],
        },
        "option_labels": OPTION_LABELS,
        "choice_words": CHOICE_WORDS,
        "bots": bot_names(),
        "default_bot": default_bot(),
        "seats": {"min": s.seats_min, "max": s.seats_max},
        "turn_timer": {"min": s.turn_timer_min, "max": s.turn_timer_max, "choices": list(s.turn_timer_choices)},
        "limits": {
            "nickname_max": s.nickname_max, "chat_max": s.chat_max, "chat_history": s.chat_history,
            "message_max_bytes": s.max_message_bytes, "dice_per_player_max": s.dice_per_player_max,
            "grace": s.grace, "hello_timeout": s.hello_timeout,
            **s.limits(),
        },
    }


def _record_of(t: Table) -> dict[str, Any]:
    """A finished table's record (RECORD-FORMAT.md), with its fair-dice seeds."""
    assert t.state is not None
    return record_from_state(t.state, t.start, fairness.record_seeds(t.state, t.seeds))
