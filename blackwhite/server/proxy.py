"""Serving behind a reverse proxy: the public URL links are built from, and the
``X-Forwarded-*`` headers of trusted proxies.

A proxy (nginx, Caddy) connects from its own address, so without these headers every
request would seem to come from it: one rate-limit bucket for the whole world, and links
naming ``http://127.0.0.1:8000``.  The headers are believed only from the addresses in
``--forwarded-allow-ips`` (loopback by default, where a proxy on the same machine
connects from); from anyone else they are removed at the edge, so a client cannot pick
its own address or scheme by sending them, and nothing behind the edge (the relay to
another server process included) ever sees them.

Between server processes a relayed request carries the client as the first process
resolved it, in ``x-blackwhite-client`` and ``x-blackwhite-scheme``, authenticated by the
cluster's shared secret (``x-blackwhite-relay-secret``, made once and kept in the
database); without the right secret those headers are removed and the request is a
plain client's, whatever address it comes from.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import urllib.parse
from collections.abc import Callable, Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import error_body
from .http import send_json

#: the default trusted proxies: a proxy on this machine
LOOPBACK = ("127.0.0.1", "::1")

_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: the headers one server process adds to a request it relays to another
RELAY_SECRET = b"x-blackwhite-relay-secret"
RELAY_CLIENT = b"x-blackwhite-client"
RELAY_SCHEME = b"x-blackwhite-scheme"
#: every header of ours a client may not set: removed unless the relay secret is right
#: (``x-blackwhite-hop`` and ``-moved`` are the cluster's own markers)
_OURS = b"x-blackwhite-"
_FORWARDED = (b"x-forwarded-", b"forwarded")


def relay_headers(scope: Scope, secret: str) -> list[tuple[bytes, bytes]]:
    """What a relayed request adds: the client and scheme this process resolved (after its
    own :class:`Forwarded`), and the shared secret that makes the owner believe them."""
    client = scope.get("client")
    scheme = str(scope.get("scheme", "http"))
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return [(RELAY_CLIENT, (client[0] if client else "").encode("latin-1", "replace")),
            (RELAY_SCHEME, scheme.encode()), (RELAY_SECRET, secret.encode())]


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

    def __init__(self, app: ASGIApp, trusted: list[Network] | None, secret: str | None = None) -> None:
        self.app = app
        self.trusted = trusted
        #: the cluster's relay secret (None: a single process, no relayed requests)
        self.secret = secret.encode() if secret else None

    def is_trusted(self, address: str) -> bool:
        if self.trusted is None:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            given = next((v for k, v in scope.get("headers", []) if k == RELAY_SECRET), None)
            if given is not None and self.secret is not None and hmac.compare_digest(given, self.secret):
                scope = self.relayed(scope)
            else:
                client = scope.get("client")
                if client and self.is_trusted(client[0]):
                    scope = self.rewrite(scope, client)
                scope = _without(scope, lambda k: k.startswith(_FORWARDED) or k.startswith(_OURS))
        await self.app(scope, receive, send)

    @staticmethod
    def relayed(scope: Scope) -> Scope:
        """A request another server process relayed: the client and scheme it resolved."""
        values = {k: v.decode("latin-1") for k, v in scope.get("headers", []) if k in (RELAY_CLIENT, RELAY_SCHEME)}
        scope = _without(scope, lambda k: k.startswith(_FORWARDED) or k in (RELAY_SECRET, RELAY_CLIENT, RELAY_SCHEME))
        address = values.get(RELAY_CLIENT, "")
        if address:
            scope["client"] = (address, 0)
        proto = values.get(RELAY_SCHEME)
        if proto in ("http", "https"):
            scope["scheme"] = proto if scope["type"] == "http" else {"http": "ws", "https": "wss"}[proto]
        return scope

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


def _without(scope: Scope, drop: Callable[[bytes], bool]) -> Scope:
    """``scope`` with the headers whose (lower-case) names ``drop`` picks removed."""
    headers = scope.get("headers", [])
    if not any(drop(k.lower()) for k, _ in headers):
        return scope
    scope = dict(scope)
    scope["headers"] = [(k, v) for k, v in headers if not drop(k.lower())]
    return scope


def _strip_port(entry: str) -> str:
    """An address from an ``X-Forwarded-For`` entry (``[::1]:443`` or ``1.2.3.4:80``: the port dropped)."""
    if entry.startswith("[") and "]" in entry:
        return entry[1:entry.index("]")]
    if entry.count(":") == 1:
        return entry.split(":", 1)[0]
    return entry


def host_name(value: str) -> str:
    """The host of a ``Host`` header value, lower-case, without port or IPv6 brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.index("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def allowed_hosts(spec: str | Iterable[str]) -> frozenset[str] | None:
    """Parse ``--allowed-hosts``: host names or addresses, comma-separated (``.example.org``
    also takes every subdomain); ``*`` answers any host (None).  ``ValueError`` on a bad one."""
    items = [s.strip().lower() for s in (spec.split(",") if isinstance(spec, str) else spec)]
    items = [s for s in items if s]
    if "*" in items:
        return None
    out = set()
    for item in items:
        name = host_name(item)
        if not name or not _HOST.fullmatch(name if ":" not in name else f"[{name}]"):
            raise ValueError(f"--allowed-hosts takes host names or addresses (bw.example.org, 10.0.0.5), got {item!r}")
        out.add(name)
    return frozenset(out)


class AllowedHosts:
    """ASGI middleware (inside :class:`Forwarded`, so a trusted proxy's host counts): a
    request for a host the server was not told it answers is refused (400, or a socket
    closed before it opens), so no link it hands out can name a host a client chose."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    def allows(self, value: str) -> bool:
        if self.hosts is None:
            return True
        name = host_name(value)
        return name in self.hosts or any(h.startswith(".") and (name.endswith(h) or name == h[1:]) for h in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.hosts is not None:
            value = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), "")
            if not self.allows(value):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008, "reason": "unknown host"})
                    return
                shown = value if len(value) <= 80 else value[:80] + "..."
                await send_json(send, 400, error_body(
                    "bad_host", f"this server does not answer for the host {shown!r} (its --allowed-hosts)"))
                return
        await self.app(scope, receive, send)
