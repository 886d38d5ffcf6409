"""HTTP from one server process to another (docs/server.md, "Several processes"): a
request about a match another process owns is relayed to it over kept connections
(httpx's pool), and what went wrong is told apart: not sent at all (another owner may be
tried), or sent and unanswered (it may have been applied)."""

from __future__ import annotations

import httpx

#: the header a relayed request carries (the relaying process's id): it is never relayed again
HOP = b"x-blackwhite-hop"
#: the longest a relayed request waits for its answer, however alive its owner looks
RELAY_READ = 30.0


class OwnerGone(ConnectionError):
    """The owner could not be reached before anything was sent to it."""


class OwnerStuck(ConnectionError):
    """The owner's lease ran out while a relayed request waited for its answer."""


_DROP = {b"connection", b"keep-alive", b"transfer-encoding", b"upgrade", b"te", b"trailer", b"content-length",
         b"proxy-connection"}


class Relay:
    """HTTP/1.1 to other processes over kept connections (httpx's pool)."""

    def __init__(self, hop: str) -> None:
        self.hop = hop.encode()
        # an idle connection is let go before uvicorn's keep-alive (5 s) would close it under
        # a request being sent; reads wait at most RELAY_READ (a stuck owner is watched for
        # by its lease: Router._watched)
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(RELAY_READ, connect=2.0, pool=2.0), trust_env=False, follow_redirects=False,
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=64, keepalive_expiry=4.0))

    async def request(self, base: str, method: str, target: str, headers: list[tuple[bytes, bytes]],
                      body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """One request to ``base``; :class:`OwnerGone` if it could not be sent at all,
        ``ConnectionError`` if the owner went away after it was sent (it may have acted)."""
        out = [(k, v) for k, v in headers if k.lower() not in _DROP and k.lower() != HOP]
        out.append((HOP, self.hop))
        try:
            response = await self._client.request(method, base + target, headers=out, content=body)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise OwnerGone(f"{base}: {exc!r}") from None
        except httpx.HTTPError as exc:  # sent (or partly): it may have acted
            raise ConnectionError(f"the owner at {base} went away: {exc!r}") from None
        return (response.status_code, [(k, v) for k, v in response.headers.raw if k.lower() not in _DROP],
                response.content)

    async def close(self) -> None:
        await self._client.aclose()


__all__ = ["HOP", "RELAY_READ", "OwnerGone", "OwnerStuck", "Relay"]
