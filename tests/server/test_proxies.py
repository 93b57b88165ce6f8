"""Proxy headers only when configured (issue 16, fault 2).

uvicorn believed ``X-Forwarded-For`` from loopback by default and took its
value as given (even ``not-an-ip-7``): with a new address per request, one
client created 2,014 tables in 16 s and guessed codes at 207 a second. These
run the real uvicorn server of ``liars-dice serve`` on loopback, the client
bound to a chosen loopback source address (127.0.0.2 and up), and read the
address the server believed from its per-address ``create_rate``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from live import live_server

from liars_dice.server import Settings
from liars_dice.server.edge.proxies import TrustedProxies, parse_proxies

BODY = {"nickname": "ann", "seats": 2}


def _create(url: str, source: str, forwarded: str | None = None) -> int:
    """POST /api/tables from loopback address ``source``; the status."""
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    with httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=source), timeout=10) as c:
        return c.post("/api/tables", json=BODY, headers=headers).status_code


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[str]:
    with live_server(Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", create_rate="2/minute")) as url:
        yield url


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[str]:
    s = Settings(db_url=f"sqlite:///{tmp_path / 't.db'}", create_rate="2/minute",
                 trusted_proxies=parse_proxies(["127.0.0.2, 10.0.0.0/8"]))
    with live_server(s) as url:
        yield url


def test_forged_headers_from_loopback_change_nothing_without_the_option(plain: str) -> None:
    # Issue 16 fault 2: "X-Forwarded-For is believed from loopback (uvicorn's default)".
    statuses = [_create(plain, "127.0.0.1", forged) for forged in ("203.0.113.1", "203.0.113.2", "not-an-ip-7")]
    assert statuses == [201, 201, 429], statuses
    assert _create(plain, "127.0.0.3") == 201  # the peer is the client: another address has its own rate


def test_with_the_option_the_rightmost_untrusted_address_is_the_client(proxied: str) -> None:
    # Issue 16: "X-Forwarded-For ... believed only from addresses the operator names".
    assert _create(proxied, "127.0.0.2", "203.0.113.7") == 201
    # The left entry is the client's own word; the rightmost untrusted one (past the trusted 10.1.1.1) counts.
    assert _create(proxied, "127.0.0.2", "198.51.100.1, 203.0.113.7, 10.1.1.1") == 201
    assert _create(proxied, "127.0.0.2", "198.51.100.2, 203.0.113.7") == 429
    assert _create(proxied, "127.0.0.2", "203.0.113.8") == 201  # another client behind the proxy


def test_headers_from_an_untrusted_peer_or_not_an_address_are_not_believed(proxied: str) -> None:
    # 127.0.0.3 is no proxy: its forged addresses are all one client, 127.0.0.3.
    assert [_create(proxied, "127.0.0.3", f"203.0.113.{i}") for i in (20, 21, 22)] == [201, 201, 429]
    # A value that is not an IP address is never a client of its own: the proxy is.
    assert [_create(proxied, "127.0.0.2", v) for v in ("not-an-ip-7", "not-an-ip-8", "")] == [201, 201, 429]


@pytest.mark.parametrize(("peer", "header", "client"), [
    ("127.0.0.1", "203.0.113.7", "127.0.0.1"),            # not a trusted proxy
    ("10.0.0.1", None, "10.0.0.1"),                        # no header
    ("10.0.0.1", "203.0.113.7", "203.0.113.7"),
    ("10.0.0.1", "1.1.1.1, 203.0.113.7, 10.2.2.2", "203.0.113.7"),
    ("10.0.0.1", "not-an-ip-7", "10.0.0.1"),
    ("10.0.0.1", "203.0.113.7, junk, 10.3.3.3", "10.3.3.3"),
    ("10.0.0.1", " 2001:db8::1 ", "2001:db8::1"),
    ("::ffff:10.0.0.1", "203.0.113.9", "203.0.113.9"),     # an IPv4 peer seen through an IPv6 socket
])
def test_the_client_address_behind_proxies(peer: str, header: str | None, client: str) -> None:
    assert TrustedProxies(["10.0.0.0/8"]).client(peer, header) == client


def test_a_trusted_proxy_that_is_not_an_address_is_refused_in_one_sentence() -> None:
    with pytest.raises(ValueError, match=r"--trusted-proxy takes IP addresses or networks .* or unix, not 'nginx'\.$"):
        parse_proxies(["127.0.0.1,nginx"])
    assert parse_proxies(["127.0.0.1, 10.0.0.0/8", "::1"]) == ("127.0.0.1/32", "10.0.0.0/8", "::1/128")
    assert parse_proxies(["UNIX,127.0.0.2"]) == ("unix", "127.0.0.2/32")


def test_the_scheme_is_the_proxys_word_only_from_a_trusted_proxy(proxied: str) -> None:
    # A share link behind a TLS proxy says https; a forged header from any other peer is ignored.
    def share_url(source: str) -> str:
        with httpx.Client(base_url=proxied, transport=httpx.HTTPTransport(local_address=source)) as c:
            r = c.post("/api/tables", json=BODY, headers={"X-Forwarded-Proto": "https"})
            return str(r.json()["share_url"])

    assert share_url("127.0.0.2").startswith("https://")
    assert share_url("127.0.0.4").startswith("http://")


def test_serve_refuses_a_trusted_proxy_that_is_not_an_address() -> None:
    cli = str(Path(sys.executable).with_name("liars-dice"))
    run = subprocess.run([cli, "serve", "--port", "0", "--trusted-proxy", "127.0.0.1,nginx"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.strip() == (
        "--trusted-proxy takes IP addresses or networks (127.0.0.1, 10.0.0.0/8) or unix, not 'nginx'."
    ), (run.returncode, run.stderr)
