"""Server settings: one immutable value, built by ``liars-dice serve`` or a test."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any


def normalize_db_url(url: str) -> str:
    """Map ``postgresql://`` and ``postgres://`` to SQLAlchemy's psycopg 3 driver
    (``postgresql+psycopg://``); other URLs pass through unchanged."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


#: The store's columns that hold a client's text, in characters (runtime/db.py
#: makes them from these). PostgreSQL refuses a longer value where SQLite keeps
#: it (issue 36, fault 4: a rules file named with 25 to 40 characters made a
#: table on SQLite and a database failure on PostgreSQL, in a 32-character column).
#: ``seats.name``, ``tables.winner``, ``accounts.name``: a nickname or an account's name.
NAME_COLUMN = 64
#: ``tables.preset``, ``ratings.rule_set``, ``rating_history.rule_set``: a
#: preset's name, or ``"custom: "`` and a rules file's own name.
RULE_SET_COLUMN = 80
#: What a rules file's name is listed under before it (``core/rules_check.py CUSTOM_PREFIX``).
CUSTOM_PREFIX = "custom: "

#: Limits with a ceiling of their own (``nice`` goes to 19; a bot process per core
#: is plenty), and the text limits, each within the column its text is stored in,
#: so that every text the protocol accepts fits both stores.
_MOST = {
    "bot_nice": 19, "bot_processes": 64,
    "nickname_max": NAME_COLUMN, "text_chars": RULE_SET_COLUMN - len(CUSTOM_PREFIX),
}


#: A route's name: what :attr:`Settings.route` and a socket's ``?owner=`` may hold.
ROUTE = re.compile(r"[A-Za-z0-9_-]{1,12}")


def check_route(name: str) -> str:
    """``name`` as a route (:attr:`Settings.route`).

    :raises ValueError: it is not 1-12 letters, digits, ``-`` or ``_``, in one sentence.
    """
    if not ROUTE.fullmatch(name):
        raise ValueError(f"--route takes 1-12 letters, digits, '-' or '_' (w, or w0 for one worker), not {name[:40]!r}.")
    return name


def _check_limit(name: str, value: int | float | str) -> None:
    """A limit's value must make sense before the server starts (attack2: a rate
    the ``limits`` library cannot read was a traceback at start-up; ``body_bytes=-5``
    or ``grace=nan`` were taken silently).

    :raises ValueError: a number that is negative or not finite, or a rate string
        that is not one (``"20/minute"``, ``"5 per 5 seconds"``).
    """
    if isinstance(value, str):
        from limits import parse

        try:
            parse(value)
        except ValueError:
            raise ValueError(f"--limit {name} needs a rate such as 20/minute or '5 per 5 seconds', not {value[:40]!r}.") from None
    elif not 0 <= value < float("inf"):
        raise ValueError(f"--limit {name} needs a number from 0 up, not {value!r}.")
    elif name in _MOST and value > _MOST[name]:
        raise ValueError(f"--limit {name} takes at most {_MOST[name]}, not {value!r}.")


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told, and every limit it keeps: one flat,
    immutable value. ``GET /api/config`` serves the limits a client needs (see
    :func:`liars_dice.server.edge.client_config.config_json`), so the UI never hard-codes one.

    Every limit, its default and why, is listed in ``docs/server-protocol.md``
    ("Limits"); ``liars-dice serve --limit NAME=VALUE`` changes one
    (:meth:`with_overrides`).

    Storage and links:

    :ivar db_url: SQLAlchemy URL (``sqlite:///liars-dice.db``, ``postgresql://...``).
    :ivar redis_url: ``redis://HOST:PORT/DB`` when several workers share the
        database (PostgreSQL): tables' events, forwarded commands, presence and
        the rate limits go through it (:mod:`liars_dice.server.runtime.cluster`);
        ``None`` = one worker, everything in this process.
    :ivar route: several workers behind the shipped nginx: the name the front
        reaches this worker by (``w0``, ``w1``, ...: its upstream
        ``liars_dice_w0``, ...; ``liars-dice serve --route w``). A welcome then
        names the table's owner's route, and a page reconnects with
        ``?owner=ROUTE`` so that its socket lands on the owner and no command
        of it is forwarded (docs/scaling.md). ``None``: no routes, sockets go
        to any worker. At most 12 letters, digits, ``-`` or ``_``
        (:func:`check_route`).
    :ivar public_url: base URL for share links; ``None`` = taken from each request.
    :ivar allowed_origins: browser origins (``https://example.org``) whose pages
        may open websockets; empty = only the server's own origin (the request's
        ``Host``, or :attr:`public_url`'s). A client that sends no ``Origin``
        (not a browser) is not refused.
    :ivar allowed_hosts: the host names (``Host`` header, without the port)
        the server answers to; a request for another gets ``400``. ``("*",)``,
        the default here, answers any; ``liars-dice serve`` on a loopback
        address narrows it to the loopback names, against DNS rebinding.
    :ivar trusted_proxies: the proxies (IP addresses or CIDR networks, as text)
        whose ``X-Forwarded-For`` is believed; empty = none, the peer is the
        client (:mod:`liars_dice.server.edge.proxies`).
    :ivar durable: wait for the disk at every commit (see
        :func:`liars_dice.server.runtime.db.make_engine`); off, a killed server still
        loses no move, only a power cut may lose the last fraction of a second.

    Seats and time (seconds):

    :ivar grace: seconds a seat's person may be unconnected before they lose it:
        counted from the join until the first websocket ``hello`` (seats are
        claimed by connecting), and from the last socket's close. Before the
        start the seat is freed (an open table whose people all lose theirs
        closes and leaves the lobby); after it a bot plays the seat until the
        person comes back.
    :ivar bot_delay: seconds a bot waits before it moves (so people can follow).
    :ivar reveal_seconds: seconds the reveal of a challenge shows before the next
        round's turn begins: the turn timer and a bot's pause start after it, and
        a person's move before then is refused (``turn/reveal``). 0 = none (the
        default here, for tests and embedding; ``liars-dice serve`` shows it 4 s).
    :ivar timeout_bot: the bot that plays a move when the turn timer runs out, or
        takes over a seat for good; ``None`` = the strongest registered of
        ``strong``, ``probabilistic``, ``random``.
    :ivar hello_timeout: seconds a new websocket has to say ``hello``.
    :ivar request_seconds: seconds a client has to send an HTTP request (headers
        and body), from the connection's opening or the previous response's
        end; a slower one is disconnected (:mod:`liars_dice.server.edge.http_deadline`).
    :ivar connection_seconds: seconds an HTTP connection may be kept alive in
        all (0 = no bound): the first response after it closes the connection,
        and a new request never extends it.
    :ivar finished_ttl: seconds a finished or closed table with nobody watching
        stays in memory (it is reloaded from the database when asked for).
    :ivar idle_rooms_max: finished or closed tables with nobody watching held in
        memory at once; loading one more first drops the least recently asked
        for (a finished game held about 62 KB, and looking finished tables up
        kept each for ``finished_ttl``, with no bound on their number).

    Sizes and rates:

    :ivar max_message_bytes: the largest client frame accepted (UTF-8 bytes).
    :ivar body_bytes: the largest HTTP request body; larger ones get 413 before
        they are read (from ``Content-Length``, or while streaming).
    :ivar json_depth: the deepest nesting of arrays and objects in any JSON a
        client sends (HTTP body or websocket frame), checked before parsing.
    :ivar text_chars: characters in any other string a client sends (a rule
        option such as a face name).
    :ivar option_items: entries in a create request's ``options``, and in any
        list or object inside it.
    :ivar combining_run: combining marks allowed in a row (stacked "Zalgo" text).
    :ivar send_queue_max: messages queued for one client before it counts as
        stuck and is closed.
    :ivar presence_interval: seconds over which presence changes (connects and
        disconnects) are gathered into one ``presence`` message per client.
    :ivar presence_fanout: clients at a table before its presence interval grows
        in proportion (``presence_interval * clients / presence_fanout``): at
        most ``presence_fanout / presence_interval`` presence sends a second per table.
    :ivar nickname_max: characters in a nickname.
    :ivar chat_max: characters in a chat line (after NFC).
    :ivar chat_history: chat lines kept per table and sent to a new client.
    :ivar chat_table_max: chat lines a table stores over its whole life; past
        it, ``chat/full``. A seat token never expires (a finished game's page
        still chats), so this is what bounds one table's stored chat.
    :ivar lobby_max: tables listed by ``GET /api/tables``.

    Rates, strings of the :mod:`limits` library (``"20/minute"``, ``"5 per 5
    seconds"``), counted with a moving window per client address (the peer's,
    or the ``X-Forwarded-For`` one when the peer is one of :attr:`trusted_proxies`):

    :ivar message_rate: websocket messages per connection.
    :ivar chat_rate_seat: chat lines per seat token, over all its connections.
    :ivar chat_rate_address: chat lines per address, over all its seats.
    :ivar create_rate: tables created.
    :ivar join_rate: seats taken with ``POST /api/tables/{code}/join``.
    :ivar miss_rate: requests naming a table code that does not exist (guessing codes).
    :ivar lookup_rate: requests (and websockets) naming a table or a player.
    :ivar signin_rate_address: sign-ins, sign-ups and password resets per address (issue 18).
    :ivar signin_rate_name: sign-ins and resets per account name, counted by the
        name's confusable skeleton, from any number of addresses (issue 18).
    :ivar signup_rate_address: accounts created per address (attack: at the sign-in
        rate alone, 10/minute, one address created 14,400 accounts a day).
    :ivar hash_waiting_max: password hashes (Argon2id) waiting for the two hashing
        threads, over every client, in a fair queue by address (runtime/hashing.py);
        one more is refused ``rate/limited`` (429) at once (issue 36: ``server/busy``, 503, before)
        (attack: 200 sign-ins from 200 addresses, each under its rate, queued
        without bound, and a real sign-in waited for all of them).
    :ivar session_check_seconds: how often each worker re-reads the sessions of
        its signed-in sockets and closes those that ended (0: never). A revocation
        reaches the other workers on Redis pub/sub, which keeps nothing: one
        published while a worker's subscription is down was lost, and the
        revoked session's socket there stayed open until the session's expiry
        (30 days).
    :ivar argon2_time_cost: Argon2id passes (argon2-cffi's default, RFC 9106's low-memory profile: 3).
    :ivar argon2_memory_kib: Argon2id memory per hash, KiB (default 65536 = 64 MiB).
    :ivar argon2_parallelism: Argon2id lanes (default 4). A stored hash made with
        other parameters is made again at the next sign-in.

    Caps:

    :ivar open_tables_per_address: unfinished tables (open, or playing) created
        from one address; a finished or closed table leaves the count (a started
        one counted no more, before stop 32).
    :ivar open_tables_total: unfinished tables in all. Both count every worker's
        tables, as of the last heartbeat (2 s) for the other workers'.
    :ivar connections_per_address: open HTTP connections from one peer address
        (not counting a trusted proxy; 0 = no cap), counted by the HTTP layer
        before a request is read: one more gets ``429`` and is closed.
    :ivar connection_requests: requests served on one HTTP connection before
        it is closed (0 = no bound).
    :ivar concurrency_max: uvicorn's ``limit_concurrency``: open connections
        and running requests past which a request gets ``503``; 0 = the soft
        limit of open files less 96 (:func:`liars_dice.server.edge.http_deadline.concurrency_limit`).
    :ivar sockets_per_address: websocket connections from one address.
    :ivar visitors_per_table: visitors' websockets (no seat token) watching
        one table; seat holders are not counted (each seat has room for
        :attr:`sockets_per_seat`), so visitors never lock a table's players out.
    :ivar sockets_per_seat: websocket connections holding one seat token.
    :ivar wal_bytes: SQLite only: a WAL file larger than this is checkpointed
        with ``TRUNCATE`` at the next check (every 2 s).
    :ivar wal_truncate_seconds: SQLite only: the longest time between two
        ``TRUNCATE`` checkpoints (the others are ``PASSIVE``).
    :ivar trim_seconds: seconds between two returns of the C heap's free pages
        to the operating system (:mod:`liars_dice.server.runtime.memory`;
        0 = never): a flood's high-water mark no longer stays with the worker.
    :ivar bot_processes: processes of a worker's own for its bots' decisions
        (:class:`liars_dice.server.runtime.bots_runner.BotProcesses`); 0 = on
        threads of the worker (the default).
    :ivar bot_nice: the ``nice`` increment of those processes (0-19): when CPU
        is short, the people's moves are served before the bots' thinking.

    What a table may be:

    :ivar seats_min: fewest seats at a table (a rule set may ask for more).
    :ivar seats_max: most seats at a table (a rule set may allow fewer).
    :ivar dice_per_player_max: most dice each player may start with.
    :ivar turn_timer_min: shortest turn timer, seconds.
    :ivar turn_timer_max: longest turn timer, seconds.
    :ivar turn_timer_choices: the timers the create form offers (``None`` = none).
    """

    db_url: str = "sqlite:///liars-dice.db"
    redis_url: str | None = None
    route: str | None = None
    public_url: str | None = None
    durable: bool = False
    allowed_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ("*",)
    trusted_proxies: tuple[str, ...] = ()
    grace: float = 120.0
    bot_delay: float = 0.6
    reveal_seconds: float = 0.0
    timeout_bot: str | None = None
    hello_timeout: float = 30.0
    request_seconds: float = 10.0
    connection_seconds: float = 60.0
    finished_ttl: float = 300.0
    idle_rooms_max: int = 1000
    max_message_bytes: int = 4096
    body_bytes: int = 16_384
    json_depth: int = 8
    text_chars: int = 40
    option_items: int = 24
    combining_run: int = 4
    send_queue_max: int = 256
    presence_interval: float = 0.25
    presence_fanout: int = 200
    nickname_max: int = 24
    chat_max: int = 300
    chat_history: int = 50
    chat_table_max: int = 2000
    lobby_max: int = 200
    seats_min: int = 2
    seats_max: int = 6
    dice_per_player_max: int = 10
    turn_timer_min: int = 5
    turn_timer_max: int = 600
    turn_timer_choices: tuple[int | None, ...] = (None, 15, 30, 60, 120)
    message_rate: str = "40 per 2 seconds"
    chat_rate_seat: str = "5 per 5 seconds"
    chat_rate_address: str = "15 per 5 seconds"
    create_rate: str = "20/minute"
    join_rate: str = "30/minute"
    miss_rate: str = "20/minute"
    lookup_rate: str = "600/minute"
    signin_rate_address: str = "10/minute"
    signin_rate_name: str = "20/hour"
    signup_rate_address: str = "20/day"
    hash_waiting_max: int = 16
    session_check_seconds: float = 30.0
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    argon2_parallelism: int = 4
    open_tables_per_address: int = 8
    open_tables_total: int = 2000
    connections_per_address: int = 64
    connection_requests: int = 100
    concurrency_max: int = 0
    sockets_per_address: int = 64
    visitors_per_table: int = 64
    sockets_per_seat: int = 4
    wal_bytes: int = 16 * 1024 * 1024
    wal_truncate_seconds: float = 60.0
    trim_seconds: float = 10.0
    bot_processes: int = 0
    bot_nice: int = 10

    def with_overrides(self, pairs: "list[str] | tuple[str, ...]") -> "Settings":
        """A copy with ``NAME=VALUE`` pairs applied (``liars-dice serve --limit``);
        any number or rate of the settings may be named.

        :raises ValueError: an unknown name, or a value that is not of the field's type.
        """
        kinds = {"int": int, "float": float, "str": str}
        types = {f.name: str(f.type) for f in fields(self) if str(f.type) in kinds and f.name != "db_url"}
        changes: dict[str, Any] = {}
        for pair in pairs:
            name, sep, value = pair.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in types:
                raise ValueError(f"--limit takes NAME=VALUE with NAME one of {', '.join(types)}; got {pair!r}.")
            try:
                changes[name] = kinds[types[name]](value.strip())
            except ValueError:
                raise ValueError(f"--limit {name} needs a {types[name]} value, not {value!r}.") from None
            _check_limit(name, changes[name])
        return replace(self, **changes)

    def limits(self) -> dict[str, Any]:
        """Every bound and rate (the settings less storage, links and timing), as JSON."""
        skip = {"db_url", "redis_url", "route", "public_url", "durable", "allowed_origins", "allowed_hosts", "trusted_proxies", "timeout_bot", "bot_delay"}
        return {k: v for k, v in asdict(self).items() if k not in skip and not isinstance(v, tuple)}
