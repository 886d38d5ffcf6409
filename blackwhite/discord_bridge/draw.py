"""A view as plain text for a Discord message (laid out in messages by :mod:`.messages`),
from the view dicts of the API only.  A seat's view of grouping and joust
is drawn by the terminal's own drawings (``blackwhite/drawing/text.py``, which take a view
dict and import nothing of the engine); swapping and yellow are drawn here after the
terminal's (whose versions are rich tables), with the seats' names; anything else,
and the public view of the games the terminal never shows, is listed by field."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..drawing.text import generic_lines, grouping_lines, joust_lines
from ..views.domino import Cell, DominoView
from ..views.swapping import SwappingView
from ..views.yellow import YellowView

#: fields every view has, shown by the common lines rather than the per-game drawing
_COMMON = {"game", "seat", "options", "log", "to_move", "submitted", "my_pending", "finished", "winner", "scores",
           "ranking"}


def _who(seat: int | None, me: int | None, names: Sequence[str]) -> str:
    if seat is None:
        return "-"
    name = names[seat] if seat < len(names) else f"P{seat + 1}"
    return f"{name} (you)" if seat == me else name


def _tile(tile: Any, colour: Any, revealed: bool) -> str:
    if tile is None:
        body = "?" + ("" if colour is None else str(colour)[0].upper())
    else:
        body = f"{tile}{'B' if tile % 2 == 0 else 'W'}"
    return f"[{body}]" if revealed else body


def draw_swapping(view: SwappingView, names: Sequence[str]) -> list[str]:
    """Both rows by position, as the terminal draws them; a spectator sees both rows as
    the public knows them (``their_row`` is then absent)."""
    me = view["seat"]
    lines = [f"Swapping - game {view['game_no']}, phase {view['phase']}"]
    if me is None:  # the public view: both rows as everyone knows them
        for s, row in enumerate(view["rows"]):
            cells = ["." if c is None else _tile(c["tile"], c["colour"], c["revealed"]) for c in row]
            lines.append(f"{_who(s, None, names)[:12]:<12}" + " ".join(f"{c:>4}" for c in cells))
        if view["totals"]:
            lines.append("Running totals (P1-P2): " + ", ".join(f"{a}-{b}" for a, b in view["totals"]))
        return lines
    width = len(view["my_row"])
    lines.append(" " * 12 + " ".join(f"{p + 1:>4}" for p in range(width)))
    mine = ["." if c is None else _tile(c["tile"], None, c["revealed"]) for c in view["my_row"]]
    theirs = ["." if c is None else _tile(c["tile"], c["colour"], c["revealed"]) for c in view["their_row"]]
    lines.append(f"{'you':<12}" + " ".join(f"{c:>4}" for c in mine))
    lines.append(f"{_who(1 - me, None, names)[:12]:<12}" + " ".join(f"{c:>4}" for c in theirs))
    if view["my_unplaced"]:
        lines.append(f"Your unplaced tiles: {' '.join(map(str, view['my_unplaced']))}")
    if view["totals"]:
        lines.append("Running totals (P1-P2): " + ", ".join(f"{a}-{b}" for a, b in view["totals"]))
    if view["past_games"]:
        lines.append("Tied games (P1-P2): " + ", ".join("-".join(map(str, g)) for g in view["past_games"]))
    lines.append("B black (even), W white (odd), [..] revealed, ? unknown")
    return lines


def draw_yellow(view: YellowView, names: Sequence[str]) -> list[str]:
    """Everything in yellow is public: one line per seat."""
    lines = [f"Black and Yellow - round {view['round'] + 1} of {view['max_rounds']} (target {view['target']})",
             f"{'seat':<16}{'points':>7}{'yellow':>7}{'garnets':>8}  black tiles      last play"]
    last = view["last_plays"]
    for s in range(len(view["points"])):
        lines.append(
            f"{_who(s, view['seat'], names)[:16]:<16}{view['points'][s]:>7}{view['yellow'][s]:>7}"
            f"{view['garnets'][s]:>8}  {' '.join(map(str, view['inventories'][s])):<17}"
            f"{'' if last is None else last[s]}"
        )
    return lines


def draw_domino(view: DominoView, names: Sequence[str]) -> list[str]:
    """The board much as :func:`blackwhite.drawing.text.domino_board` draws it, rows and
    columns read from the view's cell names, the seats by name; then the
    viewer's unused dominoes and the other seat's count."""
    board = view["board"]
    cols = sorted({name[0] for name in board})
    rows = sorted({name[1] for name in board})

    def token(cell: Cell | None) -> str:
        if cell is None:
            return " . "
        n = cell["number"]
        if n is None:
            return " ?" + str(cell["colour"])[0]
        return f"({n})" if cell["hidden"] else f" {n} "

    def joined(a: str, b: str) -> bool:
        cell = board.get(a)
        return cell is not None and cell.get("mate") == b

    lines = ["Domino", "    " + "   ".join(cols)]
    for r, row_name in enumerate(rows):
        row, link = [f" {row_name} "], ["   "]
        for c, col_name in enumerate(cols):
            name = col_name + row_name
            on = name in board
            right = c + 1 < len(cols) and on and joined(name, cols[c + 1] + row_name)
            row.append((token(board.get(name)) if on else "   ") + ("=" if right else " "))
            down = r + 1 < len(rows) and on and joined(name, col_name + rows[r + 1])
            link.extend([" | " if down else "   ", " "])
        lines.append("".join(row).rstrip())
        if r + 1 < len(rows):
            lines.append("".join(link).rstrip())
    if view.get("points") is not None:
        lines.append("Points: " + " - ".join(f"{_who(s, view.get('seat'), names)} {p}"
                                             for s, p in enumerate(view["points"])))
    me = view.get("seat")
    if me is not None:
        unused = [f"({a},{b})" for a, b in view.get("my_unused", [])]
        lines.append(f"Your unused dominoes ({len(unused)}): " + (" ".join(unused) or "none"))
        lines.append(f"{_who(1 - me, None, names)} has {view.get('their_unused_count', '?')} unused")
    lines.append("5 shown, (5) hidden but yours, ?b/?w hidden black/white, =/| one domino, . empty")
    return lines


def _generic(view: dict[str, Any], names: Sequence[str] = ()) -> list[str]:
    """Every field of a view in plain words (:func:`blackwhite.drawing.text.generic_lines`)."""
    return generic_lines({k: v for k, v in view.items() if k not in _COMMON}, names)


def _terminal(lines: Callable[[Any], tuple[str, list[str]]]) -> Callable[[dict[str, Any], Sequence[str]], list[str]]:
    """A drawing of the terminal for a seat's view; the public view listed by field."""
    def draw(view: dict[str, Any], names: Sequence[str]) -> list[str]:
        if view.get("seat") is None:
            return [f"{view['game']} - what everyone knows", *_generic(view, names)]
        title, body = lines(view)
        return [title, *body]

    return draw


