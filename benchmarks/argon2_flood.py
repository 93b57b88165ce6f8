"""An honest sign-in under a distributed Argon2 flood (issue 36, fault 5).

"100 client addresses through nginx, one wrong sign-in each, three waves:
honest sign-ins took 28.6, 8.3, 34.3 and 11.9 s, and one got 503."

A real ``liars-dice serve`` (one worker, SQLite, the default Argon2id
parameters, 127.0.0.2 a trusted proxy, so each request names its client
address in ``X-Forwarded-For``). The flood: ``--addresses`` addresses, one
wrong sign-in each, all at once, ``--waves`` times. During each wave, honest
sign-ins from fresh addresses, one at a time, the next ``--every`` seconds
after the answer. Prints the
honest sign-ins' median and p95 in seconds, against the same sign-in's median
on the quiet server (the ratio), and every answer's status by kind.

    PYTHONPATH=src python benchmarks/argon2_flood.py --addresses 100 --waves 3
    PYTHONPATH=/path/to/other/src python benchmarks/argon2_flood.py ...   # another tree
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

PASSWORD = "correct horse battery staple"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


async def run(url: str, addresses: int, waves: int, every: float) -> None:
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2", limits=httpx.Limits(max_connections=addresses + 50))
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=120) as c:
        r = await c.post("/api/account/sign-up", json={"name": "honest", "password": PASSWORD},
                         headers={"X-Forwarded-For": "203.0.113.250"})
        assert r.status_code == 201, r.text
        fresh = iter(range(1, 1_000_000))

        async def honest() -> tuple[float, int]:
            n = next(fresh)
            t0 = time.perf_counter()
            r = await c.post("/api/account/sign-in", json={"name": "honest", "password": PASSWORD},
                             headers={"X-Forwarded-For": f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"})
            return time.perf_counter() - t0, r.status_code

        quiet = [await honest() for _ in range(5)]
        quiet_median = statistics.median(t for t, _ in quiet)
        flood_codes: collections.Counter[int] = collections.Counter()
        honest_codes: collections.Counter[int] = collections.Counter()
        times: list[float] = []

        async def wrong(i: int, wave: int) -> None:
            r = await c.post("/api/account/sign-in", json={"name": f"x{wave}-{i}", "password": "wrong password!"},
                             headers={"X-Forwarded-For": f"198.51.{100 + i // 250}.{i % 250 + 1}"})
            flood_codes[r.status_code] += 1

        for wave in range(waves):
            flood = asyncio.ensure_future(asyncio.gather(*(wrong(i, wave) for i in range(addresses))))
            await asyncio.sleep(0.05)  # the wave's requests reach the server first
            while not flood.done():  # one honest person at a time, signing in again as soon as answered
                t, status = await honest()
                times.append(t)
                honest_codes[status] += 1
                await asyncio.wait([flood], timeout=every)
        print(f"quiet: honest sign-in median {quiet_median:.3f} s (5 runs)")
        print(f"flood: {addresses} addresses x {waves} waves; answers {dict(sorted(flood_codes.items()))}")
        print(f"honest under the flood: {len(times)} sign-ins, answers {dict(sorted(honest_codes.items()))}, "
              f"median {statistics.median(times):.3f} s, p95 {p95(times):.3f} s, max {max(times):.3f} s; "
              f"p95 / quiet median {p95(times) / quiet_median:.1f}x; 5xx {sum(v for k, v in honest_codes.items() if k >= 500)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--addresses", type=int, default=100)
    ap.add_argument("--waves", type=int, default=3)
    ap.add_argument("--every", type=float, default=0.2, help="seconds between an honest sign-in's answer and the next")
    args = ap.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-c", "from liars_dice.cli import main; main()", "serve", "--host", "127.0.0.1", "--port", str(port),
               "--db", f"sqlite:///{Path(tmp) / 'flood.db'}", "--trusted-proxy", "127.0.0.2",
               "--limit", "signup_rate_address=1000/minute", "--log-level", "warning"]
        server = subprocess.Popen(cmd, env=os.environ.copy())
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(1200):  # up to 2 minutes on a loaded machine
                try:
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
            assert server.poll() is None, "the server did not start"
            asyncio.run(run(url, args.addresses, args.waves, args.every))
        finally:
            server.terminate()
            server.wait(timeout=20)


if __name__ == "__main__":
    main()
