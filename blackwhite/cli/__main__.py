"""``python -m blackwhite.cli``: the same command as ``blackwhite``."""

from .app import main

main()
