"""Attack: the account routes, one probe each; prints what each answered.

    python benchmarks/attack/account_probes.py http://127.0.0.1:8300
"""
from __future__ import annotations

import json
import sys
import time

import httpx

PW = "correct horse battery staple"


def main(url: str) -> None:
    tag = str(int(time.time()) % 100000)
    def show(what: str, r: httpx.Response) -> None:
        print(f"{what:55} {r.status_code} {r.text[:110]}")
    with httpx.Client(base_url=url, timeout=60) as c:
        xff = {"X-Forwarded-For": f"10.1.{int(tag) % 250}.9"}
        r = c.post("/api/account/sign-up", json={"name": f"ann{tag}", "password": PW}, headers=xff)
        show("sign-up", r)
        tok = c.cookies.get("ld_session"); csrf = r.json().get("csrf")
        show("sign-up look-alike (Cyrillic a)", httpx.post(url + "/api/account/sign-up", json={"name": f"\u0430nn{tag}", "password": PW}, headers={"X-Forwarded-For": "10.2.0.1"}))
        show("sign-out without CSRF", c.post("/api/account/sign-out"))
        show("sign-in foreign Origin", httpx.post(url + "/api/account/sign-in", json={"name": f"ann{tag}", "password": PW}, headers={"Origin": "https://evil.example", "X-Forwarded-For": "10.2.0.2"}))
        show("100 KB body", httpx.post(url + "/api/account/sign-in", content=json.dumps({"name": "a", "password": "x" * 100_000}), headers={"content-type": "application/json", "X-Forwarded-For": "10.2.0.3"}))
        deep = "[" * 5000 + "]" * 5000
        show("deep JSON", httpx.post(url + "/api/account/sign-in", content=deep, headers={"content-type": "application/json", "X-Forwarded-For": "10.2.0.4"}))
        show("password 1024 chars (sign-in)", httpx.post(url + "/api/account/sign-in", json={"name": f"ann{tag}", "password": "p" * 1024}, headers={"X-Forwarded-For": "10.2.0.5"}))
        show("name with bidi control", httpx.post(url + "/api/account/sign-up", json={"name": "ev\u202eil", "password": PW}, headers={"X-Forwarded-For": "10.2.0.6"}))
        show("name 'deleted player 7'", httpx.post(url + "/api/account/sign-up", json={"name": "Deleted  Player 7", "password": PW}, headers={"X-Forwarded-For": "10.2.0.7"}))
        show("cookie 10 KB", httpx.get(url + "/api/account", cookies={"ld_session": "a" * 10000}))
        show("whoami", c.get("/api/account"))
        show("sign-out with CSRF", c.post("/api/account/sign-out", headers={"X-CSRF-Token": csrf}))
        show("old cookie after sign-out", httpx.get(url + "/api/account", cookies={"ld_session": tok}))
        show("old cookie: sign-out again", httpx.post(url + "/api/account/sign-out", cookies={"ld_session": tok}, headers={"X-CSRF-Token": csrf}))
        show("Host: evil.example", httpx.get(url + "/api/account", headers={"Host": "evil.example"}))
        show("reset with a wrong code", httpx.post(url + "/api/account/reset", json={"name": f"ann{tag}", "recovery_code": "AAAA-AAAA-AAAA-AAAA-AAAA", "new_password": PW + "!"}, headers={"X-Forwarded-For": "10.2.0.8"}))


if __name__ == "__main__":
    main(sys.argv[1])
