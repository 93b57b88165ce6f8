"""DNS rebinding and the supervisor's options (issue 16, "test as an attacker").

A web page at ``evil.example`` that points its own name at 127.0.0.1 makes the
visitor's browser talk to a local ``liars-dice serve`` as if it were its own
site: same-origin, so the ``Origin`` check (which compares with ``Host``)
passes. ``serve`` on a loopback address therefore answers only the loopback
host names (``--allowed-host`` widens it). And ``serve --workers N`` gives
each worker every option it was given: it used to drop ``--trusted-proxy``
and ``--reveal-seconds``, so the workers behind nginx saw every client as
127.0.0.1.
"""

from __future__ import annotations

import httpx
import pytest
import websockets

from liars_dice.cli.serve import default_hosts, serve_command
from liars_dice.cli.serve_workers import worker_argv, worker_env
from liars_dice.server import Settings

from .helpers import run_in_thread
from .live import live_server


def test_a_loopback_server_answers_only_loopback_names() -> None:
    assert default_hosts("127.0.0.1", "", []) == ("localhost", "127.0.0.1", "[::1]")
    assert default_hosts("127.0.0.2", "https://dice.example/", []) == ("localhost", "127.0.0.1", "[::1]", "127.0.0.2", "dice.example")
    assert default_hosts("::1", "", []) == ("localhost", "127.0.0.1", "[::1]")
    assert default_hosts("0.0.0.0", "", []) == ("*",), "a public bind answers any name unless told"
    assert default_hosts("127.0.0.1", "", ["dice.example"]) == ("dice.example",)
    assert default_hosts("127.0.0.1", "", [], proxied=True) == ("*",), "behind nginx, its server_name chooses"


def test_a_page_that_rebinds_its_name_to_the_server_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(db_url=f"sqlite:///{tmp_path}/h.db", allowed_hosts=default_hosts("127.0.0.1", "", []))
    with live_server(settings) as url:
        port = url.rsplit(":", 1)[1]
        assert httpx.get(url + "/api/tables").status_code == 200
        assert httpx.get(url + "/api/tables", headers={"host": f"localhost:{port}"}).status_code == 200
        # a browser at http://[::1]:PORT/ sends the literal in brackets (a bare "::1" in the list matched nothing)
        assert httpx.get(url + "/api/tables", headers={"host": f"[::1]:{port}"}).status_code == 200
        evil = httpx.get(url + "/api/tables", headers={"host": f"evil.example:{port}"})
        assert evil.status_code == 400 and "host" in evil.text.lower()
        made = httpx.post(url + "/api/tables", json={"nickname": "ann", "preset": "classic", "seats": 2},
                          headers={"host": f"evil.example:{port}"})
        assert made.status_code == 400
        assert httpx.get(url + "/api/tables").json()["tables"] == [], "the refused create made no table"

        async def socket_from(host: str) -> str:
            # The URL names the page's host (it is what the browser sends); the socket goes to the server.
            try:
                async with websockets.connect(f"ws://{host}/ws/tables/ABCDEF", host="127.0.0.1", port=int(port),
                                              additional_headers={"Origin": f"http://{host}"}) as ws:
                    await ws.recv()
            except websockets.InvalidStatus as e:
                return f"refused {e.response.status_code}"
            except websockets.ConnectionClosed as e:
                return f"closed {e.rcvd.code if e.rcvd else None}"
            return "open"

        assert run_in_thread(socket_from(f"evil.example:{port}")) == "refused 400"
        assert not run_in_thread(socket_from(f"127.0.0.1:{port}")).startswith("refused"), "the own name reaches the table check"


def test_every_serve_option_reaches_the_workers() -> None:
    from typer.main import get_command

    from liars_dice.cli import app
    from liars_dice.cli.serve_workers import OWN_OPTIONS

    serve = get_command(app).commands["serve"]  # type: ignore[attr-defined]
    values = {}
    for param in serve.params:
        if param.param_type_name == "option" and param.name not in (*OWN_OPTIONS, "help"):
            if param.is_flag:
                values[param.name] = True
            elif param.multiple:
                values[param.name] = ["x1", "x2"]
            else:
                values[param.name] = "v-" + str(param.name)
    assert len(values) >= 10, f"serve's options were not found (only {sorted(values)})"
    argv = worker_argv(serve, values)
    env = worker_env(serve, values)
    # the URLs that may hold passwords go by the environment, out of `ps` (the new user's find)
    assert env == {"LIARS_DICE_DB": "v-db", "LIARS_DICE_REDIS": "v-redis"}, env
    assert "v-db" not in argv and "v-redis" not in argv
    for name, value in values.items():
        flag = "--" + name.replace("_", "-")
        if name in ("db", "redis"):
            continue
        assert flag in argv, f"{flag} is not passed to the workers"
        if isinstance(value, list):
            assert argv.count(flag) == 2
    assert "--workers" not in argv and "--port" not in argv
    # each worker gets its own port, socket and route from worker_command
    assert set(OWN_OPTIONS) == {"workers", "port", "unix_socket", "route"}
    assert worker_argv(serve, {"trusted_proxy": [], "grace": 120.0}) == [], "defaults are left out"
