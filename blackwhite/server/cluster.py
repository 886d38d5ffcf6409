"""Several ``blackwhite serve`` processes over one PostgreSQL (docs/server.md, "Several
processes"), in three parts:

- :mod:`.ownership` — which process owns which match: the lease, the lock connection and
  its advisory locks, reaping a process whose lease ran out, who owns what, handovers;
- :mod:`.relay` — HTTP to another process over kept connections (httpx);
- :mod:`.routing` — the ASGI router that relays a request or socket to the owner of its
  match, or takes the match over, or answers 503 ``owner_unavailable``.

This module names what the rest of the server (and ``blackwhite cluster status``) uses.
"""

from __future__ import annotations

from .ownership import APP_NAME, HANDOVER_TTL, LEASE, Cluster, Owner, Peer
from .relay import HOP, RELAY_READ, OwnerGone, OwnerStuck, Relay
from .routing import MOVED, Router, match_of

__all__ = ["APP_NAME", "HANDOVER_TTL", "HOP", "LEASE", "MOVED", "RELAY_READ", "Cluster", "Owner", "OwnerGone",
           "OwnerStuck", "Peer", "Relay", "Router", "match_of"]
