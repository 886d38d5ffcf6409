"""Web Push: the notifications' browser channel (RFC 8030 delivery, RFC 8291 encryption,
RFC 8292 VAPID), with pywebpush.

The server's VAPID key pair is made once and kept in the ``settings`` table (the same
place as the relay secret: every process over the database signs with one key, so a
browser's subscription works whichever sends; a SQLite database file is 0600).  A page
subscribes with the public key (``applicationServerKey``) only when its player says yes;
the subscription's endpoint is the push service of the browser's maker, and the server
posts to nothing else: an endpoint must be HTTPS on one of :data:`PUSH_SERVICES` (a page
cannot make the server post to an address of its choosing).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from .notify import Gone, Message
from .store import Base

#: the push services of the browsers people use (host suffixes): Chrome and Edge's FCM,
#: Firefox's autopush, Safari's, Windows'
PUSH_SERVICES = ("fcm.googleapis.com", "android.googleapis.com", "push.services.mozilla.com", "push.apple.com",
                 "notify.windows.com")
#: seconds a push service keeps a message for a browser that is offline
TTL = 86400
#: notices a push message lists at most (it must stay under the services' 4 KB)
MAX_ITEMS = 5


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def server_keys(engine: Engine) -> tuple[str, str]:
    """The server's VAPID key pair ``(private, public)``, URL-safe base64 (the private
    key's 32-byte scalar; the public key as an uncompressed point): made by whichever
    process asks first and kept in ``settings``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    fresh = _b64(key.private_numbers().private_value.to_bytes(32, "big"))
    table = Base.metadata.tables["settings"]
    insert_ = postgresql_insert if engine.dialect.name == "postgresql" else sqlite_insert
    with engine.begin() as conn:
        conn.execute(insert_(table).values(name="vapid", value=fresh).on_conflict_do_nothing(index_elements=["name"]))
        private = str(conn.execute(select(table.c.value).where(table.c.name == "vapid")).scalar_one())
    scalar = int.from_bytes(base64.urlsafe_b64decode(private + "=" * (-len(private) % 4)), "big")
    public = ec.derive_private_key(scalar, ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return private, _b64(public)


#: an endpoint the server posts to: a scheme, an authority that is a host name and an
#: optional port and nothing else (no user, no backslash, no escapes: ``urlsplit`` and the
#: HTTP client would read another host in them), then printable ASCII only
_ENDPOINT = re.compile(r"(?P<scheme>https?)://(?P<host>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)(?::[0-9]{1,5})?"
                       r"(?:[/?][\x21-\x7e]*)?")


def check_endpoint(endpoint: str, services: tuple[str, ...], plain: bool = False) -> None:
    """ValueError unless ``endpoint`` is HTTPS (``plain``: or HTTP, for tests) on one of
    ``services`` (host suffixes), written so that every URL parser reads the same host."""
    plainly = _ENDPOINT.fullmatch(endpoint) if isinstance(endpoint, str) else None
    if plainly is None or "\\" in endpoint:
        raise ValueError("a push endpoint is an https:// URL of a browser's push service: a host name, an "
                         "optional port and a path, nothing else")
    parts = urlsplit(endpoint)
    host = (parts.hostname or "").lower()
    if host != plainly["host"].lower():
        raise ValueError("a push endpoint names one host, plainly")
    if parts.scheme != "https" and not (plain and parts.scheme == "http"):
        raise ValueError("a push endpoint is an https:// URL of a browser's push service")
    if not any(host == s or host.endswith("." + s) for s in services):
        raise ValueError(f"{host or 'that'} is not a push service this server sends to ({', '.join(services)})")


def payload(message: Message) -> dict[str, Any]:
    """What the page's service worker shows: a title, a line per notice, where a click goes."""
    items = message.items[:MAX_ITEMS]
    return {"title": message.subject, "body": "\n".join(line for line, _ in items)[:1000],
            "url": items[0][1] if items else None, "items": [{"text": t, "link": u} for t, u in items],
            "unsubscribe": message.unsubscribe}


class Pusher:
    """Sends a message to one browser's subscription (``address``: its JSON)."""

    name = "push"

    def __init__(self, private_key: str, subject: str, services: tuple[str, ...] = PUSH_SERVICES,
                 plain: bool = False) -> None:
        from py_vapid import Vapid

        self.vapid = Vapid.from_raw(private_key.encode())
        self.subject = subject
        self.services = services
        self.plain = plain

    def _send(self, address: str, message: Message) -> None:
        from pywebpush import WebPushException, webpush

        subscription = json.loads(address)
        try:
            check_endpoint(str(subscription.get("endpoint", "")), self.services, self.plain)
        except ValueError as exc:  # kept from before the list changed: never posted to
            raise Gone(str(exc)) from None
        try:
            webpush(subscription, json.dumps(payload(message)), vapid_private_key=self.vapid,
                    vapid_claims={"sub": self.subject}, ttl=TTL, timeout=10)
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status in (404, 410):  # the browser dropped the subscription
                raise Gone(str(status)) from None
            raise RuntimeError(f"the push service answered {status}: {str(exc)[:200]}") from None

    async def send(self, address: str, message: Message) -> None:
        await asyncio.to_thread(self._send, address, message)
