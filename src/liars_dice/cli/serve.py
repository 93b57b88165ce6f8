"""``liars-dice serve``: run the web server (tables, lobby, play in the browser).

The server lives in :mod:`liars_dice.server` (the layer below the CLI); it is
imported when the command runs, so ``play`` and ``replay`` work without the
``server`` extra.
"""

from __future__ import annotations

import errno
import gc
import logging
import os
import socket
import stat
import sys

import typer

from .app import Command, app

#: The mode of a ``--unix-socket`` file: its user and group may connect, no one else.
UNIX_SOCKET_MODE = 0o660


@app.command("serve", cls=Command)
def serve_command(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8000, help="TCP port to listen on."),
    db: str = typer.Option(
        "sqlite:///liars-dice.db", envvar="LIARS_DICE_DB",
        help="Database URL: sqlite:///FILE or postgresql://USER:PASS@HOST/DB (or the environment's "
        "LIARS_DICE_DB, which keeps a password out of `ps`).",
    ),
    grace: float = typer.Option(120.0, help="Seconds a player may be gone mid-game before a bot takes the seat."),
    bot_delay: float = typer.Option(0.6, help="Seconds a bot waits before it moves."),
    reveal_seconds: float = typer.Option(
        4.0, help="Seconds a challenge's reveal shows before the next turn's clock starts (moves wait for it)."
    ),
    timeout_bot: str = typer.Option("", help="Bot that moves when a turn timer runs out (default: the strongest)."),
    public_url: str = typer.Option("", help="Base URL for share links (default: the URL the browser used)."),
    durable: bool = typer.Option(
        False, "--durable", help="Wait for the disk at every move (survives a power cut; slower). "
        "Without it a killed server still loses no move."
    ),
    allowed_origin: list[str] = typer.Option(
        [], "--allowed-origin", help="A browser origin (https://example.org) whose pages may open websockets; "
        "repeatable. Default: only this server's own origin (the request's Host, or --public-url)."
    ),
    allowed_host: list[str] = typer.Option(
        [], "--allowed-host", help="A host name the server answers to (the Host header), repeatable; "
        "'*' for any. Default: on a loopback address only localhost, 127.0.0.1 and ::1 (and --public-url's "
        "host), so a web page cannot reach it through DNS rebinding; behind --trusted-proxy or on another "
        "address any host."
    ),
    trusted_proxy: list[str] = typer.Option(
        [], "--trusted-proxy", help="A proxy in front of the server whose X-Forwarded-For is believed: "
        "ADDR[,ADDR|CIDR...] or unix (a peer on --unix-socket), repeatable. The shipped nginx connects from "
        "127.0.0.2; any local process may bind that address too, so on a machine shared with other users use "
        "--unix-socket and --trusted-proxy unix instead (the socket's permissions then say who is the proxy). "
        "Default: none, the peer is the client."
    ),
    route: str = typer.Option(
        "", "--route", help="Behind the shipped nginx with several workers: the name the front reaches this "
        "worker by; with --workers N, worker i is NAME followed by i (--route w: w0, w1, ...; the nginx file's "
        "liars_dice_w0, ...). A table's websockets then go to the worker that runs it (?owner=NAME), so its moves "
        "are not forwarded. Default: none."
    ),
    unix_socket: str = typer.Option(
        "", "--unix-socket", help="Listen on a unix socket at this path instead of --host/--port (mode 0660: "
        "only this user and its group may connect). With --workers N, worker i listens on PATH with -i "
        "before its suffix (worker.sock: worker-0.sock, worker-1.sock, ...)."
    ),
    limit: list[str] = typer.Option(
        [], "--limit", help="Change one limit: NAME=VALUE (repeatable), e.g. --limit create_rate=60/minute. "
        "The names, defaults and reasons are in docs/server-protocol.md (Limits)."
    ),
    log_level: str = typer.Option("warning", help="uvicorn log level."),
    log_json: bool = typer.Option(
        False, "--log-json", help="Log one JSON object a line on standard error, each with the worker and, where "
        "known, the table (time, level, logger, message, worker, table, error)."
    ),
    workers: int = typer.Option(
        1, "--workers", help="Worker processes on this machine, on ports PORT, PORT+1, ... (more than 1 needs "
        "--db postgresql://... and --redis; deploy/ has the nginx front)."
    ),
    redis: str = typer.Option(
        "", "--redis", envvar="LIARS_DICE_REDIS", help="Redis URL (redis://HOST:PORT/DB) shared by the workers "
        "of every machine: events, forwarded commands, presence and rate limits (or LIARS_DICE_REDIS)."
    ),
) -> None:
    """Start the server and print the URL to open. Games survive a restart."""
    from .serve_workers import cluster_problem, supervise, worker_argv, worker_env, worker_socket

    problem = cluster_problem(workers, db, redis) or _route_problem(route, workers, redis)
    if problem is not None:
        typer.echo(problem, err=True)
        raise typer.Exit(2)
    if workers > 1:
        argv = worker_argv(ctx.command, ctx.params)
        where = (f"unix sockets {worker_socket(unix_socket, 0)} to {worker_socket(unix_socket, workers - 1)}"
                 if unix_socket else f"ports {port}-{port + workers - 1}")
        typer.echo(f"Liar's Dice server: {workers} workers on {where} (database: {_safe(db)}; Ctrl+C stops)")
        sys.stdout.flush()
        raise typer.Exit(supervise(workers, port, argv, worker_env(ctx.command, ctx.params), unix_socket=unix_socket or None,
                                   route=route or None))
    try:
        import uvicorn

        from ..server import Settings, create_app
        from ..server.edge.http_deadline import uvicorn_config
        from ..server.edge.proxies import parse_proxies
    except ImportError as e:  # pragma: no cover - without the server extra
        typer.echo(f"The server needs the 'server' extra ({e.name} is missing): pip install 'liars-dice-game[server]', or in a clone .venv/bin/pip install -e '.[server]'.", err=True)
        raise typer.Exit(2)
    try:
        settings = Settings(
            db_url=db, grace=grace, bot_delay=bot_delay, reveal_seconds=reveal_seconds, timeout_bot=timeout_bot or None,
            public_url=public_url or None, durable=durable, allowed_origins=tuple(allowed_origin),
            allowed_hosts=default_hosts(host, public_url, allowed_host, proxied=bool(trusted_proxy)),
            trusted_proxies=parse_proxies(trusted_proxy), redis_url=redis or None,
            route=route or None,  # checked with the other options' problems (_route_problem)
        )
        settings = settings.with_overrides(limit)
        config = uvicorn_config(create_app(settings), settings, host=host, port=port, log_level=log_level,
                                uds=unix_socket or None)
        if log_json:  # after uvicorn's own logging config (made with its Config)
            from ..server.edge.json_logs import install

            install(route or None, getattr(logging, log_level.upper(), logging.WARNING))
    except ValueError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(2)

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started and unix_socket:
                typer.echo(f"Liar's Dice server: listening on unix socket {unix_socket}  (database: {_safe(db)}; Ctrl+C stops)")
                sys.stdout.flush()
            elif self.started:
                bound = port
                for srv in self.servers:
                    for sock in srv.sockets:
                        bound = sock.getsockname()[1]
                shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
                if ":" in shown:
                    shown = f"[{shown}]"
                typer.echo(f"Liar's Dice server: open http://{shown}:{bound}/  (database: {_safe(db)}; Ctrl+C stops)")
                sys.stdout.flush()

    # Garbage collection: a full (generation 2) pass over the live tables stalls
    # every table for up to a few hundred ms under load; game objects form few
    # cycles, so collect young generations less often and full ones rarely.
    gc.set_threshold(20_000, 20, 100)
    gc.freeze()
    # The database writer thread needs the GIL for each commit; hand it over
    # sooner than the default 5 ms while the event loop is busy.
    sys.setswitchinterval(0.001)
    if not unix_socket and port:
        taken = _port_taken(host, port)
        if taken:
            typer.echo(taken, err=True)
            raise typer.Exit(2)
    if unix_socket:
        try:
            listener = bind_unix_socket(unix_socket)
        except OSError as e:
            typer.echo(f"Cannot listen on unix socket {unix_socket}: {e.strerror}.", err=True)
            raise typer.Exit(2)
        _Server(config).run(sockets=[listener])
    else:
        _Server(config).run()


