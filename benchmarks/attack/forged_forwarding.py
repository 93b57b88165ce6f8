"""Attack: forged X-Forwarded-For / Forwarded headers and odd Host headers
against a server with no --trusted-proxy: every sign-in must still count
against the one real address, and a foreign Host must be refused.

    python benchmarks/attack/forged_forwarding.py http://127.0.0.1:8301
"""
from __future__ import annotations

import sys

import httpx


def main(url: str) -> None:
    codes = []
    with httpx.Client(base_url=url, timeout=60) as c:
        for i in range(12):
            h = {"X-Forwarded-For": f"203.0.113.{i}", "Forwarded": f"for=198.51.100.{i}", "X-Real-IP": f"192.0.2.{i}"}
            codes.append(c.post("/api/account/sign-in", json={"name": f"n{i}", "password": "wrong password"}, headers=h).status_code)
        print("12 sign-ins, each with new forged forwarding headers:", codes)
        for host in ["evil.example", "127.0.0.1.evil.example", "localhost:8301@evil.example", "LOCALHOST", "[::1]", "127.0.0.1 ", "", "a" * 300]:
            try:
                r = c.get("/api/config", headers={"Host": host})
                print(f"Host {host[:40]!r}: {r.status_code}")
            except Exception as e:  # noqa: BLE001
                print(f"Host {host[:40]!r}: {type(e).__name__}")


if __name__ == "__main__":
    main(sys.argv[1])
