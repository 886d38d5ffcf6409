"""What the server's commands share (``blackwhite serve`` in :mod:`blackwhite.app`,
``blackwhite hosts`` in :mod:`blackwhite.server.hosts_cli`): the default database and
SQLite's one serving process.  Kept free of heavy imports so ``blackwhite --help`` stays quick.
"""

from __future__ import annotations

DEFAULT_DB = "sqlite:///blackwhite.db"

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
