"""Bounds on what one client, one host or everyone together may hold at once.

A public server is shared: one client must not fill its memory, its database, its
bot workers or its event loop.  What is counted where:

* running matches per host, per client address and overall: counted in the database,
  in the same transaction that inserts a new match (:meth:`blackwhite.server.store.Store.create_match`),
  so a quota holds across tokens, server processes and restarts;
* WebSocket handshakes and open sockets per address (and spectators' sockets per
  match): counted in this process (:class:`SocketBudget`), before any database lookup;
* never-started matches nobody joins end after :func:`idle_expiry` seconds.

Client addresses are compared by :func:`client_key`: an IPv6 client by its /64 (one
subscriber's network; a /128 costs nothing to change), an IPv4 one by its address.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass

#: running matches an anonymous host (made with its first match), and an address's anonymous hosts together, may have
MAX_ANONYMOUS = 10
#: running matches a host made by the operator (``blackwhite hosts new``, the server's own) may have
MAX_HOST = 200
#: running matches on the whole server
MAX_MATCHES = 5000
#: seconds a ``when_joined`` match nobody has opened every seat of waits before it is cancelled
IDLE_EXPIRY = 3600.0
#: bot-only running matches per host (each keeps a bot worker busy without a person waiting)
MAX_BOT_MATCHES = 2
#: seconds a bot seat may think per decision on this server (a spec asking more is cut to this)
MAX_BOT_BUDGET = 5.0
#: players (identities that last: docs/server.md, "Players") an anonymous host may make, and
#: all anonymous hosts of one address together; and a host the operator made
MAX_ANONYMOUS_PLAYERS = 20
MAX_HOST_PLAYERS = 1000
#: WebSocket handshakes per second per address (and the burst), before any token is looked up
HANDSHAKE_RATE = 10.0
HANDSHAKE_BURST = 30
#: open WebSockets per address, and spectators' sockets per match
MAX_SOCKETS = 64
MAX_SPECTATORS = 200


def client_key(address: str | None) -> str:
    """The key quotas count a client address under: IPv4 as itself, IPv6 by its /64
    (``2001:db8::1`` and ``2001:0db8:0:0::2`` are one key), an IPv4-mapped IPv6 as its
    IPv4; anything unreadable as itself (a test client's name)."""
    text = (address or "?").strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return text[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


@dataclass(frozen=True)
class Quotas:
    """The running-match bounds (``serve --max-...``); 0 means none of that kind."""

    anonymous: int = MAX_ANONYMOUS
    host: int = MAX_HOST
    total: int = MAX_MATCHES
    bot_matches: int = MAX_BOT_MATCHES
    idle: float = IDLE_EXPIRY
    #: the most a bot seat thinks per decision (seconds): with ``bot_matches``, a host's share of the bot workers
    bot_budget: float = MAX_BOT_BUDGET
    #: players an anonymous host may make, and all anonymous hosts of one address together
    anonymous_players: int = MAX_ANONYMOUS_PLAYERS
    #: players a host the operator made may make
    host_players: int = MAX_HOST_PLAYERS


def idle_expiry(quotas: Quotas, created: float, pace: float = 1.0) -> float | None:
    """When a never-started match created at ``created`` is cancelled (None: never).
    The one place this is computed: a slower ``pace`` (a factor on the match's clocks)
    scales the wait with it."""
    if quotas.idle <= 0:
        return None
    return created + quotas.idle * max(pace, 1.0)


class QuotaExceeded(Exception):
    """A new match would take a bound over its limit (raised inside the creating transaction)."""

    def __init__(self, kind: str, count: int, limit: int) -> None:
        super().__init__(kind)
        self.kind, self.count, self.limit = kind, count, limit


class SocketBudget:
    """Per address: a handshake bucket (taken before the token is looked up, so made-up
    tokens cannot each cost a database lookup without end) and a count of open sockets;
    per match, a count of spectators' sockets."""

    def __init__(self, rate: float = HANDSHAKE_RATE, burst: int = HANDSHAKE_BURST, per_address: int = MAX_SOCKETS,
                 spectators: int = MAX_SPECTATORS, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.per_address, self.spectators = rate, burst, per_address, spectators
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self.open: dict[str, int] = {}
        self.watching: dict[str, int] = {}

    def handshake(self, key: str) -> bool:
        """Take one handshake from ``key``'s bucket, if any is left."""
        if self.rate <= 0:
            return True
        now = self.clock()
        level, last = self._buckets.get(key, (float(self.burst), now))
        level = min(float(self.burst), level + (now - last) * self.rate)
        if len(self._buckets) > 50_000:  # forget full buckets rather than grow without end
            self._buckets = {k: v for k, v in self._buckets.items() if v[0] + (now - v[1]) * self.rate < self.burst}
        if level < 1.0:
            self._buckets[key] = (level, now)
            return False
        self._buckets[key] = (level - 1.0, now)
        return True

    def enter(self, key: str) -> bool:
        """Count one more open socket of ``key``, unless it has as many as it may."""
        held = self.open.get(key, 0)
        if self.per_address > 0 and held >= self.per_address:
            return False
        self.open[key] = held + 1
        return True

    def leave(self, key: str) -> None:
        held = self.open.get(key, 0) - 1
        if held > 0:
            self.open[key] = held
        else:
            self.open.pop(key, None)

    def watch(self, match_id: str) -> bool:
        """Count one more spectator socket of ``match_id``, unless it has as many as it may."""
        held = self.watching.get(match_id, 0)
        if self.spectators > 0 and held >= self.spectators:
            return False
        self.watching[match_id] = held + 1
        return True

    def unwatch(self, match_id: str) -> None:
        held = self.watching.get(match_id, 0) - 1
        if held > 0:
            self.watching[match_id] = held
        else:
            self.watching.pop(match_id, None)
