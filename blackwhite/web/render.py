"""Server-side rendering of the pages: one Jinja2 environment, and the board contract.

A game's board is a partial, the Jinja template its registration names
(``GameEntry.page_template``, shipped in its package), that reads only the context
:func:`render_board` gives it (a seat's view, that seat's legal actions in notation
with the game's words for each, the seat names): never a state, so a page can show
nothing the engine's ``State.view`` filter did not let through.  A game without its
own partial is drawn by ``templates/games/_generic.html``: every field of the view in
plain words, tiles as tiles, the legal actions as labelled buttons.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import jinja2
import markupsafe

from ..drawing.text import field_words, is_tile, value_words
from ..views import is_seat_key

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


def utc_text(moment: float) -> str:
    """A Unix moment as the pages write it: ``2026-11-29 14:05 UTC``."""
    import time

    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(moment)))


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
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(TEMPLATES)), jinja2.FunctionLoader(_game_partial)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["compact"] = _tojson_compact
    env.filters["words"] = field_words
    env.filters["value_words"] = value_words
    env.tests["tile"] = is_tile
    env.tests["seats"] = _holds_seats
    env.filters["inline_code"] = inline_code
    env.filters["utc"] = utc_text
    env.globals["seat_label"] = seat_label
    return env


def _holds_seats(value: Any, key: str) -> bool:
    """Whether a view's ``key`` holds a seat or a list of seats (drawn as "P1 Sally")."""
    if isinstance(value, bool) or not is_seat_key(str(key)):
        return False
    return isinstance(value, int) or (isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value))


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


#: the name under which a game's own partial is loaded (``game:<id>``)
_PARTIAL = "game:"


def _game_partial(name: str) -> tuple[str, None, Callable[[], bool]] | None:
    """The source of a game's own board partial, read from its package (its
    registration's ``page_template``); ``None`` for any other name."""
    if not name.startswith(_PARTIAL):
        return None
    from ..engine.registry import declared, read_resource

    entry = declared(name[len(_PARTIAL):])
    if entry is None or entry.page_template is None:
        return None
    return read_resource(entry.page_template), None, lambda: True


def has_partial(game_id: str) -> bool:
    """Whether ``game_id``'s package ships its own board partial (else the generic
    board is used)."""
    from ..engine.registry import declared

    entry = declared(game_id) if _GAME_ID.match(game_id) else None
    return entry is not None and entry.page_template is not None


def action_words(game_id: str, texts: Iterable[str]) -> list[dict[str, str]]:
    """The contract's ``legal`` list with the game's own words for each action
    (``Game.describe``): ``[{"text", "tag", "help"}]``, ``help`` empty when the game
    says nothing about that kind of action."""
    from ..engine.registry import UnknownGameError, game_class

    try:
        describe: Callable[[str], str | None] | None = game_class(game_id).describe
    except UnknownGameError:
        describe = None
    out = legal_entries(texts)
    for entry in out:
        entry["help"] = (describe(entry["text"]) if describe else None) or ""
    return out


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
    if any("help" not in e for e in entries):
        worded = action_words(game_id, [e["text"] for e in entries])
        entries = [{**w, **e} for w, e in zip(worded, entries)]
    name = _PARTIAL + game_id if has_partial(game_id) else "games/_generic.html"
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


#: what a game's page assets are called under ``/games/<id>/``, and the entry field naming each
ASSETS = {"board.js": "page_script", "board.css": "page_style"}


def game_asset(game_id: str, ext: str) -> str | None:
    """The address of ``game_id``'s board script (``ext`` "js") or style sheet ("css")
    when its package ships one (its registration's ``page_script``/``page_style``,
    served by the pages at ``/games/<id>/board.<ext>``), else None."""
    from ..engine.registry import declared

    field = ASSETS.get(f"board.{ext}")
    entry = declared(game_id) if _GAME_ID.match(game_id) else None
    if field is None or entry is None or getattr(entry, field) is None:
        return None
    return f"/games/{game_id}/board.{ext}"


def game_asset_text(game_id: str, name: str) -> str | None:
    """The text of ``game_id``'s asset ``name`` (``board.js``, ``board.css``) as its
    package ships it; None when it ships none or it cannot be read (logged)."""
    from ..engine.registry import declared, read_resource

    field = ASSETS.get(name)
    entry = declared(game_id) if _GAME_ID.match(game_id) else None
    ref = getattr(entry, field) if entry is not None and field is not None else None
    if ref is None:
        return None
    try:
        return read_resource(ref)
    except (OSError, ImportError, ValueError) as exc:
        log.error("the %s of %s (%s) cannot be read: %s", name, game_id, ref, exc)
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
    except Exception:  # the game's own option table is broken: its page without it
        log.exception("the options of %s cannot be described", game_id)
    md = markdown.Markdown(extensions=["tables", "fenced_code", "toc"])
    # drop the raw-HTML preprocessors so "<script>" in a page stays text
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return str(md.convert(text))
