"""``liars-dice serve --workers N --redis URL`` (issue 16): more than one
worker needs PostgreSQL and Redis, refused in one sentence otherwise, before
anything starts; one worker with no options is today's server."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from liars_dice.cli import app
from liars_dice.cli.serve_workers import cluster_problem, worker_command


def test_more_than_one_worker_without_postgres_and_redis_is_refused() -> None:
    r = CliRunner().invoke(app, ["serve", "--workers", "2"])
    assert r.exit_code == 2
    assert "--workers 2 needs --db postgresql://... and --redis redis://..." in r.output
    r = CliRunner().invoke(app, ["serve", "--workers", "2", "--db", "postgresql://u@h/db"])
    assert r.exit_code == 2 and "needs --db postgresql://... and --redis" in r.output


def test_redis_needs_postgres_and_a_redis_url() -> None:
    assert cluster_problem(1, "sqlite:///x.db", "redis://h:6379/0") == (
        "--redis needs --db postgresql://...: workers share their tables through PostgreSQL, not SQLite."
    )
    assert cluster_problem(2, "postgresql://u@h/db", "http://h") == "--redis takes a URL redis://HOST:PORT/DB, not 'http://h'."
    assert cluster_problem(0, "sqlite:///x.db", "") == "--workers takes 1 or more, not 0."
    assert cluster_problem(1, "sqlite:///x.db", "") is None, "the embedded default is unchanged"
    assert cluster_problem(4, "postgresql://u@h/db", "redis://h:6379/0") is None


def test_worker_i_listens_on_port_plus_i() -> None:
    cmd = worker_command(2, 8001, ["--db", "postgresql://u@h/db", "--redis", "redis://h/0"])
    assert cmd[cmd.index("--port") + 1] == "8003" and cmd[cmd.index("--workers") + 1] == "1"
    assert cmd[3:8] == ["serve", "--db", "postgresql://u@h/db", "--redis", "redis://h/0"]


def test_the_workers_get_the_supervisors_options_from_the_real_command() -> None:
    """The serve command as typer builds it (typer 0.29 brings its own copy of
    click: its options are not ``click.Option``s, so every option was dropped,
    and ``serve --workers 2`` stopped with "There is no active click context")."""
    from typer.main import get_command

    from liars_dice.cli.serve_workers import worker_argv

    group: Any = get_command(app)
    serve = group.commands["serve"]
    argv = worker_argv(serve, {"trusted_proxy": ["127.0.0.1"], "allowed_host": ["dice.example"],
                               "workers": 2, "port": 9000, "durable": True})
    assert argv[argv.index("--trusted-proxy") + 1] == "127.0.0.1"
    assert argv[argv.index("--allowed-host") + 1] == "dice.example"
    assert "--durable" in argv and "--workers" not in argv and "--port" not in argv


def test_worker_i_on_a_unix_socket_listens_on_its_own_path() -> None:
    from liars_dice.cli.serve_workers import worker_socket

    assert worker_socket("/run/liars-dice/worker.sock", 0) == "/run/liars-dice/worker-0.sock"
    assert worker_socket("/run/liars-dice/w", 3) == "/run/liars-dice/w-3"
    cmd = worker_command(1, 8001, ["--trusted-proxy", "unix"], "/run/liars-dice/worker.sock")
    assert cmd[cmd.index("--unix-socket") + 1] == "/run/liars-dice/worker-1.sock"
    assert "--port" not in cmd and cmd[cmd.index("--workers") + 1] == "1"


def test_the_supervisors_unix_socket_is_not_passed_to_the_workers_as_it_is() -> None:
    from typer.main import get_command

    from liars_dice.cli.serve_workers import worker_argv

    group: Any = get_command(app)
    argv = worker_argv(group.commands["serve"], {"unix_socket": "/run/liars-dice/worker.sock", "workers": 2})
    assert "--unix-socket" not in argv, "each worker gets its own path from worker_command"


def test_a_port_in_use_is_refused_in_one_sentence() -> None:
    import socket
    import subprocess
    import sys
    from pathlib import Path

    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        cli = str(Path(sys.executable).with_name("liars-dice"))
        run = subprocess.run([cli, "serve", "--port", str(port), "--db", "sqlite:///:memory:"],
                             capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.strip() == (
        f"Port {port} on 127.0.0.1 is in use (another server?): choose another with --port."
    ), (run.returncode, run.stderr)


def test_a_route_that_is_not_a_name_or_has_no_redis_is_refused_before_anything_starts() -> None:
    r = CliRunner().invoke(app, ["serve", "--route", "w"])
    assert r.exit_code == 2 and "--route needs --redis" in r.output
    r = CliRunner().invoke(app, ["serve", "--route", "a b", "--db", "postgresql://u@h/db", "--redis", "redis://h/0"])
    assert r.exit_code == 2 and "--route takes 1-12 letters, digits, '-' or '_'" in r.output
    r = CliRunner().invoke(app, ["serve", "--route", "abcdefghijk", "--workers", "12", "--db", "postgresql://u@h/db",
                                 "--redis", "redis://h/0"])
    assert r.exit_code == 2 and "'abcdefghijk11'" in r.output, "every worker's route is checked (the last one is too long)"
