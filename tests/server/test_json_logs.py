"""``liars-dice serve --log-json`` (issue 36: "Optional JSON logs, one line
per event, with the table and the worker")."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from pathlib import Path

import httpx

from liars_dice.server.edge.json_logs import TABLE, JsonFormatter


def test_a_line_names_its_worker_and_its_table() -> None:
    fmt = JsonFormatter("w1")
    record = logging.LogRecord("liars_dice.x", logging.WARNING, __file__, 1, "stored %d moves", (3,), None)
    assert json.loads(fmt.format(record)) == {
        "time": json.loads(fmt.format(record))["time"], "level": "warning", "logger": "liars_dice.x",
        "message": "stored 3 moves", "worker": "w1"}
    token = TABLE.set("ABCDEF")
    try:
        line = json.loads(fmt.format(record))
    finally:
        TABLE.reset(token)
    assert line["table"] == "ABCDEF" and "\n" not in fmt.format(record)


def test_serve_logs_json_lines(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-c", "from liars_dice.cli import main; main()", "serve", "--port", str(port),
           "--db", f"sqlite:///{tmp_path / 'j.db'}", "--log-json", "--log-level", "info"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    lines = [json.loads(line) for line in err.splitlines() if line.strip()]
    assert lines and all(line["worker"] == str(proc.pid) and {"time", "level", "logger", "message"} <= set(line) for line in lines)
    assert any(line["logger"].startswith("uvicorn") for line in lines)
