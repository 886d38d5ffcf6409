"""The browser pages of ``blackwhite serve``: host, play, watch, replay and rules.

Server-side templates (``templates/``), one small script per page (``static/``), and
the board contract :func:`blackwhite.web.render.render_board` that every game's partial
follows.  See docs/pages.md.
"""
