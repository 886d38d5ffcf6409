"""``blackwhite players``: the server's players and their login links, straight on its database.

For the operator on the server's machine, running or not (a running server looks a
player's token up at each request, and checks its open sockets every half second, so a
link revoked here is refused at once).  The operator may do what a player's host may
not once the player has logged in: make a new link for a player who lost theirs, set
or clear its Discord id.  Tokens are stored only as hashes: a link is printed once.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Optional

import typer

from .cli import DB_OPTION, link_state, migrated_engine
from .cli import fail as _fail
from .cli import when as _when

if TYPE_CHECKING:
    from .players_store import PlayerStore

players_app = typer.Typer(help="The server's players and their login links (run on the server's database).",
                          no_args_is_help=True)

#: the longest expiry ``--expires`` takes, in hours (ten years)
MAX_EXPIRES_HOURS = 10 * 365 * 24

_DB = DB_OPTION
_URL = typer.Option("http://127.0.0.1:8000", "--url", help="The server's address, for the link.")
_EXPIRES = typer.Option(168.0, "--expires", min=0.0, help=(
    "Hours the link logs in for unless it is used first (then it stays); 0: until revoked."))


def _store(db: str) -> PlayerStore:
    """The players' store of ``db``, migrated to the newest schema (as the server would at start)."""
    from .players_store import PlayerStore
    from .store import Store

    return PlayerStore(Store(migrated_engine(db)))


def _checked(check: Callable[[object], str], value: object) -> str:
    """A value through one of players_store's checks, or exit 2 with its message."""
    from .errors import Refused

    try:
        return check(value)
    except Refused as exc:
        _fail(exc.message, 2)


def _link(store: PlayerStore, player_id: str, label: str, expires: float, url: str) -> str:
    """A new login link of ``player_id`` made by the operator; its URL."""
    from .store import token_hash

    if not 0 <= expires <= MAX_EXPIRES_HOURS:  # also nan and inf
        _fail(f"--expires is a number of hours from 0 (until revoked) to {MAX_EXPIRES_HOURS}; got {expires}", 2)
    token = secrets.token_urlsafe(24)
    now = time.time()
    store.add_link({"token_hash": token_hash(token), "player_id": player_id, "label": label[:64], "created": now,
                    "revoked": None, "expires": now + expires * 3600 if expires else None,
                    "until_used": bool(expires), "made_by": "operator"})
    return f"{url.rstrip('/')}/me?token={token}"


@players_app.command("list")
def list_players(host: str = typer.Argument("", help="A host id (default: this server's host); 'all' for every host."),
                 db: str = _DB) -> None:
    """Players: id, name, the host that made them, Discord id, whether they have logged in, live links."""
    from .store import Store

    store = _store(db)
    owner = Store(store.engine).owner_host()
    rows = store.players(every=True) if host == "all" else store.players(host or owner)
    links = store.links()
    now = time.time()
    for row in rows:
        live = sum(1 for r in links if r.player_id == row.id and r.revoked is None
                   and (r.expires is None or r.expires > now))
        typer.echo(f"{row.id}  {row.name}  host {row.host_id}  discord {row.discord_id or '-'}  "
                   f"{'logged in ' + _when(row.claimed) if row.claimed else 'never logged in'}  "
                   f"{live} live link{'s' if live != 1 else ''}")
    store.engine.dispose()


