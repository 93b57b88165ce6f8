"""Attack: many addresses (through a trusted proxy's X-Forwarded-For) send
wrong sign-ins at once, each under its address's rate; then one real user
signs in. Prints how long the real sign-in waited and how many floods
were answered what.

    liars-dice serve --port 8300 --trusted-proxy 127.0.0.1 --db sqlite:////tmp/attack/a.db
    python benchmarks/attack/signin_flood.py http://127.0.0.1:8300 60
"""
from __future__ import annotations

import asyncio
import collections
import sys
import time

import httpx

PASSWORD = "correct horse battery staple"


async def main(url: str, n: int) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=600) as c:
        r = await c.post("/api/account/sign-up", json={"name": f"real{int(time.time()) % 100000}", "password": PASSWORD})
        name = r.json()["account"]["name"]
        statuses: collections.Counter[int] = collections.Counter()

        async def flood(i: int) -> None:
            r = await c.post("/api/account/sign-in", json={"name": f"x{i}", "password": "wrong password!"},
                             headers={"X-Forwarded-For": f"10.9.{i // 250}.{i % 250 + 1}"})
            statuses[r.status_code] += 1

        tasks = [asyncio.create_task(flood(i)) for i in range(n)]
        await asyncio.sleep(0.5)
        t0 = time.perf_counter()
        async with httpx.AsyncClient(base_url=url, timeout=600) as me:
            r = await me.post("/api/account/sign-in", json={"name": name, "password": PASSWORD},
                              headers={"X-Forwarded-For": "192.0.2.77"})
        waited = time.perf_counter() - t0
        await asyncio.gather(*tasks)
        print(f"flood of {n} sign-ins from {n} addresses: real sign-in answered {r.status_code} after {waited:.1f} s; "
              f"flood answers {dict(statuses)}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