def bind_unix_socket(path: str) -> socket.socket:
    """A listening unix socket at ``path``, mode :data:`UNIX_SOCKET_MODE` from
    its creation (a stale socket file there is replaced). uvicorn's own bind
    makes the file 0666 and the server tightened it only once started: a local
    user connected in that window in 1 of 5 starts (the stop-34 attacker),
    and behind ``--trusted-proxy unix`` was then believed as the proxy.

    :raises OSError: the path cannot be bound (a directory missing, another
        file there, no permission).
    """
    if os.path.exists(path) and stat.S_ISSOCK(os.stat(path).st_mode):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o777 & ~UNIX_SOCKET_MODE)
    try:
        sock.bind(path)
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(old)
    os.chmod(path, UNIX_SOCKET_MODE)
    sock.listen(2048)
    sock.set_inheritable(False)
    return sock


def _port_taken(host: str, port: int) -> str | None:
    """The sentence saying ``host``:``port`` cannot be listened on (another
    server has it, or the address is not this machine's), or ``None``.
    Without it uvicorn printed ``[Errno 98] error while attempting to bind``
    and exited 3 (a new user's find)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            s.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return f"Port {port} on {host} is in use (another server?): choose another with --port."
            return f"Cannot listen on {host}:{port}: {e.strerror}."
    return None


def _route_problem(route: str, workers: int, redis: str) -> str | None:
    """The sentence refusing ``--route`` as given, or ``None``: routes need
    several workers (``--redis``), and each worker's name must be one."""
    if not route:
        return None
    if not redis:
        return "--route needs --redis: routes name the workers that share their tables through Redis."
    from ..server.core.config import check_route

    try:
        check_route(f"{route}{workers - 1}" if workers > 1 else route)
    except ValueError as e:
        return str(e)
    return None


