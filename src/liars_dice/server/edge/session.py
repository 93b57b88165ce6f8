"""One websocket client's session at a table: the handshake (``hello``), the
dispatch of each client message to a command of the runtime, and the
goodbye. The protocol is ``docs/server-protocol.md``.

Every refusal is an ``error`` message naming the problem, and nothing
changes; the socket stays open. Client text reaches the runtime cleaned once,
by the edge's gate (:class:`~liars_dice.server.edge.guard.RequestGuard`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from ...engine import CALZA, CHALLENGE, Bid, LiarsDiceError
from ..core.commands import AddBot, Chat, Contribute, Rematch, RemoveSeat, Start
from ..core.config import Settings
from ..core.errors import (
    AuthRequired,
    ChatFull,
    MessageInvalid,
    RateLimited,
    SeatVisitor,
    ServerError,
    ServerUnavailable,
    TableNotFound,
    TooManySockets,
)
from ..core.explain import bounded
from ..core.messages import (
    AddBotMsg,
    BidMsg,
    CalzaMsg,
    ChallengeMsg,
    ChatMsg,
    Hello,
    LeaveMsg,
    PingMsg,
    RematchMsg,
    RemoveBotMsg,
    SeedMsg,
    StartMsg,
    client_message_types,
    id_of,
    parse_client_message,
)
from ..core.accounts import SESSION_COOKIE, SignedOut
from ..core.security import hash_token
from ..core.tables import Departure
from ..core.views import state_message_text
from ..runtime.conn import CLIENT_FAULT, SERVER_FAULT, Conn
from ..runtime.room import Room
from ..runtime.service import TableService
from ..runtime.store import utcnow
from ..runtime.accounts import Account, Accounts
from .guard import RequestGuard, guessing
from .json_logs import TABLE
from .headers import origin_allowed

log = logging.getLogger(__name__)

#: Close codes of a refused socket (docs/server-protocol.md, "Close codes").
NOT_FOUND, REFUSED, TOO_MANY = 4404, 4400, 4429
#: The socket's session was revoked or expired (issue 18): a page does not reconnect with it.
SIGNED_OUT = 4401


def refusal_code(e: LiarsDiceError) -> int:
    """The close code of a socket refused with ``e`` before its session starts:
    4429 over a cap or rate, 1011 when the server cannot serve it now (its
    database), 4404 for no such table, else 4400."""
    if isinstance(e, TableNotFound):
        return NOT_FOUND
    if isinstance(e, ServerError) and e.status == 429:
        return TOO_MANY
    if isinstance(e, ServerError) and e.status >= 500:
        return SERVER_FAULT
    return REFUSED


#: What sending to a client that has already gone raises (starlette's disconnect,
#: or its "not connected" once uvicorn has closed the socket).
CLIENT_GONE = (WebSocketDisconnect, RuntimeError, OSError)

SAY_HELLO = "Say hello first: {\"type\": \"hello\", \"token\": ...}."


class TableSession:
    """The session of one websocket at table ``code``: :meth:`run` it once."""

    def __init__(self, ws: WebSocket, code: str, service: TableService, gate: RequestGuard, settings: Settings,
                 accounts: "Accounts | None" = None) -> None:
        self.ws = ws
        self.accounts = accounts
        self._unregister: Any = None  #: stops the session's revocation from closing this socket
        self._expiry: asyncio.TimerHandle | None = None
        self.code = code
        self.service = service
        self.gate = gate
        self.settings = settings
        self.address = gate.address(ws)
        self.limiter = gate.guard.message_limiter()  #: this socket's message rate (every frame counts)
        self.seat_hash: str | None = None  #: the seat token's hash, once claimed
        self.watching = False  #: counted as one of the table's visitors

    async def run(self) -> None:
        """Accept (or refuse) the socket, serve its messages, and clean up."""
        ws, g, settings = self.ws, self.gate, self.settings
        TABLE.set(self.code)  # the table of this task's log lines (--log-json)
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), settings):
            # Refused before the handshake completes: the browser sees HTTP 403.
            await ws.close(code=4403)
            return
        try:
            await ws.accept()
        except CLIENT_GONE:
            return  # the client left during the handshake
        first: Hello | None = None
        try:
            # Over the miss limit (guessing codes), a socket proves its right to
            # the table with its hello before anything is said about the table:
            # a seat's token there, or the signed-in account's seat (issue 36,
            # fault 7: one guesser behind a home router locked the household
            # out of its own tables). Refused alike whether the code exists or not.
            proving = await g.before_socket(ws)
            if proving:
                first = await self._first_hello()
            try:
                room = await self.service.get_room(self.code)
            except TableNotFound:
                if proving:
                    raise guessing() from None
                raise
            if proving and not await self._holds_seat(room, first):
                raise guessing()
            await g.guard.open_socket(self.address, room.code)
        except WebSocketDisconnect:
            return
        except TableNotFound as e:
            await g.missed(ws)
            await self._refuse(e, NOT_FOUND)
            return
        except LiarsDiceError as e:
            await self._refuse(e, refusal_code(e))
            return
        conn = Conn(ws, self.limiter, settings.send_queue_max)
        conn.start()
        code = CLIENT_FAULT  # the loop ends on the client's fault (no hello in time) unless the server fails
        try:
            if first is not None:  # the hello read as the proof: answered as any hello
                try:
                    await self._hello(room, conn, first)
                except LiarsDiceError as e:
                    conn.error(e.code, e.message, first.id)
            await self._serve(room, conn)
        except WebSocketDisconnect:
            pass
        except Exception:  # noqa: BLE001 - log, then drop this client only
            log.exception("websocket failure at table %s", self.code)
            code = SERVER_FAULT
        finally:
            if self._unregister is not None:
                self._unregister()
            if self._expiry is not None:
                self._expiry.cancel()
            g.guard.close_socket(self.address, room.code)
            if self.seat_hash is not None:
                g.guard.release_seat(self.seat_hash)
            if self.watching:
                g.guard.unwatch(room.code)
            self.service.goodbye(room, conn)
            # Let queued messages go out before the sender stops.
            conn.close(code)
            if conn.sender is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(conn.sender), 2.0)
                except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                    await conn.stop()

    async def _first_hello(self) -> Hello | None:
        """The socket's first frame, read within ``hello_timeout``, as a ``hello``
        (``None``: another message, not one, or none in time).

        :raises WebSocketDisconnect: the client left."""
        settings = self.settings
        try:
            frame = await asyncio.wait_for(self.ws.receive(), settings.hello_timeout)
        except asyncio.TimeoutError:
            return None
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect()
        self.limiter.allow()  # it counts against the connection's rate, as every frame
        try:
            msg = parse_client_message(frame.get("text") or "", settings.max_message_bytes, settings.json_depth)
        except LiarsDiceError:
            return None
        return msg if isinstance(msg, Hello) else None

    async def _holds_seat(self, room: Room, hello: Hello | None) -> bool:
        """Whether ``hello`` proves a right to ``room``: its token is a seat's
        there, or it asks for the account's seat and the socket's signed-in
        account holds one."""
        if hello is None:
            return False
        if hello.token is not None:
            return room.table.seat_of_token(hash_token(hello.token)) is not None
        token = self.ws.cookies.get(SESSION_COOKIE)
        if not hello.account or self.accounts is None or not token:
            return False
        acct = await self.accounts.session(token)
        return acct is not None and room.table.seat_of_account(acct.id) is not None

    async def _refuse(self, e: LiarsDiceError, close: int) -> None:
        """Say why, then close with ``close``. A client that has already gone
        ends it silently: a refusal must not log a traceback per connection
        (one address wrote about 5 KB of log with each refused socket it dropped)."""
        try:
            await self.ws.send_text(json.dumps({"type": "error", "code": e.code, "message": bounded(e.message), "id": None}))
            await self.ws.close(code=close)
        except CLIENT_GONE:
            pass

    async def _serve(self, room: Room, conn: Conn) -> None:
        ws, settings = self.ws, self.settings
        loop = asyncio.get_running_loop()
        # The hello is due within hello_timeout of the accept, whatever else the
        # client sends meanwhile: a deadline, not a timeout per frame (a frame every
        # 29 s held an unwelcomed socket for ever).
        hello_due = loop.time() + settings.hello_timeout
        while not conn.closed:
            try:
                timeout = None if conn.hello_done else max(0.0, hello_due - loop.time())
                frame = await asyncio.wait_for(ws.receive(), timeout)
            except asyncio.TimeoutError:
                conn.error(AuthRequired.code, SAY_HELLO)
                break
            if frame["type"] == "websocket.disconnect":
                break
            # Every frame counts against the rate before any work or reply (a binary
            # frame drew an error each, uncounted: 2,000 in 1.5 s), and the refusals
            # a connection draws are bounded too: past as many again, it is closed.
            if not self.limiter.allow():
                # The refusal names the frame's id (so a client knows which move was
                # dropped), read without the message's checks: refusals are bounded.
                refused_id = id_of(frame.get("text"), settings.max_message_bytes, settings.json_depth)
                if not self.limiter.refuse():
                    conn.error(RateLimited.code, "Too many messages: this connection is closed.", refused_id)
                    conn.close(TOO_MANY)
                    break
                conn.error(RateLimited.code, "Too many messages: slow down.", refused_id)
                continue
            text = frame.get("text")
            if text is None:
                conn.error(MessageInvalid.code, "Messages are JSON text frames.")
                continue
            msg_id = None
            try:
                msg = parse_client_message(text, settings.max_message_bytes, settings.json_depth)
                msg_id = msg.id
                if not conn.hello_done:
                    if not isinstance(msg, Hello):
                        raise AuthRequired(SAY_HELLO)
                    await self._hello(room, conn, msg)
                else:
                    await self._dispatch(room, conn, msg)
            except LiarsDiceError as e:  # every refusal: nothing changed
                conn.error(e.code, e.message, getattr(e, "msg_id", None) if msg_id is None else msg_id)
                if isinstance(e, ServerUnavailable) and not conn.hello_done:
                    # The seat could not be claimed now: close so that the page comes back
                    # (with back-off) and says hello again, rather than wait unwelcomed.
                    conn.close(SERVER_FAULT)

    # -- the handshake -----------------------------------------------------------------

    async def _hello(self, room: Room, conn: Conn, msg: Hello) -> None:
        """Claim the token's seat (at most ``sockets_per_seat`` connections hold
        one seat token), or watch (at most ``visitors_per_table`` visitors: one
        more gets ``socket/too_many`` and close code 4429); then the welcome,
        the chat and the view. The table's caps are applied here, after the
        ``hello`` says who it is, so visitors never take a player's room."""
        g = self.gate
        acct = await self._signed_in(conn)
        account = acct.id if acct is not None else None
        by_account = msg.token is None and msg.account and account is not None
        if msg.account and msg.token is None and account is None:
            raise SignedOut("Sign in to take your account's seat here (or say hello without \"account\" to watch).")
        if by_account and room.table.seat_of_account(account) is None:  # type: ignore[arg-type]  # account is set when by_account
            by_account = False  # no seat here: watching
        if msg.token is not None or by_account:
            th = hash_token(msg.token) if msg.token is not None else f"account:{account}"
            await g.guard.claim_seat(th)
            try:
                seat = await self.service.claim(room, conn, msg.token, account, by_account=bool(by_account))
            except BaseException:
                g.guard.release_seat(th)
                raise
            self.seat_hash = th
        else:
            try:
                await g.guard.watch(room.code)
            except TooManySockets as e:  # a visitor refused: no seat is touched
                conn.error(e.code, e.message, msg.id)
                conn.close(TOO_MANY)
                return
            self.watching = True
            seat = await self.service.claim(room, conn, None)
        t = room.table
        welcome: dict[str, object] = {
            "type": "welcome", "seat": seat, "name": t.seats[seat].name if seat is not None else None,
            "host": seat == t.host, "table": room.summary(), "id": msg.id,
        }
        if self.settings.route:
            # Routes (--route): which worker runs the table and which one this
            # socket is on, so that a page reconnects to the owner (?owner=ROUTE
            # through the shipped nginx) and its moves are not forwarded.
            welcome["worker"] = self.settings.route
            welcome["owner"] = await self.service.owners.owner_route(room)
        conn.send(welcome)
        for line in t.chat:
            conn.send({"type": "chat", **line, "history": True})
        if t.state is not None:
            conn.send_text(state_message_text(room, seat, sync=True))
        self.service.tell.presence(room)

    async def _signed_in(self, conn: Conn) -> "Account | None":
        """The account of the socket's session cookie (``None``: a guest, or a
        session that ended). The socket is closed (4401) when that session is
        revoked, on any worker, or when it expires: nothing private reaches it after."""
        token = self.ws.cookies.get(SESSION_COOKIE)
        if self.accounts is None or not token:
            return None
        acct = await self.accounts.session(token)
        if acct is None:
            return None
        if self._unregister is not None:  # a hello said again after a refusal
            self._unregister()
        if self._expiry is not None:
            self._expiry.cancel()

        def close() -> None:
            conn.error(SignedOut.code, "Your session ended (signed out, or the password changed): sign in again.")
            conn.close(SIGNED_OUT)

        self._unregister = self.accounts.revocations.register(acct.token_hash, close)
        delay = max(0.0, (acct.expires_at - utcnow()).total_seconds())
        self._expiry = asyncio.get_running_loop().call_later(delay, close)
        return acct

    # -- the messages --------------------------------------------------------------------

    async def _dispatch(self, room: Room, conn: Conn, msg: Any) -> None:
        """One parsed client message after ``hello``, as a command of the
        runtime (its handler in :data:`HANDLERS`); an ``ack`` when done.

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
        handler = HANDLERS.get(type(msg))
        if handler is None:  # pragma: no cover - HANDLERS covers the union (checked at import)
            raise MessageInvalid("Unknown message.")
        await handler(self, room, seat, msg)
        conn.send({"type": "ack", "id": msg.id})

    # -- one handler per seated message (HANDLERS) ----------------------------------------

    async def _bid(self, room: Room, seat: int, msg: BidMsg) -> None:
        await self.service.move(room, seat, Bid(msg.quantity, msg.face), tuple(msg.show), client=True)

    async def _challenge(self, room: Room, seat: int, msg: ChallengeMsg) -> None:
        await self.service.move(room, seat, CHALLENGE, (), client=True)

    async def _calza(self, room: Room, seat: int, msg: CalzaMsg) -> None:
        await self.service.move(room, seat, CALZA, (), client=True)

    async def _chat(self, room: Room, seat: int, msg: ChatMsg) -> None:
        settings = self.settings
        if room.table.chat_count >= settings.chat_table_max:
            raise ChatFull(f"This table's chat is full ({settings.chat_table_max} lines): no more lines are kept.")
        # Chat is cleaned once and limited per seat token and per address, not per connection.
        msg = await self.gate.check_chat(msg, self.address, self.seat_hash)
        await self.service.run(room, Chat(seat, msg.text, utcnow().isoformat()))

    async def _seed(self, room: Room, seat: int, msg: SeedMsg) -> None:
        await self.service.run(room, Contribute(seat, msg.commitment, msg.seed))

    async def _add_bot(self, room: Room, seat: int, msg: AddBotMsg) -> None:
        await self.service.run(room, AddBot(seat, msg.bot, msg.seat))

    async def _remove_bot(self, room: Room, seat: int, msg: RemoveBotMsg) -> None:
        await self.service.run(room, RemoveSeat(seat, msg.seat))

    async def _start(self, room: Room, seat: int, msg: StartMsg) -> None:
        # the first opener from the service's dice (secure; scripted only by an in-process test)
        await self.service.run(room, Start(seat, self.service.dice.roll(1, room.table.n_seats)[0] - 1))

    async def _rematch(self, room: Room, seat: int, msg: RematchMsg) -> None:
        # the next game is a live table again: under the asker's open-table
        # caps, as a create is (stop 33's attacker ran 32 tables against a cap of 8)
        async with self.gate.guard.new_table(self.address) as slot:
            await self.service.run(room, Rematch(seat, self.address))
            slot.created(room.code)

    async def _leave(self, room: Room, seat: int, msg: LeaveMsg) -> None:
        await self.service.leave(room, seat, Departure.LEAVE)


Handler = Callable[[TableSession, Room, int, Any], Awaitable[None]]

#: The seated client messages and their handlers: every member of the client
#: message union but ``hello`` and ``ping`` (answered before a seat is needed).
#: Checked against the union at import and by ``tests/server/test_wire.py``, so
#: a new message cannot be parsed and then dropped (issue 36: the lists of
#: commands and messages were written by hand, and one was already wrong).
HANDLERS: dict[type[Any], Handler] = {
    BidMsg: TableSession._bid, ChallengeMsg: TableSession._challenge, CalzaMsg: TableSession._calza,
    ChatMsg: TableSession._chat, SeedMsg: TableSession._seed, AddBotMsg: TableSession._add_bot,
    RemoveBotMsg: TableSession._remove_bot, StartMsg: TableSession._start, RematchMsg: TableSession._rematch,
    LeaveMsg: TableSession._leave,
}
_missing = set(client_message_types()) - set(HANDLERS) - {Hello, PingMsg}
if _missing:  # pragma: no cover - a message added to the union without a handler
    raise ImportError(f"No session handler for {sorted(c.__name__ for c in _missing)}.")


#: The path of a table's websocket: ``/ws/tables/{code}`` (docs/server-protocol.md).
SOCKET_PREFIX = "/ws/tables/"


class TableSockets:
    """ASGI middleware: a websocket at ``/ws/tables/{code}`` goes straight to
    its :class:`TableSession`; everything else goes on to ``app``.

    The router would wrap each socket in its exit stacks, exception wrappers
    and endpoint frames for the socket's whole life: about 7 KiB a socket, 29
    KiB a table of 4 (issue 16, "at most 250 KiB per open table", measured with
    tracemalloc at 200 tables x 4 seats). The middlewares outside this one (the
    proxy headers, the allowed hosts) still see every socket first.

    :param app: the app behind. :param settings: the server's settings; the
        service, gate and accounts are read from the app's state per socket.
    """

    def __init__(self, app: Any, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and scope["path"].startswith(SOCKET_PREFIX):
            code = scope["path"][len(SOCKET_PREFIX):]
            if code and "/" not in code:
                state = scope["app"].state
                ws = WebSocket(scope, receive, send)
                await TableSession(ws, code, state.service, state.guard, self.settings, state.accounts).run()
                return
        await self.app(scope, receive, send)
