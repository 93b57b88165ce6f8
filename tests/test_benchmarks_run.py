"""The issue 16 benchmarks run end to end on a tiny setting: ``server_scale.py``
on 1 worker (``--workers 1 --redis``), and ``server_load.py --attack`` on 2 workers behind the shipped
nginx with every attack of the issue (keep-alive connections, forged
``X-Forwarded-For``, visitors filling a table, ``bots_learn`` tables). Real
PostgreSQL (a fresh database per run: the role needs ``CREATEDB``, as ``.ci/run``
grants), a ``redis-server`` of the run's own and Debian's nginx.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
POSTGRES_URL = os.environ.get("LIARS_DICE_TEST_POSTGRES_URL")
REDIS_URL = os.environ.get("LIARS_DICE_TEST_REDIS_URL")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL),
                       reason="LIARS_DICE_TEST_POSTGRES_URL or LIARS_DICE_TEST_REDIS_URL is not set"),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed"),
]


def run(script: str, *argv: str) -> dict[str, Any]:
    """Run a benchmark script; returns its ``RESULT`` JSON."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, str(BENCH / script), *argv], capture_output=True, text=True, timeout=120,
                         env=env, cwd=BENCH)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    assert out.returncode == 0 and lines, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Traceback" not in out.stdout, out.stdout[-3000:]
    result: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    return result


def test_server_scale_runs() -> None:
    assert POSTGRES_URL is not None
    r = run("server_scale.py", "--workers", "1", "--db", POSTGRES_URL, "--start", "2", "--step", "2",
            "--max-tables", "2", "--window", "3", "--settle", "1")
    windows = r["runs"][0]["windows"]
    assert len(windows) == 1
    w = windows[0]
    assert w["tables"] == 2 and w["moves_per_s"] > 0, w
    assert w["cpu_ms_per_move"] > 0 and w["pg_commits_per_move"] > 0 and w["redis_commands_per_move"] > 0, w
    assert w["bytes_to_clients_per_move"] > 100, w


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (.ci/run installs it)")
def test_the_attack_runs_on_two_workers_behind_the_shipped_nginx() -> None:
    assert POSTGRES_URL is not None
    r = run("server_load.py", "--workers", "2", "--nginx", "--db", POSTGRES_URL, "--attack", "--tables", "3",
            "--seats", "2", "--duration", "4", "--warmup", "0.5", "--settle", "0.5", "--attack-sockets", "20",
            "--attack-keepalive", "20", "--attack-learn", "1")
    assert set(r["windows"]) == {"before", "during", "after"}
    assert r["moves_per_s"] > 0 and r["pg_commits_per_move"] > 0, r
    got = r["attacker"]
    assert isinstance(got, dict)
    for kind in ("create", "guess", "keep-alive", "learn", "socket", "malformed"):
        assert any(k.startswith(kind) for k in got), (kind, got)
