"""``python -m blackwhite``: the same command as ``blackwhite``."""

from .cli import main

main()
