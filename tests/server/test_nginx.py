"""deploy/nginx/liars-dice.conf, as shipped, in front of 3 workers
(issue 16, "A real front"): Debian's nginx on loopback with its own prefix in
``tmp_path`` and non-root ports; a whole game through it, the table's owner
SIGKILLed on the way.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from _cluster import free_ports  # benchmarks/_cluster.py (tests/conftest.py puts benchmarks/ on the path)

from .test_failover import play_killing_the_owner, workers
from .conftest import POSTGRES_URL, REDIS_URL

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
CONF = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "liars-dice.conf"
MAIN = CONF.with_name("nginx.conf")  # the shipped /etc/nginx/nginx.conf: its connection limits


def shipped_limits() -> str:
    """The shipped ``nginx.conf``'s ``worker_rlimit_nofile`` line and ``events``
    block, as written (a test front runs them unchanged)."""
    text = MAIN.read_text()
    rlimit = re.search(r"^worker_rlimit_nofile\s+\d+;", text, re.M)
    events = re.search(r"^events\s*\{[^}]*\}", text, re.M)
    assert rlimit and events, "the shipped nginx.conf sets worker_rlimit_nofile and events"
    return f"{rlimit.group(0)}\n{events.group(0)}"

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.skipif(not (POSTGRES_URL and REDIS_URL), reason="LIARS_DICE_TEST_POSTGRES_URL or LIARS_DICE_TEST_REDIS_URL is not set"),
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (.ci/run installs it)"),
]


def nginx_conf(tmp_path: Path, listen: int, ports: list[int]) -> Path:
    """A whole nginx.conf in ``tmp_path`` with the shipped one's connection
    limits (:func:`shipped_limits`) that includes the shipped server block
    with its ports replaced (nothing else changed)."""
    site = CONF.read_text().replace("listen 8080;", f"listen 127.0.0.1:{listen};")
    for shipped, port in zip((8001, 8002, 8003), ports):
        site = re.sub(rf"127\.0\.0\.1:{shipped}\b", f"127.0.0.1:{port}", site)
    assert not re.search(r"127\.0\.0\.1:800[1-3]\b", site), "every worker port replaced (the group and each worker's own)"
    (tmp_path / "liars-dice.conf").write_text(site)
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / d).mkdir(exist_ok=True)
    main = tmp_path / "nginx.conf"
    main.write_text(f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log warn;
{shipped_limits()}
http {{
    access_log {tmp_path}/access.log;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    fastcgi_temp_path {tmp_path}/fastcgi;
    uwsgi_temp_path {tmp_path}/uwsgi;
    scgi_temp_path {tmp_path}/scgi;
    include {tmp_path}/liars-dice.conf;
}}
""")
    return main


def test_a_whole_game_through_nginx_with_a_worker_killed(tmp_path: Path) -> None:
    assert NGINX is not None
    with workers(3, tmp_path) as urls:
        ports = [int(u.rsplit(":", 1)[1]) for u in urls]
        listen = free_ports(1)
        conf = nginx_conf(tmp_path, listen, ports)
        check = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        proc = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"])
        front = f"http://127.0.0.1:{listen}"
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    if httpx.get(front + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, (tmp_path / "error.log").read_text()
                time.sleep(0.1)
            failover = play_killing_the_owner(front, front, [[front], [front]], tmp_path)
            print(f"failover through nginx: {failover:.2f} s")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
