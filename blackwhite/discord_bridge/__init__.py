"""``blackwhite discord``: a Discord bot that hosts and plays matches of a running
``blackwhite serve`` through its public HTTP and WebSocket API (docs/discord.md).

The bridge is a *client* of the server: rules, clocks, secrets, bots and records stay
there.  Nothing in this package imports the engine, the games or the bots (a test
checks it); everything it shows comes from the view payloads the server sends to the
tokens it holds.

- :mod:`.api` — the server's API over httpx and websockets;
- :mod:`.store` — a small sqlite3 file: matches, seats, what was posted;
- :mod:`.draw` — a seat's or the public view as text;
- :mod:`.core` — the bridge's logic as plain async code (events in, messages out);
- :mod:`.bot` — the thin discord.py layer (needs the ``[discord]`` extra).
"""
