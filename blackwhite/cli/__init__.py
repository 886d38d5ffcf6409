"""The ``blackwhite`` command: a thin adapter over the engine, the bots, the terminal,
the arena, the analysis and the server.

:mod:`.app` assembles the typer app (``referee`` and ``rules`` are its own); each other
command lives in a module of its own here (:mod:`.play`, :mod:`.arena`,
:mod:`.analyse`) or beside what it runs (``serve``, ``hosts``, ``discord``).
"""

from .app import app, main

__all__ = ["app", "main"]
