"""Server settings: one immutable value, built by ``liars-dice serve`` or a test."""

from __future__ import annotations

from dataclasses import dataclass


def normalize_db_url(url: str) -> str:
    """Map ``postgresql://`` and ``postgres://`` to SQLAlchemy's psycopg 3 driver
    (``postgresql+psycopg://``); other URLs pass through unchanged."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told.

    :ivar db_url: SQLAlchemy URL (``sqlite:///liars-dice.db``, ``postgresql://...``).
    :ivar grace: seconds a seated player may be gone mid-game before a bot takes the seat.
    :ivar bot_delay: seconds a bot waits before it moves (so people can follow).
    :ivar timeout_bot: the bot that plays a move when the turn timer runs out, or
        takes over a seat for good; ``None`` = the strongest registered of
        ``strong``, ``probabilistic``, ``random``.
    :ivar rate: messages per second allowed per connection (token bucket refill).
    :ivar burst: bucket size of the per-connection rate limit.
    :ivar max_message_bytes: the largest client frame accepted.
    :ivar public_url: base URL for share links; ``None`` = taken from each request.
    :ivar durable: wait for the disk at every commit (see
        :func:`liars_dice.server.db.make_engine`); off, a killed server still
        loses no move, only a power cut may lose the last fraction of a second.
    """

    db_url: str = "sqlite:///liars-dice.db"
    grace: float = 120.0
    bot_delay: float = 0.6
    timeout_bot: str | None = None
    rate: float = 20.0
    burst: float = 40.0
    max_message_bytes: int = 4096
    public_url: str | None = None
    durable: bool = False
