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

:func:`uvicorn_config` is the one place the server's uvicorn settings live, so
that ``liars-dice serve`` and the tests' live server run the same.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..core.config import Settings

#: Client states of an h11 connection in which the request is still arriving.
_RECEIVING = (h11.IDLE, h11.SEND_BODY)


def deadline_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 HTTP protocol, closing a connection whose request is not
    received within ``seconds`` (float, > 0) of the connection's opening or of
    the previous response's end.

    :raises ValueError: ``seconds`` not a positive finite number.
    """
    if not 0 < seconds < float("inf"):
        raise ValueError(f"request_seconds must be a positive number of seconds, not {seconds!r}.")

    class DeadlineH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

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

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn narrows BaseTransport
            super().connection_made(transport)
            self._arm()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state not in _RECEIVING:
                self._disarm()  # the request is in (or the connection upgraded, closed or failed)

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            # The transport passes to the websocket protocol (its own hello_timeout);
            # h11 still counts the client as sending, so end the deadline here.
            self._disarm()
            super().handle_websocket_upgrade(event)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state in _RECEIVING:
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return DeadlineH11Protocol


def uvicorn_config(app: Any, settings: Settings, *, host: str, port: int, log_level: str = "warning") -> uvicorn.Config:
    """The uvicorn ``Config`` that serves ``app`` under ``settings``' limits.

    Frames larger than twice the largest message are cut by the websocket layer
    before they are held; no per-message compression (state messages are a few
    KiB, and deflating each for every seat costs more CPU than it saves); each
    request must arrive within ``settings.request_seconds``.
    """
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level,
        http=deadline_protocol(settings.request_seconds),
        ws_max_size=2 * settings.max_message_bytes,
        ws_ping_interval=20, ws_ping_timeout=20, access_log=False,
        ws_per_message_deflate=False,
    )
