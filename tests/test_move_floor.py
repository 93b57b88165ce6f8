"""``benchmarks/move_floor.py`` runs end to end on a tiny setting: its floor
servers (websockets alone, and with the store's commit) answer each move with
the real server's frames, and the real server runs beside them with the same
clients. The figures themselves are in benchmarks/RESULTS.md (issue 16)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from move_floor import ready_port  # benchmarks/ (tests/conftest.py puts it on the path)

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def test_the_floor_server_answers_a_move_with_an_ack_and_a_state_to_every_seat() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ld-floor-test-"))
    port_file = folder / "port"
    proc = subprocess.Popen([sys.executable, str(BENCH / "move_floor.py"), "--serve", str(port_file), "--store"],
                            stdout=subprocess.PIPE, text=True)
    try:
        # its READY line, said once it accepts connections (a fixed 10 s wait for a
        # port file failed at load 10-22, issue 36 fault 10)
        port = ready_port(proc)

        async def play() -> list[tuple[int, dict[str, object]]]:
            socks = [await connect(f"ws://127.0.0.1:{port}/ws/abcdef123456/{k}") for k in range(4)]
            await socks[0].send(json.dumps({"type": "move", "id": 0}))
            got = [(k, json.loads(await asyncio.wait_for(socks[k].recv(), 10))) for k in range(4)]
            got.append((0, json.loads(await asyncio.wait_for(socks[0].recv(), 10))))
            for s in socks:
                await s.close()
            return got

        got = asyncio.run(play())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert got[0] == (0, {"type": "ack", "id": 0})
    states = [(k, m) for k, m in got[1:]]
    assert [k for k, _ in states] == [1, 2, 3, 0]
    assert all(m["type"] == "state" and m["turn"] == 1 for _, m in states)
    # the real server's state text of a move, per seat (benchmarks/state_messages.py)
    assert all(len(json.dumps(m)) == 1835 for _, m in states)
    # the store variant committed the move before answering it
    import sqlite3

    rows = sqlite3.connect(folder / "floor.db").execute("SELECT table_id, seq, kind FROM events").fetchall()
    assert rows == [("abcdef123456", 1, "move")]


@pytest.mark.slow
def test_move_floor_runs_and_compares_the_real_server_with_both_floors() -> None:
    out = subprocess.run([sys.executable, str(BENCH / "move_floor.py"), "--tables", "4", "--duration", "2",
                          "--warmup", "1", "--runs", "1"], capture_output=True, text=True, timeout=300, cwd=BENCH,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    assert out.returncode == 0 and lines, out.stdout[-3000:] + out.stderr[-3000:]
    result = json.loads(lines[-1].removeprefix("RESULT "))
    assert set(result) == {"websockets", "websockets+store", "liars-dice serve"}
    # a 2 s floor run can measure no CPU tick at all; the real server always plays some
    assert all(v["median"] >= 0 for v in result.values()) and result["liars-dice serve"]["median"] > 0, result
    assert "liars-dice serve / this" in out.stdout


def test_the_wait_for_the_floor_server_is_its_readiness_or_its_exit() -> None:
    """Issue 36, fault 10: the test and ``benchmarks/move_floor.py`` waited a fixed
    10 s for a port file and failed at load 10-22. They wait for the server's
    ``READY PORT`` line; a server that dies first is said at once, with its
    exit code, not after a deadline."""
    said = subprocess.Popen([sys.executable, "-c", "print('starting'); print('READY 4321', flush=True)"],
                            stdout=subprocess.PIPE, text=True)
    assert ready_port(said) == 4321
    said.wait(timeout=60)
    died = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"], stdout=subprocess.PIPE, text=True)
    with pytest.raises(RuntimeError, match=r"exited before it was ready \(exit code 3\)"):
        ready_port(died)
