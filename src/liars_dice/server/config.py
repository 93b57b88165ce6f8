"""Server settings: one immutable value, built by ``liars-dice serve`` or a test."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


def normalize_db_url(url: str) -> str:
    """Map ``postgresql://`` and ``postgres://`` to SQLAlchemy's psycopg 3 driver
    (``postgresql+psycopg://``); other URLs pass through unchanged."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


@dataclass(frozen=True, slots=True)
class Limits:
    """Every bound on what one client may send or hold (issue 7: every input
    bounded, every abuser slowed). Each default, and why, is listed in
    ``docs/server-protocol.md`` ("Limits"); ``GET /api/config`` serves them.

    Rates are strings of the :mod:`limits` library (``"30/minute"``,
    ``"5 per 10 seconds"``), counted per client address (the peer address, or
    the ``X-Forwarded-For`` one when the peer is a proxy uvicorn trusts) with a
    moving window.

    Sizes:

    :ivar body_bytes: the largest HTTP request body; larger ones get 413 before
        they are read (from ``Content-Length``, or while streaming).
    :ivar message_bytes: the largest websocket frame (UTF-8 bytes).
    :ivar json_depth: the deepest nesting of arrays and objects in any JSON a
        client sends (HTTP body or websocket frame).
    :ivar nickname_chars: a nickname's length, in characters after NFC.
    :ivar chat_chars: a chat line's length.
    :ivar text_chars: any other string a client sends (rule option strings,
        face names, message ids).
    :ivar option_items: entries in a create request's ``options`` (and in any
        list inside it).
    :ivar combining_run: combining marks allowed in a row (stacked "Zalgo" text).

    Rates (per client address unless said):

    :ivar create_rate: tables created.
    :ivar join_rate: seats taken with ``POST /api/tables/{code}/join``.
    :ivar miss_rate: requests naming a table code that does not exist (guessing codes).
    :ivar lookup_rate: every other request that names a table or a player.
    :ivar message_rate: websocket messages per connection.
    :ivar chat_rate_seat: chat lines per seat token, over all its connections.
    :ivar chat_rate_address: chat lines per address, over all its seats.

    Caps:

    :ivar open_tables_per_address: open (not yet started) tables created from one address.
    :ivar open_tables_total: open tables in all.
    :ivar sockets_per_address: websocket connections from one address.
    :ivar sockets_per_table: websocket connections to one table.
    :ivar sockets_per_seat: websocket connections holding one seat token.
    :ivar wal_bytes: SQLite only: a WAL larger than this is checkpointed with
        ``TRUNCATE`` (and at least every ``wal_truncate_seconds``).
    :ivar wal_truncate_seconds: the longest time between two ``TRUNCATE`` checkpoints.
    """

    body_bytes: int = 16_384
    message_bytes: int = 4096
    json_depth: int = 8
    nickname_chars: int = 24
    chat_chars: int = 300
    text_chars: int = 40
    option_items: int = 24
    combining_run: int = 4
    create_rate: str = "20/minute"
    join_rate: str = "30/minute"
    miss_rate: str = "20/minute"
    lookup_rate: str = "600/minute"
    message_rate: str = "40 per 2 seconds"
    chat_rate_seat: str = "5 per 5 seconds"
    chat_rate_address: str = "15 per 5 seconds"
    open_tables_per_address: int = 8
    open_tables_total: int = 2000
    sockets_per_address: int = 64
    sockets_per_table: int = 100
    sockets_per_seat: int = 4
    wal_bytes: int = 16 * 1024 * 1024
    wal_truncate_seconds: float = 60.0

    def with_overrides(self, pairs: "list[str] | tuple[str, ...]") -> "Limits":
        """A copy with ``NAME=VALUE`` pairs applied (``liars-dice serve --limit``).

        :raises ValueError: an unknown name, or a value that is not of the field's type.
        """
        from dataclasses import fields, replace

        types = {f.name: f.type for f in fields(self)}
        changes: dict[str, Any] = {}
        for pair in pairs:
            name, sep, value = pair.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in types:
                raise ValueError(f"--limit takes NAME=VALUE with NAME one of {', '.join(types)}; got {pair!r}.")
            kind = {"int": int, "float": float, "str": str}[str(types[name])]
            try:
                changes[name] = kind(value.strip())
            except ValueError:
                raise ValueError(f"--limit {name} needs a {str(types[name])} value, not {value!r}.") from None
        return replace(self, **changes)

    def public(self) -> dict[str, Any]:
        """The limits as JSON for ``GET /api/config``."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told.

    :ivar db_url: SQLAlchemy URL (``sqlite:///liars-dice.db``, ``postgresql://...``).
    :ivar grace: seconds a seated player may be gone mid-game before a bot takes the seat.
    :ivar bot_delay: seconds a bot waits before it moves (so people can follow).
    :ivar timeout_bot: the bot that plays a move when the turn timer runs out, or
        takes over a seat for good; ``None`` = the strongest registered of
        ``strong``, ``probabilistic``, ``random``.
    :ivar public_url: base URL for share links; ``None`` = taken from each request.
    :ivar allowed_origins: browser origins (``https://example.org``) whose pages
        may open websockets; empty = only the server's own origin (the request's
        ``Host``, or :attr:`public_url`'s). A client that sends no ``Origin``
        (not a browser) is not refused.
    :ivar limits: every bound and rate limit (:class:`Limits`).
    :ivar durable: wait for the disk at every commit (see
        :func:`liars_dice.server.db.make_engine`); off, a killed server still
        loses no move, only a power cut may lose the last fraction of a second.
    """

    db_url: str = "sqlite:///liars-dice.db"
    grace: float = 120.0
    bot_delay: float = 0.6
    timeout_bot: str | None = None
    public_url: str | None = None
    durable: bool = False
    allowed_origins: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