#: the drawings of the built-in games, named by their registrations (``text_drawer``)
draw_grouping = _terminal(grouping_lines)
draw_joust = _terminal(joust_lines)


def _drawer(game: str) -> Callable[[Any, Sequence[str]], list[str]] | None:
    """The drawing the game's registration names (``text_drawer``); ``None`` (the
    generic lines) for a game that names none, is not installed here, or whose drawing
    cannot be imported."""
    from ..engine.registry import declared, load

    entry = declared(game)
    if entry is None or entry.text_drawer is None:
        return None
    try:
        found: Callable[[Any, Sequence[str]], list[str]] = load(entry.text_drawer)
    except (ImportError, AttributeError):
        return None
    return found


def draw_view(view: dict[str, Any], names: Sequence[str]) -> str:
    """The board of ``view`` (a seat's or the public one) as lines of text: the game's
    drawing (or its fields), then whose move it is and the score once known."""
    game = str(view.get("game", "?"))
    drawer = _drawer(game)
    try:
        lines = drawer(view, names) if drawer else []
    except Exception:  # a drawing's bug (any game's) must not stop the seat's prompt
        lines = []
    who = "everyone" if view.get("seat") is None else _who(view.get("seat"), None, names)
    lines = lines or [f"{game} - what {who} knows", *_generic(view, names)]
    me = view.get("seat")
    if view.get("finished"):
        lines.append("Finished: " + result_text(view, names))
    else:
        waiting = ", ".join(_who(s, me, names) for s in view.get("to_move", []))
        lines.append(f"To move: {waiting or '-'}")
    if view.get("my_pending"):
        lines.append(f"You submitted: {view['my_pending']}")
    return "\n".join(lines)


def result_text(view: dict[str, Any], names: Sequence[str]) -> str:
    """``Sally won (scores 3-1)``: the winner, the scores and a ranking when there is one."""
    winner = view.get("winner")
    scores = view.get("scores")
    head = "a draw" if winner is None else f"{_who(winner, None, names)} won"
    if scores:
        head += " (scores " + "-".join(str(s) for s in scores) + ")"
    ranking = view.get("ranking")
    if ranking:
        head += "; ranking: " + ", ".join(_who(s, None, names) for s in ranking)
    return head


def clock_text(clocks: dict[str, Any] | None, names: Sequence[str], me: int | None = None) -> str:
    """One line: each awaited seat's time for this action and its reserve."""
    if not clocks:
        return ""
    parts = []
    for s, seat in enumerate(clocks.get("seats", [])):
        if seat.get("awaited"):
            parts.append(f"{_who(s, me, names)}: {_mmss(seat['action_left'])} + reserve {_mmss(seat['reserve_left'])}")
    text = "Clock: " + ("; ".join(parts) if parts else "nobody awaited")
    if clocks.get("match_left") is not None:  # a slow match's hours for the whole match
        text += f"; the whole match {_mmss(clocks['match_left'])}"
    if (clocks.get("quiet") or {}).get("now"):
        text += " (quiet hours: the clocks do not run)"
    return text + (" (paused)" if clocks.get("paused") else "")


def _mmss(seconds: float) -> str:
    """m:ss live; h:mm:ss from an hour, and days from two (a slow pace's clocks)."""
    s = max(0, int(round(float(seconds))))
    if s < 3600:
        return f"{s // 60}:{s % 60:02d}"
    days, rest = divmod(s, 86400) if s >= 2 * 86400 else (0, s)
    hms = f"{rest // 3600}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days} d {hms}" if days else hms
