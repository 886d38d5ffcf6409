"""``blackwhite hosts``: a server's hosts and their login links, straight on its database.

It works whether or not the server is running: a running server looks a host's token up
in the database at each request, so a link revoked here is refused at once, and checks
the links of its open host sockets every half second, so their sockets close too.  Tokens are
stored only as hashes, so a link's token is printed once, when it is made.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import typer

from .cli import DB_OPTION, link_state, migrated_engine
from .cli import when as _when

if TYPE_CHECKING:
    from .store import Store

hosts_app = typer.Typer(help="The server's hosts and their login links (run on the server's database).",
                        no_args_is_help=True)

#: the longest expiry ``new-link --expires`` takes, in hours (ten years, as the API's ``expires_in``)
MAX_EXPIRES_HOURS = 10 * 365 * 24

_DB = DB_OPTION


def _store(db: str) -> Store:
    """The store of ``db``, migrated to the newest schema (as the server would at start)."""
    from .store import Store

    return Store(migrated_engine(db))


@hosts_app.command("list")
def list_hosts(db: str = _DB) -> None:
    """Every host: its id, whether it is the server's own, its matches and live links."""
    store = _store(db)
    links = store.links()
    for host, matches in store.hosts():
        live = sum(1 for r in links if r.host_id == host.id and r.revoked is None)
        mark = " (this server's host)" if host.owner else ""
        typer.echo(f"{host.id}{mark}: {matches} match{'es' if matches != 1 else ''}, {live} live link"
                   f"{'s' if live != 1 else ''}, since {_when(host.created)}")
    store.engine.dispose()


@hosts_app.command("links")
def list_links(host: str = typer.Argument("", help="A host id (default: this server's host); 'all' for every host."),
               db: str = _DB) -> None:
    """A host's login links: id, label, when made and when revoked."""
    store = _store(db)
    wanted = None if host == "all" else (host or store.owner_host())
    if wanted is None and host != "all":
        typer.echo("this server has no host yet: blackwhite serve makes it at its first start", err=True)
        raise typer.Exit(1)
    now = time.time()
    for row in store.links(wanted):
        state = link_state(row.revoked, row.expires, row.until_used, now)
        typer.echo(f"{row.link_id}  host {row.host_id}  {row.scope or 'owner'}  made {_when(row.created)}  {state}  "
                   f"{row.label or ''}".rstrip())
    store.engine.dispose()


@hosts_app.command("new-link")
def new_link(host: str = typer.Argument("", help="A host id (default: this server's host, made if need be)."),
             label: str = typer.Option("made with blackwhite hosts new-link", "--label", help="What the link is for."),
             url: str = typer.Option("http://127.0.0.1:8000", "--url", help="The server's address, for the link."),
             scope: str = typer.Option("owner", "--scope", help=(
                 "What the link may do: 'owner' (everything: links, co-hosts, matches), 'matches' (create and "
                 "run matches only: for a bot or a co-organiser) or 'discord' (the Discord bridge's: matches, "
                 "and the Discord players' notices).")),
             expires: float = typer.Option(0.0, "--expires", min=0.0, help=(
                 "Hours after which the link logs in no more (0: never).")),
             db: str = _DB) -> None:
    """Make another login link of a host and print it (its token is not stored: keep it)."""
    import secrets

    from .store import LINK_SCOPES, token_hash

    if scope not in LINK_SCOPES:
        typer.echo(f"error: --scope is one of {', '.join(LINK_SCOPES)}; got {scope!r}", err=True)
        raise typer.Exit(2)
    if not 0 <= expires <= MAX_EXPIRES_HOURS:  # also nan and inf, which a range lets through
        typer.echo(f"error: --expires is a number of hours from 0 (never) to {MAX_EXPIRES_HOURS}; got {expires}",
                   err=True)
        raise typer.Exit(2)
    store = _store(db)
    until = time.time() + expires * 3600 if expires else None
    token = secrets.token_urlsafe(24)
    target = host or store.owner_host()
    if target is None:
        if scope != "owner" or until is not None:
            typer.echo("error: this server has no host yet; its first link is an owner link that does not expire "
                       "(run blackwhite serve once, or leave out --scope and --expires)", err=True)
            raise typer.Exit(1)
        store.new_host(secrets.token_hex(8), token_hash(token), time.time(), label[:64], owner=True)
    elif not store.host_known(target):
        typer.echo(f"error: there is no host {target!r} (blackwhite hosts list)", err=True)
        raise typer.Exit(1)
    elif scope == "discord" and target != store.owner_host():
        typer.echo("error: a discord link is the Discord bot's, a link of this server's own host: leave out the"
                   " host id (another host's bot takes --scope matches)", err=True)
        raise typer.Exit(1)
    else:
        store.add_link(target, token_hash(token), time.time(), label[:64], scope, until)
    typer.echo(f"{url.rstrip('/')}/?token={token}")
    store.engine.dispose()


@hosts_app.command("revoke")
def revoke(link: str = typer.Argument(..., help="A link id, as blackwhite hosts links shows it."), db: str = _DB) -> None:
    """Revoke a login link: it logs in no more (even into a server running now)."""
    store = _store(db)
    row = store.revoke(None, link, time.time())
    store.engine.dispose()
    if row is None:
        typer.echo(f"error: there is no link {link!r} (blackwhite hosts links all)", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked {row.link_id} of host {row.host_id}")


@hosts_app.command("merge")
def merge(source: str = typer.Argument(..., help="The host whose links and matches move."),
          target: str = typer.Argument("", help="The host they move to (default: this server's host)."),
          db: str = _DB) -> None:
    """Move a host's links and matches under another host (say, the hosts an upgrade made
    of each earlier token, under this server's host).  The moved host's co-hostings of
    others' matches end (they were given to it, not to the target).  A running server
    follows at once: its open sockets within a second."""
    store = _store(db)
    into = target or store.owner_host()
    known = {h.id for h, _n in store.hosts()}
    if into is None or into not in known or source not in known or source == into:
        typer.echo(f"error: name two different hosts of this server (blackwhite hosts list); got {source!r} and {into!r}",
                   err=True)
        raise typer.Exit(1)
    moved, dropped = store.merge(source, into)
    store.engine.dispose()
    typer.echo(f"host {source}'s links and {moved} match{'es' if moved != 1 else ''} are now host {into}'s")
    if dropped:
        typer.echo(f"host {source} was a co-host of {dropped} other host{'s' if dropped != 1 else ''}' "
                   f"match{'es' if dropped != 1 else ''}: no longer (their owners may name host {into})")


def register(app: typer.Typer) -> None:
    """Mount ``hosts`` on the ``blackwhite`` command."""
    app.add_typer(hosts_app, name="hosts")
