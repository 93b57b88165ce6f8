"""Prometheus metrics at ``/metrics`` (issue 36, "What operators expect":
"tables and sockets open, moves a second, a move's latency as a histogram,
store commit latency, Redis and database errors, the bot queue's depth,
Argon2 hashes waiting. Not served to the public through the shipped nginx").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from liars_dice.server import Settings

from .helpers import Player, create, join
from .live import live_server

NAMES = ("liars_dice_tables_open", "liars_dice_sockets_open", "liars_dice_moves_total", "liars_dice_move_seconds_bucket",
         "liars_dice_store_commit_seconds_bucket", "liars_dice_database_errors_total", "liars_dice_redis_errors_total",
         "liars_dice_bot_queue_depth", "liars_dice_hashes_waiting")


def _value(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in the metrics")


def test_a_game_shows_in_the_metrics(client: TestClient) -> None:
    """The TestClient's peer is ``testclient`` (neither loopback nor a unix
    socket), so the metrics are read from the app's own exposition here; the
    peers are tested below, through a real server."""
    from liars_dice.server.edge.app import _sample
    from liars_dice.server.runtime import metrics

    before = _value(metrics.exposition().decode(), "liars_dice_moves_total")
    t = create(client, "ann", seats=2)
    j = join(client, t["code"], "bob")
    ann, bob = Player(client, t["code"], t["token"]), Player(client, t["code"], j["token"])
    ann.send({"type": "start", "id": "s"})
    assert ann.wait(lambda m: m.get("id") == "s")["type"] == "ack"
    _sample(client.app)  # type: ignore[arg-type]
    text = metrics.exposition().decode()
    for name in NAMES:
        _value(text, name)
    assert _value(text, "liars_dice_moves_total") >= before + 3  # created, joined, started (and the deal)
    assert _value(text, "liars_dice_tables_open") >= 1 and _value(text, "liars_dice_sockets_open") >= 2
    assert _value(text, 'liars_dice_store_commit_seconds_bucket{le="+Inf"}') >= 3
    ann.close()
    bob.close()


def test_metrics_are_served_to_this_machine_only(tmp_path: Path) -> None:
    """A loopback peer reads them; a client behind a trusted proxy (the public,
    as the shipped nginx passes them on) is refused in one sentence."""
    from liars_dice.server.edge.proxies import parse_proxies

    with live_server(Settings(db_url=f"sqlite:///{tmp_path / 'm.db'}", trusted_proxies=parse_proxies(["127.0.0.2"]))) as url:
        r = httpx.get(url + "/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain"), r.text
        assert "liars_dice_moves_total" in r.text
        proxied = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        r = proxied.get(url + "/metrics", headers={"X-Forwarded-For": "198.51.100.7"})
        assert r.status_code == 403 and r.json()["error"] == {
            "code": "metrics/refused", "message": "The metrics are served to this machine only."}
        proxied.close()


def test_the_workers_metrics_are_summed_in_multiprocess_mode(tmp_path: Path) -> None:
    """``PROMETHEUS_MULTIPROC_DIR`` (set by ``serve --workers N``'s supervisor
    for its run): each process writes its own files, and any one's exposition
    sums them; a dead worker's gauges leave the sums."""
    shared = tmp_path / "prom"
    shared.mkdir()
    code = (
        "from liars_dice.server.runtime import metrics\n"
        "metrics.TABLES_OPEN.set(3); metrics.moved(0.01); metrics.HASHES_WAITING.inc()\n"
        "import os; print(os.getpid())\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared)}
    pids = [int(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
            for _ in range(2)]
    read = ("from liars_dice.server.runtime import metrics; import sys\n"
            "sys.stdout.write(metrics.exposition().decode())\n")
    text = subprocess.run([sys.executable, "-c", read], env=env, capture_output=True, text=True, check=True).stdout
    assert _value(text, "liars_dice_moves_total") == 2 and _value(text, "liars_dice_tables_open") == 6
    from liars_dice.server.runtime.metrics import worker_gone

    worker_gone(pids[0], str(shared))
    text = subprocess.run([sys.executable, "-c", read], env=env, capture_output=True, text=True, check=True).stdout
    assert _value(text, "liars_dice_tables_open") == 3 and _value(text, "liars_dice_moves_total") == 2


@pytest.mark.skipif(__import__("shutil").which("nginx") is None, reason="nginx is not installed")
def test_the_shipped_nginx_does_not_serve_the_metrics(tmp_path: Path) -> None:
    from .test_nginx_limits import _front, shipped_trusted_proxies

    with live_server(Settings(db_url=f"sqlite:///{tmp_path / 'n.db'}", trusted_proxies=shipped_trusted_proxies())) as url:
        proc, listen = _front(tmp_path, int(url.rsplit(":", 1)[1]))
        try:
            front = f"http://127.0.0.1:{listen}"
            for path in ("/metrics", "/metrics?x=1"):
                assert httpx.get(front + path).status_code == 404
            assert httpx.get(front + "/healthz").status_code == 200
            assert httpx.get(url + "/metrics").status_code == 200  # on the machine, at the worker's own port
        finally:
            proc.terminate()
            proc.wait(timeout=10)
