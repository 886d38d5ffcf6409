"""One module per game; see :mod:`blackwhite.engine.registry` for the id -> class map."""
