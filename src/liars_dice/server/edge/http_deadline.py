"""The uvicorn configuration of ``liars-dice serve``, with a deadline on receiving each request.

uvicorn times out only an idle keep-alive connection, and any byte received
resets that timer; nothing bounds how long a client may take to send a request
(uvicorn issue #157, "--timeout-request-start" still open). A client that sends
its headers one byte every few seconds ("slowloris", CVE-2007-6750), or a body
below ``body_bytes`` one byte at a time, held its connection for as long as it
liked: 1,100 such connections from one address stayed open past 40 s (attack2),
and a few thousand more exhaust the process's file descriptors, after which no
one can connect. ASGI middleware cannot help: it runs only once the headers are
in.

:func:`deadline_protocol` wraps uvicorn's h11 protocol: from the connection's
opening, and again after each response, the client has
``Settings.request_seconds`` to finish sending the next request (headers and
body); otherwise the connection is closed. A websocket upgrade ends the
deadline (the websocket has its own ``hello_timeout``); a response that takes
long (nothing here does) is not cut, since the deadline covers only receiving.

The same protocol bounds what one client may hold (issue 16, fault 1: one
address kept 1,005 connections open with a ``/healthz`` every few seconds on
each, holding the server at its limit of 1,024 open files, and every request
from anyone failed): open connections per peer address, requests per
connection, and a connection's whole life, which no new request extends.

:func:`uvicorn_config` is the one place the server's uvicorn settings live, so
that ``liars-dice serve`` and the tests' live server run the same.
"""

from __future__ import annotations

import asyncio
import json
import resource
from collections import Counter
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from ..core.config import Settings
from ..core.errors import TooManySockets
from .proxies import UNIX_PEER, TrustedProxies, address_key

#: Client states of an h11 connection in which the request is still arriving.
_RECEIVING = (h11.IDLE, h11.SEND_BODY)


def deadline_protocol(
    seconds: float, *, per_address: int | None = None, requests: int | None = None,
    lifetime: float | None = None, trusted: TrustedProxies | None = None,
) -> type[asyncio.Protocol]:
    """uvicorn's h11 HTTP protocol, closing a connection whose request is not
    received within ``seconds`` (float, > 0) of the connection's opening or of
    the previous response's end, or whose client reads nothing of a response
    for ``seconds`` (its receive window shut: the connection is aborted).

    With the other bounds (issue 16, fault 1; ``None`` = unbounded):

    :param per_address: open HTTP connections from one peer address; one more
        is answered ``429 socket/too_many`` and closed at once, before its
        request is read. A trusted proxy (``trusted``) is not counted. A
        connection upgraded to a websocket leaves this count (the websocket
        caps of :class:`~liars_dice.server.edge.limits.Guard` count it).
    :param requests: requests served on one connection; the last is answered,
        then the connection is closed.
    :param lifetime: seconds a connection may be kept alive in all: the first
        response after it is the last, then the connection is closed. A new
        request never extends it, so no client holds a connection for ever by
        sending one every few seconds.
    :raises ValueError: ``seconds`` not a positive finite number.
    """
    if not 0 < seconds < float("inf"):
        raise ValueError(f"request_seconds must be a positive number of seconds, not {seconds!r}.")
    open_of: Counter[str] = Counter()  # this server's open HTTP connections by peer address
    refusal = _refusal(per_address)

    class DeadlineH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _stalled: asyncio.TimerHandle | None = None  #: set while the client reads none of a response
        _counted: str | None = None  #: the peer address this connection is counted under
        _opened = 0.0
        _cycles = 0
        _last_cycle: object = None

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing() and self.conn.their_state in _RECEIVING:
                self.transport.close()

        def _uncount(self) -> None:
            if self._counted is not None:
                open_of[self._counted] -= 1
                if open_of[self._counted] <= 0:
                    del open_of[self._counted]
                self._counted = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn narrows BaseTransport
            super().connection_made(transport)
            self._opened = self.loop.time()
            peer = self.client[0] if self.client else UNIX_PEER  # a unix socket's peer has no address
            if per_address is not None and not (trusted and trusted.trusts(peer)):
                peer = address_key(peer)  # an IPv6 peer counts by its /64
                if open_of[peer] >= per_address:
                    transport.write(refusal)
                    transport.close()
                    return
                open_of[peer] += 1
                self._counted = peer
            self._arm()

        def data_received(self, data: bytes) -> None:
            # The request's head (line and headers) is bounded whatever the reads
            # are: h11 bounds only a head still incomplete after a read, so one that
            # arrived whole in a read (up to 256 KiB on loopback) was served (a
            # 100 KB header got 200).
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                buffered = self.conn.trailing_data[0] + data
                end = buffered.find(b"\r\n\r\n")
                if (len(buffered) if end < 0 else end) > HEAD_BYTES:
                    self.transport.write(_HEAD_TOO_LARGE)
                    self.transport.close()
                    return
            super().data_received(data)

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state not in _RECEIVING:
                self._disarm()  # the request is in (or the connection upgraded, closed or failed)
            cycle = self.cycle
            if cycle is not None and cycle is not self._last_cycle:
                self._last_cycle = cycle
                self._cycles += 1
                if (requests is not None and self._cycles >= requests) or (
                    lifetime is not None and self.loop.time() - self._opened >= lifetime
                ):
                    cycle.keep_alive = False  # this response is the connection's last

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            # The transport passes to the websocket protocol (its own hello_timeout);
            # h11 still counts the client as sending, so end the deadline here.
            self._disarm()
            self._uncount()
            super().handle_websocket_upgrade(event)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state in _RECEIVING:
                self._arm()

        def pause_writing(self) -> None:
            # The client reads nothing of what is sent (its window is shut): a
            # response blocked so held its connection past every bound, and a
            # pending one held a worker's graceful shutdown for ever (one client
            # pipelining 90 GETs of a 44 KB file with a 1 KB receive buffer: the
            # worker still running 60 s after SIGTERM). It has ``seconds`` to
            # read again, as it has to send a request.
            super().pause_writing()
            if self._stalled is None:
                self._stalled = self.loop.call_later(seconds, self._not_reading)

        def resume_writing(self) -> None:
            if self._stalled is not None:
                self._stalled.cancel()
                self._stalled = None
            super().resume_writing()

        def _not_reading(self) -> None:
            self._stalled = None
            if not self.transport.is_closing() or self.transport.get_write_buffer_size():
                self.transport.abort()  # close() would wait for the buffer to be read

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._stalled is not None:
                self._stalled.cancel()
                self._stalled = None
            self._uncount()
            super().connection_lost(exc)

    return DeadlineH11Protocol


