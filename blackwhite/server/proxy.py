"""Serving behind a reverse proxy: the public URL links are built from, and the
``X-Forwarded-*`` headers of trusted proxies.

A proxy (nginx, Caddy) connects from its own address, so without these headers every
request would seem to come from it: one rate-limit bucket for the whole world, and links
naming ``http://127.0.0.1:8000``.  The headers are believed only from the addresses in
``--forwarded-allow-ips`` (loopback by default, where a proxy on the same machine
connects from); from anyone else they are ignored, so a client cannot pick its own
address or scheme by sending them.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

#: the default trusted proxies: a proxy on this machine
LOOPBACK = ("127.0.0.1", "::1")

_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def public_origin(url: str) -> str:
    """``url`` checked as the server's public origin (``https://bw.example.org``), without
    a trailing slash; ``ValueError`` naming the problem otherwise.  A path is refused:
    the pages link to ``/static/...`` and ``/ws/...`` from the root."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"a public URL is http(s)://host[:port], got {url!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"a public URL is an origin only (scheme, host, port), got {url!r}: "
                         "serving under a sub-path is not supported, the pages link from the root")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise ValueError(f"bad port in public URL {url!r}: {exc}") from None
    return f"{parts.scheme}://{parts.netloc.lower()}"


def trusted_networks(spec: str | Iterable[str]) -> list[Network] | None:
    """Parse ``--forwarded-allow-ips``: addresses or networks, comma-separated; ``*``
    trusts every client (None); an empty list trusts none.  ``ValueError`` on a bad one."""
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec)]
    items = [s for s in items if s]
    if "*" in items:
        return None
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"--forwarded-allow-ips takes IP addresses or networks (10.0.0.0/8), got {item!r}") from None
    return networks


class Forwarded:
    """ASGI middleware: a request from a trusted proxy is seen as the proxy reports it.

    - the client address is the right-most ``X-Forwarded-For`` entry that is not itself a
      trusted proxy (entries further left were written by the client, so are not believed);
    - the scheme is ``X-Forwarded-Proto`` (``https`` makes a socket ``wss``);
    - the host is ``X-Forwarded-Host`` when it is a plain host[:port].

    It runs before the request budget, so the limiter keys on the real client.
    """

    def __init__(self, app: ASGIApp, trusted: list[Network] | None) -> None:
        self.app = app
        self.trusted = trusted

    def is_trusted(self, address: str) -> bool:
        if self.trusted is None:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] in ("http", "websocket") and client and self.is_trusted(client[0]):
            scope = self.rewrite(scope, client)
        await self.app(scope, receive, send)

    def rewrite(self, scope: Scope, client: tuple[str, int]) -> Scope:
        forwarded_for: list[str] = []
        proto = host = None
        for name, value in scope.get("headers", []):
            if name == b"x-forwarded-for":
                forwarded_for += [v.strip() for v in value.decode("latin-1").split(",")]
            elif name == b"x-forwarded-proto":
                proto = value.decode("latin-1").split(",")[-1].strip().lower()
            elif name == b"x-forwarded-host":
                host = value.decode("latin-1").split(",")[-1].strip()
        if not (forwarded_for or proto or host):
            return scope
        scope = dict(scope)
        if forwarded_for:
            address = client[0]
            for entry in reversed([e for e in forwarded_for if e]):
                address = _strip_port(entry)
                if not self.is_trusted(address):
                    break
            scope["client"] = (address, 0)
        if proto in ("http", "https"):
            scope["scheme"] = proto if scope["type"] == "http" else {"http": "ws", "https": "wss"}[proto]
        if host and _HOST.fullmatch(host):
            scope["headers"] = [(k, v) for k, v in scope["headers"] if k != b"host"] + [(b"host", host.encode())]
        return scope


def _strip_port(entry: str) -> str:
    """An address from an ``X-Forwarded-For`` entry (``[::1]:443`` or ``1.2.3.4:80``: the port dropped)."""
    if entry.startswith("[") and "]" in entry:
        return entry[1:entry.index("]")]
    if entry.count(":") == 1:
        return entry.split(":", 1)[0]
    return entry
