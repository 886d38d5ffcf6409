"""What the server's commands share (``blackwhite serve`` in :mod:`blackwhite.app`, and
``hosts``, ``players``, ``ratings``, ``season`` and ``cluster``, which work straight on its
database): the default database and ``--db``, opening it migrated, SQLite's one serving
process, the configuration scheme, database URLs shown without their password, and how
errors, moments and login links are printed.  Kept free of heavy imports so
``blackwhite --help`` stays quick.

Configuration: every option of ``serve`` (and ``--db`` of ``hosts``) is also read from
the environment as ``BLACKWHITE_`` and its name in capitals with underscores
(``--public-url`` is ``BLACKWHITE_PUBLIC_URL``, ``--db`` ``BLACKWHITE_DB``: the scheme the
Discord bridge reads too), and from a TOML file given by ``--config FILE`` (or
``BLACKWHITE_CONFIG``) whose keys are the same names in lower case (``public_url =
"https://..."``).  A flag wins over the environment, which wins over the file, which wins
over the default.  A password is best kept out of the command line (``ps`` shows it):
put the URL in the environment or the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

DEFAULT_DB = "sqlite:///blackwhite.db"
#: the prefix of every environment variable blackwhite reads
ENV_PREFIX = "BLACKWHITE"
#: what ``serve`` and ``hosts`` pass as context settings: every option from the environment
CONTEXT = {"auto_envvar_prefix": ENV_PREFIX}


def database_url(given: str | None) -> str:
    """The database of ``blackwhite hosts`` and ``cluster status``, as ``serve`` finds its
    own: ``--db``, else ``BLACKWHITE_DB`` (typer reads both), else the ``db`` key of the
    file ``BLACKWHITE_CONFIG`` names (serve's file: its other keys are left alone), else
    the default; so a password kept in that file need not be typed where ``ps`` shows it.
    A file that cannot be read or is not TOML is one line (``BadParameter``)."""
    if given:
        return given
    import os

    path = os.environ.get("BLACKWHITE_CONFIG", "")
    if path:
        import tomllib
        from pathlib import Path

        from typer import BadParameter

        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise BadParameter(f"cannot read BLACKWHITE_CONFIG's file {path}: {exc.strerror or exc}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BadParameter(f"BLACKWHITE_CONFIG's file {path} is not a TOML file: {exc}") from None
        if data.get("db"):
            return str(data["db"])
    return DEFAULT_DB


def shown_url(url: str) -> str:
    """A database URL as it may be printed or logged: its password replaced by ``***``."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(a database URL that cannot be read)"


def password_forms(url: str) -> list[str]:
    """The ways ``url``'s password may appear in text (as it is, and URL-quoted), longest
    first; none if it has none."""
    from sqlalchemy.engine import make_url

    try:
        password = make_url(url).password
    except Exception:
        return []
    if not password:
        return []
    import urllib.parse

    forms = {str(password), urllib.parse.quote(str(password), safe=""), urllib.parse.quote_plus(str(password))}
    return sorted(forms, key=len, reverse=True)


def without_password(text: str, url: str) -> str:
    """``text`` (an error's message, say) with ``url``'s password, if any, replaced by ``***``."""
    text = text.replace(url, shown_url(url))
    for form in password_forms(url):
        text = text.replace(form, "***")
    return text


#: ``--db`` of the commands that work straight on a server's database (hosts, players,
#: ratings, season, cluster): one option, so they all find the database as ``serve`` does
DB_OPTION = typer.Option(None, "--db", envvar="BLACKWHITE_DB", callback=database_url, show_default=DEFAULT_DB, help=(
    "The server's database URL (as given to blackwhite serve): --db, else BLACKWHITE_DB, else the db key "
    "of the file BLACKWHITE_CONFIG names, else the default."))


def migrated_engine(db: str) -> Engine:
    """The engine of ``db``, migrated to the newest schema (as the server would at start);
    a database that cannot be opened is one line on stderr (no password) and exit 2."""
    from .store import make_engine, migrate, normalise_url

    try:
        engine = make_engine(normalise_url(db))
        migrate(engine)
    except Exception as exc:
        typer.echo(without_password(f"error: cannot open the database {shown_url(db)}: {exc}", db), err=True)
        raise typer.Exit(2) from None
    return engine


def fail(message: str, code: int = 1) -> NoReturn:
    """A command's refusal: ``error: message`` on stderr and exit ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def when(t: float | None) -> str:
    """A moment as the commands print it (UTC, to the minute); ``-`` for none."""
    import time

    return "-" if t is None else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))


def link_state(revoked: float | None, expires: float | None, until_used: bool, now: float) -> str:
    """Whether a login link (a host's or a player's) logs in, as ``links`` prints it."""
    if revoked is not None:
        return f"revoked {when(revoked)}"
    if expires is not None and now >= expires:
        return f"expired {when(expires)}"
    if expires is not None:
        return f"logs in until {when(expires)}" + (" unless used before" if until_used else "")
    return "logs in"


def load_config(ctx: typer.Context, param: typer.CallbackParam, path: str | None) -> str | None:
    """``--config FILE`` (eager): the file's keys become the command's defaults, under the
    environment and the flags.  A file that cannot be read, is not TOML or names an
    option the command does not have is refused with one line, changing nothing."""
    import tomllib
    from pathlib import Path

    from typer import BadParameter  # typer's own click (it keeps a copy), not the click package's

    if not path:
        return path
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BadParameter(f"cannot read {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadParameter(f"{path} is not a TOML file: {exc}") from None
    names = {p.name for p in ctx.command.params if p.name != "config"}
    values = {str(k).replace("-", "_"): v for k, v in data.items()}
    unknown = sorted(set(values) - names)
    if unknown:
        raise BadParameter(f"{path} names no option of this command: {', '.join(unknown)} "
                                 f"(its keys are: {', '.join(sorted(names))})")
    ctx.default_map = {**(ctx.default_map or {}), **values}
    return path

#: the SQLite file a serving process holds its exclusive lock on, kept open for its lifetime
_HELD: list[int] = []


def one_process(db: str) -> str | None:
    """SQLite serves one process: take an exclusive lock on the database file (``flock``,
    apart from SQLite's own locks) for this process's life; None, or why it cannot."""
    import fcntl
    import os

    from sqlalchemy.engine import make_url

    try:
        url = make_url(db)
    except Exception:
        return None  # create_app says what is wrong with it
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    path = os.path.abspath(url.database)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # it holds dealt tiles: the owner's only
    except OSError:
        return None  # create_app says why the file cannot be opened
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return (f"error: another blackwhite serve is already serving the SQLite database {path}. "
                "SQLite serves one process; to run several server processes over one database, "
                "use PostgreSQL (--db postgresql://...; see docs/deploy.md).")
    _HELD.append(fd)
    return None
