"""HTTP hardening as one ASGI middleware, plus the websocket ``Origin`` check.

:class:`Guarded` wraps the app and, for every HTTP request:

* refuses a body larger than :attr:`Settings.body_bytes` with 413
  (``request/too_large``): at once from ``Content-Length``, or as soon as a
  streamed body passes the bound, so a 200 MB upload is never held in memory;
* refuses a JSON body nested deeper than :attr:`Settings.json_depth` with 400
  (``message/too_deep``) before any JSON parser sees it;
* adds the browser hardening headers to every response
  (:data:`SECURITY_HEADERS`, and :func:`content_security_policy`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from ..core.config import Settings
from ..core.text import json_depth_exceeds

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Headers on every HTTP response.
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
)


def content_security_policy() -> str:
    """The page's Content-Security-Policy: its own scripts and styles only (no
    inline script, style or handler, no ``eval``), images from itself and
    ``data:`` (the favicon), websockets to itself, and never inside a frame."""
    return "; ".join((
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ))


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class Guarded:
    """The app with bounded request bodies and security headers (see the module docstring)."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.max_body = settings.body_bytes
        self.max_depth = settings.json_depth
        self.headers = [*SECURITY_HEADERS, (b"content-security-policy", content_security_policy().encode())]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_hardened(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", ())}
                message["headers"] = [*message.get("headers", ()), *(h for h in self.headers if h[0] not in names)]
            await send(message)

        async def refuse(status: int, code: str, text: str) -> None:
            body = _error_body(code, text)
            await send_hardened({
                "type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")],
            })
            await send_hardened({"type": "http.response.body", "body": body})

        too_large = f"A request body may hold at most {self.max_body} bytes."
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await refuse(400, "message/invalid", "The Content-Length header is not a number.")
                    return
                if declared > self.max_body:
                    await refuse(413, "request/too_large", too_large)
                    return
        if scope.get("method") in ("GET", "HEAD", "OPTIONS", "DELETE"):
            await self.app(scope, receive, send_hardened)
            return
        # Read the whole (bounded) body first, then hand it on.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await refuse(413, "request/too_large", too_large)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if json_depth_exceeds(body, self.max_depth):
            await refuse(400, "message/too_deep", f"JSON may nest arrays and objects at most {self.max_depth} deep.")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send_hardened)


def origin_allowed(origin: str | None, host: str | None, settings: Settings) -> bool:
    """Whether a websocket from a page at ``origin`` may connect.

    No ``Origin`` header (not a browser: bots, scripts) is allowed. Otherwise
    the origin must be one of :attr:`Settings.allowed_origins`, or, when that
    is empty, the server's own: the same host (and port) as the request's
    ``Host`` header or as :attr:`Settings.public_url`.
    """
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if settings.allowed_origins:
        return origin in {o.strip().rstrip("/").lower() for o in settings.allowed_origins}
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    own = {h.lower() for h in (host,) if h}
    if settings.public_url:
        own.add(urlsplit(settings.public_url).netloc.lower())
    return parts.netloc in own