def default_hosts(bind: str, public_url: str, given: list[str], proxied: bool = False) -> tuple[str, ...]:
    """The ``Host`` names the server answers to: ``given`` when any; behind a
    ``proxied`` front (``--trusted-proxy``), any (the front's ``server_name``
    chooses); on a loopback ``bind`` address, the loopback names plus
    ``public_url``'s host (a page on another site cannot reach a local server
    by pointing its own name at 127.0.0.1: DNS rebinding); elsewhere any (``*``)."""
    if given:
        return tuple(given)
    if proxied:
        return ("*",)
    import ipaddress
    from urllib.parse import urlsplit

    try:
        loopback = bind == "localhost" or ipaddress.ip_address(bind).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        return ("*",)
    # an IPv6 literal as the Host header has it, in brackets ("[::1]:8000"; starlette keeps
    # them): a bare "::1" matched nothing, and a browser at http://[::1]:8000/ got 400
    hosts = ["localhost", "127.0.0.1", "[::1]"]
    own = f"[{bind}]" if ":" in bind else bind
    if own not in hosts:
        hosts.append(own)
    if public_url and urlsplit(public_url).hostname:
        hosts.append(str(urlsplit(public_url).hostname))
    return tuple(hosts)


def _safe(url: str) -> str:
    """The database URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, hostpart = rest.rsplit("@", 1)
        user = cred.split(":", 1)[0]
        return f"{scheme}://{user}:***@{hostpart}"
    return url