#: The largest request head (request line and headers, bytes) served: h11's own
#: bound on an incomplete one (a browser's head is 1-2 KiB, with cookies at most 8).
HEAD_BYTES = 16 * 1024

_HEAD_BODY = json.dumps({"error": {"code": "request/too_large", "message": (
    f"The request's headers are over {HEAD_BYTES} bytes."
)}}).encode()
_HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: " + str(len(_HEAD_BODY)).encode() + b"\r\n\r\n" + _HEAD_BODY
)


def _refusal(per_address: int | None) -> bytes:
    """The raw HTTP answer to a connection over the per-address cap."""
    body = json.dumps({"error": {"code": TooManySockets.code, "message": (
        f"At most {per_address} open connections from one address: close some, then try again."
    )}}).encode()
    return (
        b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nconnection: close\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


def concurrency_limit(settings: Settings) -> int:
    """uvicorn's ``limit_concurrency``: :attr:`Settings.concurrency_max`, or
    (0) the process's soft limit of open files less :data:`FILES_RESERVED`, so
    that past it new requests get ``503`` while the database, the log and the
    listening socket still have files (at least 64)."""
    if settings.concurrency_max:
        return settings.concurrency_max
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 65_536
    return max(64, soft - FILES_RESERVED)


#: Seconds uvicorn lets the requests still being served finish at shutdown,
#: before the app's own bounded shutdown (:mod:`..runtime.closing`).
GRACEFUL_SECONDS = 5

#: Open files kept for the database, logs and listening sockets when
#: ``limit_concurrency`` is derived from the file limit.
FILES_RESERVED = 96


#: Pings one websocket may send per :data:`PING_WINDOW` seconds; one more and
#: it is closed (4429). The page pings every 25 s and websockets' clients
#: every 20 s; the server pings each socket every 20 s itself.
PINGS_MAX = 20
PING_WINDOW = 10.0
#: The close code of a ping flood (the session's "too many", edge/session.py),
#: and the seconds its client has to answer the close before it is cut off.
PING_FLOOD_CLOSE = 4429
PING_CLOSE_SECONDS = 2.0


class LeanWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol (websockets' sans-I/O one, its ``ws="auto"``),
    without the opening handshake's request and response once the socket is
    accepted: uvicorn keeps both for the socket's life and never reads them
    again, about 3.5 KiB of headers a socket (issue 16, "at most 250 KiB per
    open table", measured with tracemalloc at 200 tables x 4 seats). The
    request's headers the app reads are in its ASGI scope."""

    _pings = 0
    _pings_since = 0.0

    def handle_ping(self) -> None:
        """A ping from the client: answered (websockets queued the pong) while
        under :data:`PINGS_MAX` per :data:`PING_WINDOW`; past that the pongs
        are dropped and the socket is closed with 4429. Pings never reach
        the app, so ``message_rate`` did not count them: the stop-34 attacker's
        4 sockets, never saying hello, got 1.84 million pongs in 10 s and the
        other sockets' round trips on that worker went from 0.8 to 109 ms."""
        now = self.loop.time()
        if now - self._pings_since > PING_WINDOW:
            self._pings, self._pings_since = 0, now
        self._pings += 1
        if self._pings <= PINGS_MAX:
            super().handle_ping()
            return
        self.conn.data_to_send()  # the queued pongs: not sent
        if self.conn.state is not State.CLOSING and not self.close_sent:
            self.conn.send_close(PING_FLOOD_CLOSE, "Too many pings.")
            self.close_sent = True
            self.transport.write(b"".join(self.conn.data_to_send()))
            # The client's close ends it (uvicorn's handle_close); one that keeps
            # pinging instead is cut off. Cut at once, its unread pings reset the
            # connection and the close frame was lost with it.
            self.loop.call_later(PING_CLOSE_SECONDS, self.transport.close)

    async def send(self, message: Any) -> None:
        await super().send(message)
        request = self.__dict__.get("request")
        if self.handshake_complete and request is not None:
            # websockets' parser keeps the request too (a local of its generator):
            # emptied here, it holds no headers there either.
            request.headers.clear()
            self.__dict__["request"] = self.__dict__["response"] = None


def uvicorn_config(
    app: Any, settings: Settings, *, host: str, port: int, log_level: str = "warning", uds: str | None = None,
) -> uvicorn.Config:
    """The uvicorn ``Config`` that serves ``app`` under ``settings``' limits, on
    ``host``:``port``, or on the unix socket at path ``uds`` when given
    (``liars-dice serve --unix-socket``; then ``host`` and ``port`` are unused).

    Frames larger than twice the largest message are cut by the websocket layer
    before they are held; no per-message compression (state messages are a few
    KiB, and deflating each for every seat costs more CPU than it saves); each
    request must arrive within ``settings.request_seconds``, and a client that
    reads none of a response for as long is cut off; at shutdown the requests
    still being served get :data:`GRACEFUL_SECONDS`; the connection
    bounds of :func:`deadline_protocol` and :func:`concurrency_limit`; and
    uvicorn's own proxy handling is off (it believed ``X-Forwarded-For`` from
    loopback): the client address is found by :mod:`.proxies`, from
    :attr:`Settings.trusted_proxies` only. The event loop is asyncio's, which
    accepts every connection waiting in the listen queue in one turn; uvloop's
    accepts one a turn (libuv pull request 3696), so a burst of connections kept
    a newcomer waiting 22-26 s (the stop-27 attacker), and asyncio's costs no
    more CPU per move within the noise of ``benchmarks/server_load.py`` (2.04
    against 1.99 ms, one pair).
    """
    proxies = TrustedProxies(settings.trusted_proxies)
    return uvicorn.Config(
        app, host=host, port=port, uds=uds, log_level=log_level,
        # asyncio's loop, not uvloop: libuv accepts one connection per loop turn, so
        # under a burst a newcomer waited behind the whole listen queue (22-26 s;
        # tests/server/test_accept_fairness.py). asyncio's accepts the queue at once.
        loop="asyncio",
        http=deadline_protocol(
            settings.request_seconds, per_address=settings.connections_per_address or None,
            requests=settings.connection_requests or None, lifetime=settings.connection_seconds or None,
            trusted=proxies,
        ),
        ws=LeanWebSocket, ws_max_size=2 * settings.max_message_bytes,
        ws_ping_interval=20, ws_ping_timeout=20, access_log=False,
        ws_per_message_deflate=False,
        proxy_headers=False, forwarded_allow_ips=[],
        limit_concurrency=concurrency_limit(settings),
        # a request still being served at shutdown has this long (uvicorn waits for ever by default)
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
