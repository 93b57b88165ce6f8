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
    """Everything the server can be told, and every limit it keeps: one flat,
    immutable value. ``GET /api/config`` serves the limits a client needs (see
    :func:`liars_dice.server.service.config_json`), so the UI never hard-codes one.

    Storage and links:

    :ivar db_url: SQLAlchemy URL (``sqlite:///liars-dice.db``, ``postgresql://...``).
    :ivar public_url: base URL for share links; ``None`` = taken from each request.
    :ivar durable: wait for the disk at every commit (see
        :func:`liars_dice.server.db.make_engine`); off, a killed server still
        loses no move, only a power cut may lose the last fraction of a second.

    Seats and time (seconds):

    :ivar grace: seconds a seat's person may be unconnected before they lose it:
        counted from the join until the first websocket ``hello`` (seats are
        claimed by connecting), and from the last socket's close. Before the
        start the seat is freed (an open table whose people all lose theirs
        closes and leaves the lobby); after it a bot plays the seat until the
        person comes back.
    :ivar bot_delay: seconds a bot waits before it moves (so people can follow).
    :ivar timeout_bot: the bot that plays a move when the turn timer runs out, or
        takes over a seat for good; ``None`` = the strongest registered of
        ``strong``, ``probabilistic``, ``random``.
    :ivar hello_timeout: seconds a new websocket has to say ``hello``.
    :ivar finished_ttl: seconds a finished or closed table with nobody watching
        stays in memory (it is reloaded from the database when asked for).

    Sizes and rates:

    :ivar rate: messages per second allowed per connection (token bucket refill).
    :ivar burst: bucket size of the per-connection rate limit.
    :ivar max_message_bytes: the largest client frame accepted (UTF-8 bytes).
    :ivar send_queue_max: messages queued for one client before it counts as
        stuck and is closed.
    :ivar presence_interval: seconds over which presence changes (connects and
        disconnects) are gathered into one ``presence`` message per client.
    :ivar presence_fanout: clients at a table before its presence interval grows
        in proportion (``presence_interval * clients / presence_fanout``): at
        most ``presence_fanout / presence_interval`` presence sends a second per table.
    :ivar nickname_max: characters in a nickname.
    :ivar chat_max: characters in a chat line.
    :ivar chat_history: chat lines kept per table and sent to a new client.
    :ivar lobby_max: tables listed by ``GET /api/tables``.

    What a table may be:

    :ivar seats_min: fewest seats at a table (a rule set may ask for more).
    :ivar seats_max: most seats at a table (a rule set may allow fewer).
    :ivar dice_per_player_max: most dice each player may start with.
    :ivar turn_timer_min: shortest turn timer, seconds.
    :ivar turn_timer_max: longest turn timer, seconds.
    :ivar turn_timer_choices: the timers the create form offers (``None`` = none).
    """

    db_url: str = "sqlite:///liars-dice.db"
    public_url: str | None = None
    durable: bool = False
    grace: float = 120.0
    bot_delay: float = 0.6
    timeout_bot: str | None = None
    hello_timeout: float = 30.0
    finished_ttl: float = 300.0
    rate: float = 20.0
    burst: float = 40.0
    max_message_bytes: int = 4096
    send_queue_max: int = 256
    presence_interval: float = 0.25
    presence_fanout: int = 200
    nickname_max: int = 24
    chat_max: int = 300
    chat_history: int = 50
    lobby_max: int = 200
    seats_min: int = 2
    seats_max: int = 6
    dice_per_player_max: int = 10
    turn_timer_min: int = 5
    turn_timer_max: int = 600
    turn_timer_choices: tuple[int | None, ...] = (None, 15, 30, 60, 120)
