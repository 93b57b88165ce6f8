"""``liars-dice serve --workers N --redis URL`` (issue 16): more than one
worker needs PostgreSQL and Redis, refused in one sentence otherwise, before
anything starts; one worker with no options is today's server."""

from __future__ import annotations

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


def test_every_serve_option_but_workers_and_port_goes_on_to_the_workers() -> None:
    """Issue 16 benchmarks: the supervisor dropped --trusted-proxy and
    --reveal-seconds, so behind nginx every client was the proxy's address."""
    import inspect

    from liars_dice.cli.serve import serve_command, worker_argv

    names = [n for n in inspect.signature(serve_command).parameters if n not in ("workers", "port")]
    values: dict[str, object] = {}
    for n in names:
        default = inspect.signature(serve_command).parameters[n].default.default
        values[n] = True if isinstance(default, bool) else ["a", "b"] if isinstance(default, list) else f"v-{n}"
    argv = worker_argv(values)
    for n in names:
        assert "--" + n.replace("_", "-") in argv, n
    assert worker_argv({"trusted_proxy": ["127.0.0.1", "10.0.0.0/8"], "reveal_seconds": 0.0, "durable": False,
                        "public_url": ""}) == ["--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8",
                                               "--reveal-seconds", "0.0"]
    cmd = worker_command(0, 8001, argv)
    assert cmd[cmd.index("--trusted-proxy") + 1] == "a"