@players_app.command("new")
def new_player(name: str = typer.Argument(..., help="The player's display name (1-64 printable characters)."),
               host: str = typer.Option("", "--host", help="The host that seats the player (default: this server's host)."),
               discord: Optional[str] = typer.Option(None, "--discord", help="The player's Discord user id (unique)."),
               email: Optional[str] = typer.Option(None, "--email", help="Where the player's notifications go."),
               url: str = _URL, expires: float = _EXPIRES, db: str = _DB) -> None:
    """Make a player and print its login link (its token is not stored: send it to the player)."""
    from .players_store import PlayerConflict, check_discord, check_email, check_name
    from .store import Store, token_hash

    clean = _checked(check_name, name)
    discord_id = None if discord is None else _checked(check_discord, discord)
    mail = None if email is None else _checked(check_email, email)
    store = _store(db)
    target = host or Store(store.engine).owner_host()
    if target is None:
        _fail("this server has no host yet: blackwhite serve makes it at its first start (or name --host)")
    assert target is not None
    if not Store(store.engine).host_known(target):
        _fail(f"there is no host {target!r} (blackwhite hosts list)")
    if not 0 <= expires <= MAX_EXPIRES_HOURS:
        _fail(f"--expires is a number of hours from 0 (until revoked) to {MAX_EXPIRES_HOURS}; got {expires}", 2)
    now = time.time()
    player_id = secrets.token_hex(8)
    token = secrets.token_urlsafe(24)
    try:
        store.create({"id": player_id, "name": clean, "discord_id": discord_id, "email": mail, "host_id": target,
                      "creator": None, "created": now, "claimed": None},
                     {"token_hash": token_hash(token), "player_id": player_id, "label": "made by the operator",
                      "created": now, "revoked": None, "expires": now + expires * 3600 if expires else None,
                      "until_used": bool(expires), "made_by": "operator"}, anonymous=False, limits=(0, 0))
    except PlayerConflict:
        _fail(f"another player has Discord user id {discord_id}")
    store.engine.dispose()
    typer.echo(f"player {player_id} ({clean}) of host {target}")
    typer.echo(f"{url.rstrip('/')}/me?token={token}")


@players_app.command("links")
def list_links(player: str = typer.Argument("", help="A player id; left out: every player's links."),
               db: str = _DB) -> None:
    """A player's login links: id, who made it, when, and whether it logs in."""
    store = _store(db)
    now = time.time()
    for row in store.links(player or None):
        state = link_state(row.revoked, row.expires, row.until_used, now)
        typer.echo(f"{row.link_id}  player {row.player_id}  by {row.made_by}  made {_when(row.created)}  {state}  "
                   f"{row.label or ''}".rstrip())
    store.engine.dispose()


@players_app.command("new-link")
def new_link(player: str = typer.Argument(..., help="A player id (blackwhite players list)."),
             label: str = typer.Option("made by the operator", "--label", help="What the link is for."),
             url: str = _URL, expires: float = _EXPIRES, db: str = _DB) -> None:
    """Another login link of a player (one who lost theirs) and print it."""
    store = _store(db)
    if store.get(player) is None:
        _fail(f"there is no player {player!r} (blackwhite players list all)")
    typer.echo(_link(store, player, label, expires, url))
    store.engine.dispose()


@players_app.command("revoke")
def revoke(link: str = typer.Argument(..., help="A link id, as blackwhite players links shows it."),
           db: str = _DB) -> None:
    """Revoke a player's login link: it logs in no more (even into a server running now)."""
    store = _store(db)
    row = store.revoke(None, link, time.time())
    store.engine.dispose()
    if row is None:
        _fail(f"there is no player link {link!r} (blackwhite players links)")
    assert row is not None
    typer.echo(f"revoked {row.link_id} of player {row.player_id}")


@players_app.command("set")
def set_player(player: str = typer.Argument(..., help="A player id (blackwhite players list)."),
               name: Optional[str] = typer.Option(None, "--name", help="A new display name."),
               discord: Optional[str] = typer.Option(None, "--discord", help="Its Discord user id; '' clears it."),
               email: Optional[str] = typer.Option(None, "--email", help="Its email; '' clears it."),
               db: str = _DB) -> None:
    """Change a player's name, Discord id or email (the operator may, whoever made it)."""
    from .players_store import PlayerConflict, check_discord, check_email, check_name

    changes: dict[str, str | None] = {}
    if name is not None:
        changes["name"] = _checked(check_name, name)
    if discord is not None:
        changes["discord_id"] = _checked(check_discord, discord) if discord else None
    if email is not None:
        changes["email"] = _checked(check_email, email) if email else None
    if not changes:
        _fail("name what to change: --name, --discord or --email", 2)
    store = _store(db)
    if store.get(player) is None:
        _fail(f"there is no player {player!r} (blackwhite players list all)")
    try:
        store.change(player, changes)
    except PlayerConflict:
        _fail(f"another player has Discord user id {changes.get('discord_id')}")
    store.engine.dispose()
    typer.echo(f"player {player}: " + ", ".join(f"{k} {v if v is not None else 'cleared'}" for k, v in changes.items()))


def register(app: typer.Typer) -> None:
    """Mount ``players`` on the ``blackwhite`` command."""
    app.add_typer(players_app, name="players")
