"""Which peers are proxies, and the client address behind them (issue 16, fault 2).

uvicorn believes ``X-Forwarded-For`` from loopback by default and takes its
value as given (even ``not-an-ip-7``), so any local process, ssh tunnel or
TCP-mode proxy could pick its own address per request and step around every
per-address limit. Here the operator names the proxies
(``liars-dice serve --trusted-proxy ADDR[,ADDR|CIDR...]``,
:attr:`~liars_dice.server.core.config.Settings.trusted_proxies`); uvicorn's own
proxy handling is switched off (``proxy_headers=False``), and:

* a peer that is not a trusted proxy is the client, whatever its headers say;
* from a trusted proxy, ``X-Forwarded-For`` is read from the right: each
  trusted address is skipped, and the first untrusted one is the client (the
  addresses to its left were written by the client itself and prove nothing);
* an entry that does not parse as an IP address (:mod:`ipaddress`) ends the
  walk: the last trusted hop before it is taken as the client, so a forged
  value never becomes a key of its own;
* ``X-Forwarded-Proto`` (``http`` or ``https``) from a trusted proxy is the
  request's scheme;
* a connection over a unix socket (``liars-dice serve --unix-socket PATH``)
  has no address: its peer is :data:`UNIX_PEER`, trusted only when the
  operator names ``unix`` (``--trusted-proxy unix``). The socket file's
  permissions then say who may be the proxy, which an address cannot: any
  local process may bind 127.0.0.2 (the stop-33 attacker's F4).

:class:`ProxyHeaders` applies this to every request and websocket, so every
part of the app sees the client's address as ``request.client``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, MutableMapping
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: The peer of a connection over a unix socket (it has no address), and the
#: ``--trusted-proxy`` value that trusts such connections.
UNIX_PEER = "unix:"
UNIX = "unix"


def parse_proxies(values: Iterable[str]) -> tuple[str, ...]:
    """The trusted proxies of ``--trusted-proxy`` values (each one address or
    CIDR network, or ``unix`` for the peers of a unix socket, or several
    separated by commas), normalised (``10.0.0.0/8``).

    :raises ValueError: an entry that is neither an IP address, a network nor
        ``unix``, named in the sentence.
    """
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            if part.lower() == UNIX:
                out.append(UNIX)
                continue
            try:
                out.append(str(ipaddress.ip_network(part, strict=False)))
            except ValueError:
                raise ValueError(
                    f"--trusted-proxy takes IP addresses or networks (127.0.0.1, 10.0.0.0/8) or unix, not {part[:60]!r}."
                ) from None
    return tuple(out)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


#: The prefix length an IPv6 client counts by: one subscriber's network.
IPV6_PREFIX = 64


def address_key(address: str) -> str:
    """The key a client address is counted by for every per-address rate and
    cap: an IPv4 address (or an IPv4-mapped IPv6 one) itself, an IPv6 address
    its ``/64`` network (``"2001:db8:1:2::/64"``), anything else as given.

    One subscriber gets at least a /64 and its hosts pick any address in it at
    will: counted address by address, one host sent sign-ins from
    ``2001:db8:1:2::1``, ``::2``, ... and no per-address bound ever held."""
    ip = _ip(address)
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return address if ip is None else str(ip)


class TrustedProxies:
    """The proxies whose forwarding headers are believed.

    :param networks: addresses or CIDR networks as strings, or ``unix`` (see
        :func:`parse_proxies`); empty = no proxy: every peer is the client.
    """

    __slots__ = ("networks", "unix")

    def __init__(self, networks: Iterable[str] = ()) -> None:
        names = tuple(networks)
        self.unix = UNIX in names
        self.networks: tuple[Network, ...] = tuple(ipaddress.ip_network(n, strict=False) for n in names if n != UNIX)

    def __bool__(self) -> bool:
        return bool(self.networks) or self.unix

    def trusts(self, address: str) -> bool:
        """Whether ``address`` (text, or :data:`UNIX_PEER`) is one of the trusted proxies."""
        if address == UNIX_PEER:
            return self.unix
        ip = _ip(address)
        return ip is not None and any(ip.version == n.version and ip in n for n in self.networks)

    def client(self, peer: str, forwarded_for: str | None) -> str:
        """The client address of a connection from ``peer`` carrying the
        ``X-Forwarded-For`` value ``forwarded_for`` (``None``: no header; several
        headers joined by commas)."""
        if not forwarded_for or not self.trusts(peer):
            return peer
        client = peer
        for entry in reversed(forwarded_for.split(",")):
            ip = _ip(entry)
            if ip is None:
                return client  # not an address: believe nothing further left
            client = str(ip)
            if not self.trusts(client):
                return client
        return client


class ProxyHeaders:
    """ASGI middleware: for a connection from a trusted proxy, the client
    address of :meth:`TrustedProxies.client` becomes the scope's ``client``,
    and ``X-Forwarded-Proto`` (``http``/``https``) its scheme (``ws``/``wss``
    for a websocket); from any other peer the headers are ignored. A scope
    with no ``client`` came over a unix socket: its peer is :data:`UNIX_PEER`.

    :param app: the ASGI app. :param proxies: the trusted proxies.
    """

    def __init__(self, app: Any, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        peer = scope["client"][0] if scope.get("client") else UNIX_PEER
        if scope["type"] in ("http", "websocket") and self.proxies.trusts(peer):
            forwarded = [v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-for"]
            proto = [v.decode("latin-1").strip().lower() for k, v in scope["headers"] if k == b"x-forwarded-proto"]
            scope = dict(scope)
            client = self.proxies.client(peer, ",".join(forwarded) or None)
            if client != peer:
                scope["client"] = (client, 0)
            if proto and proto[-1] in ("http", "https"):
                scope["scheme"] = proto[-1].replace("http", "ws") if scope["type"] == "websocket" else proto[-1]
        await self.app(scope, receive, send)
