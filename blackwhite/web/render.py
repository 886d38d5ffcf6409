"""Server-side rendering of the pages: one Jinja2 environment, and the board contract.

A game's board is a partial, ``templates/games/<game_id>.html``, that reads only the
context :func:`render_board` gives it (a seat's view, that seat's legal actions in
notation, the seat names): never a state, so a page can show nothing the engine's
``State.view`` filter did not let through.  A game without its own partial falls back
to ``templates/games/_generic.html``, a readable dump of the view.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

import jinja2
import markupsafe

log = logging.getLogger("blackwhite.web")

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
_GAME_ID = re.compile(r"^[a-z][a-z0-9-]{0,63}$")


def inline_code(text: str) -> markupsafe.Markup:
    """``text`` escaped, with each Markdown code span (```next```) shown as ``<code>``:
    engine texts (a clock's timeout, an option's help) are written once, in Markdown,
    and a page must not show the backticks."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick is a character, not syntax
        return markupsafe.escape(text)
    out = markupsafe.Markup("")
    for i, part in enumerate(parts):
        out += markupsafe.Markup("<code>%s</code>") % part if i % 2 else markupsafe.escape(part)
    return out


def plain_text(text: str) -> str:
    """``text`` without Markdown code-span backticks (for a title or a terminal)."""
    parts = str(text).split("`")
    return "".join(parts) if len(parts) % 2 else str(text)


def _tojson_compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The pages' Jinja2 environment: autoescaping on for every template, strict undefineds
    (a partial that names a missing variable fails loudly in the tests, not silently in a page)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["compact"] = _tojson_compact
    env.filters["inline_code"] = inline_code
    env.globals["seat_label"] = seat_label
    return env


def display_name(name: str) -> str:
    """A seat's name in players' words: a record names a bot seat ``bot ismcts:budget=1``
    (the spec, a public contract); a page says ``ismcts bot``, short enough to sit in a
    table header at 375 px without breaking inside a word."""
    if name.startswith("bot "):
        spec = name[4:].strip()
        kind = spec.split(":", 1)[0].strip() or "a"
        return f"{kind} bot"
    return name


def display_names(names: Iterable[str]) -> list[str]:
    """:func:`display_name` of each seat name."""
    return [display_name(n) for n in names]


def seat_label(seat: int | None, names: Sequence[str] | None = None) -> str:
    """``P1 Sally`` (or ``P1`` when the seat is named by default), ``spectators`` for None;
    a bot seat reads ``P2 ismcts bot`` (see :func:`display_name`)."""
    if seat is None:
        return "spectators"
    base = f"P{seat + 1}"
    if names is not None and 0 <= seat < len(names) and names[seat] not in ("", base):
        return f"{base} {display_name(names[seat])}"
    return base


def legal_entries(texts: Iterable[str]) -> list[dict[str, str]]:
    """``[{"text": notation, "tag": its first word}]``: the contract's ``legal`` list."""
    return [{"text": t, "tag": t.split(" ", 1)[0] if t else ""} for t in texts]


def has_partial(game_id: str) -> bool:
    """Whether ``game_id`` has its own board partial (else the generic dump is used)."""
    return bool(_GAME_ID.match(game_id)) and (TEMPLATES / "games" / f"{game_id}.html").is_file()


def render_board(
    game_id: str,
    view: dict[str, Any],
    *,
    seat: int | None,
    legal: Sequence[dict[str, str]] | Sequence[str] = (),
    names: Sequence[str] = (),
    you: bool = True,
) -> str:
    """The board of ``view`` as HTML (a fragment, escaped throughout).

    ``view`` is exactly ``State.view(seat)`` (``view(None)`` for spectators), ``legal``
    the seat's legal actions (dicts ``{"text", "tag"}`` or plain notation strings,
    empty for anyone who may not act now), ``names`` the seat names.  ``you`` is False
    when whoever reads the board is not the seat (a replay seen as a seat): the board
    then names the seat ("P1 Alice's row") instead of speaking to the reader ("Your row").
    """
    entries = [e if isinstance(e, dict) else legal_entries([e])[0] for e in legal]
    name = f"games/{game_id}.html" if has_partial(game_id) else "games/_generic.html"
    template = environment().get_template(name)
    shown = display_names(names)
    you = you and seat is not None
    your = "Your" if you or seat is None else f"{seat_label(seat, shown)}'s"
    return template.render(view=view, seat=seat, legal=entries, names=shown, game_id=game_id,
                           you=you, your=your, your_l=your if not you else "your")


def board_html(game_id: str, view: dict[str, Any], seat: int | None, legal: Sequence[str], names: Sequence[str],
               you: bool = True) -> str:
    """The board the live pages show (the match service's board renderer, given to it by
    the composition root, :mod:`blackwhite.app`): if the game's partial fails, the
    generic dump of the same view (logged), so a bug in a board never takes a player's
    page down.  ``you=False``: the reader is not the seat (a host seeing every seat's
    board), so the board names it."""
    entries = legal_entries(legal)
    try:
        return render_board(game_id, view, seat=seat, legal=entries, names=names, you=you)
    except Exception:
        log.exception("the %s board partial failed; showing the generic board", game_id)
        return render_board("_generic", view, seat=seat, legal=entries, names=names, you=you)


def game_asset(game_id: str, ext: str) -> str | None:
    """The static file of ``game_id``'s board with extension ``ext`` ("js" or "css"), as a
    path under /static, or None.  ``games/<id>.<ext>`` first; a final match without its
    own file shares its death match's (``joust-final`` uses ``joust.js``)."""
    if not _GAME_ID.match(game_id):
        return None
    for stem in dict.fromkeys([game_id, game_id.removesuffix("-final")]):
        if (STATIC / "games" / f"{stem}.{ext}").is_file():
            return f"/static/games/{stem}.{ext}"
    return None


def render_page(name: str, **context: Any) -> str:
    """A whole page from ``templates/<name>``."""
    return environment().get_template(name).render(**context)


def rules_markdown(game_id: str) -> str | None:
    """The Markdown of ``game_id``'s rules page as its package ships it (its registry
    entry's ``rules_page``); None when there is none."""
    if not _GAME_ID.match(game_id):
        return None
    from ..engine.registry import rules_markdown as shipped

    return shipped(game_id)


@functools.lru_cache(maxsize=32)
def rules_html(game_id: str) -> str | None:
    """The rules page rendered to HTML.  Raw HTML in the source is escaped, not passed
    through: the pages are ours, but a page served to players should never run markup."""
    import markdown

    text = rules_markdown(game_id)
    if text is None:
        return None
    from ..engine.registry import UnknownGameError, game_class

    try:  # the options as the host form and `blackwhite rules` describe them
        text = text.rstrip() + "\n\n" + game_class(game_id).options_markdown()
    except UnknownGameError:
        pass
    md = markdown.Markdown(extensions=["tables", "fenced_code", "toc"])
    # drop the raw-HTML preprocessors so "<script>" in a page stays text
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return str(md.convert(text))
