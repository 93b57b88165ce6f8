"""Attack: does sign-in time tell an unknown name from a wrong password?
Each attempt comes from its own loopback address (127.0.0.2 and up), so the
per-address rate never answers first. Prints the medians.

    python benchmarks/attack/signin_timing.py http://127.0.0.1:8301 20
"""
from __future__ import annotations

import statistics
import sys
import time

import httpx

PW = "correct horse battery staple"


def main(url: str, n: int) -> None:
    tag = str(int(time.time()) % 100000)
    with httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address="127.0.0.250")) as c:
        assert c.post("/api/account/sign-up", json={"name": f"tim{tag}", "password": PW}).status_code == 201
    times: dict[str, list[float]] = {"unknown name": [], "wrong password": []}
    for i in range(n):
        for kind, name in (("unknown name", f"nobody{tag}x{i}"), ("wrong password", f"tim{tag}")):
            addr = f"127.0.{1 + i // 200}.{2 + (i % 200)}" if kind == "unknown name" else f"127.0.{10 + i // 200}.{2 + (i % 200)}"
            with httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address=addr)) as c:
                t0 = time.perf_counter()
                r = c.post("/api/account/sign-in", json={"name": name, "password": f"wrong guess {i}"})
                times[kind].append(time.perf_counter() - t0)
                assert r.status_code == 401, (r.status_code, r.text)
    for k, v in times.items():
        print(f"{k:15} median {statistics.median(v) * 1000:7.1f} ms over {len(v)}")
    print(f"ratio wrong/unknown: {statistics.median(times['wrong password']) / statistics.median(times['unknown name']):.3f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
