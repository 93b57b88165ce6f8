"""Close codes tell a server failure from a client's misbehaviour (issue 16, fault 14).

"Every close from the server is code 1008, so a client cannot tell a server
failure from its own misbehaviour", and the page reconnected after any close
(304 times in 6 s when every write failed). docs/server-protocol.md ("Close
codes") lists the codes; these read them from a real uvicorn server on
loopback, and run the page's own reconnect rule (static/js/api.js) under node.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import httpx
import pytest
from live import live_server
from sockets import close_code, hello, until, ws_from

from liars_dice.server import Settings
from liars_dice.server.core.security import new_code

API_JS = Path(__file__).parents[2] / "src" / "liars_dice" / "server" / "static" / "js" / "api.js"


def test_no_hello_in_time_is_the_clients_fault_1008(tmp_path: Path) -> None:
    with live_server(Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", hello_timeout=0.5)) as url:
        t = httpx.post(f"{url}/api/tables", json={"nickname": "ann", "seats": 2}).json()
        ws = ws_from(url, t["code"], "127.0.0.2")
        assert close_code(ws) == 1008


def test_a_database_failure_is_a_server_failure_1011(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with live_server(Settings(db_url=f"sqlite:///{db}")) as url:
        with sqlite3.connect(db) as conn:  # the database loses the tables' table
            conn.execute("ALTER TABLE tables RENAME TO tables_gone")
        try:
            ws = ws_from(url, new_code(), "127.0.0.2")  # a code not in memory: read from the database
            err = json.loads(ws.recv(timeout=10))
            assert err["type"] == "error" and err["code"] == "server/unavailable", err
            assert close_code(ws) == 1011
        finally:
            with sqlite3.connect(db) as conn:
                conn.execute("ALTER TABLE tables_gone RENAME TO tables")


def test_a_server_going_away_says_so_1012(tmp_path: Path) -> None:
    server = live_server(Settings(db_url=f"sqlite:///{tmp_path / 't.db'}"))
    url = server.__enter__()
    try:
        t = httpx.post(f"{url}/api/tables", json={"nickname": "ann", "seats": 2}).json()
        ws = ws_from(url, t["code"], "127.0.0.2")
        assert hello(ws, t["token"])["type"] == "welcome"
        until(ws, lambda m: m["type"] == "presence")
    finally:
        server.__exit__(None, None, None)  # the server stops (a restart or a deploy)
    assert close_code(ws) in (1001, 1012)


def test_refusals_have_codes_of_their_own(tmp_path: Path) -> None:
    with live_server(Settings(db_url=f"sqlite:///{tmp_path / 't.db'}")) as url:
        ws = ws_from(url, new_code(), "127.0.0.2")
        assert json.loads(ws.recv(timeout=10))["code"] == "table/not_found"
        assert close_code(ws) == 4404


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's reconnect rule")
def test_the_page_reconnects_after_a_server_failure_and_not_after_its_own_fault() -> None:
    script = (
        f"import {{ reconnectDelay }} from {json.dumps(API_JS.as_uri())};\n"
        "const codes = [1000, 1001, 1006, 1008, 1009, 1011, 1012, 4400, 4403, 4404, 4408, 4429];\n"
        "const out = {};\n"
        "for (const c of codes) out[c] = [0, 1, 2, 3, 10].map((r) => reconnectDelay(c, r, () => 0.5));\n"
        "console.log(JSON.stringify(out));\n"
    )
    run = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    delays = {int(k): v for k, v in json.loads(run.stdout).items()}
    for code in (1008, 1009, 4400, 4403, 4404):  # the client's fault or a refusal: reconnecting cannot help
        assert delays[code] == [None] * 5, (code, delays[code])
    for code in (1001, 1006, 1011, 1012, 4408):  # the server failed or restarts: back off, then retry
        assert delays[code] == [375, 750, 1500, 3000, 3750], (code, delays[code])
    assert delays[4429][0] >= 7500 and delays[4429][-1] <= 60000  # over a cap: not soon
