"""Drawings of a seat's view as lines of plain text, from the view dict alone (what
``State.view`` gives and the server's API sends).  The terminal shows them, and the
Discord bridge, which must not import the engine, draws with them too: so nothing here
imports the engine, the games or the bots."""

from __future__ import annotations

import textwrap
from typing import Any, Sequence

from ..views import is_seat_key
from ..views.domino import Cell, DominoBoard
from ..views.grouping import Entry, GroupingSeatView, RoundInfo
from ..views.joust import JoustView

#: the drawings of the games fit a screen this wide (and, with the prompt, 24 lines high)
SCREEN_WIDTH = 80


def _who(seat: int | None, me: int) -> str:
    """``you`` or ``P2``: the person reads "you" for their own seat everywhere."""
    if seat is None:
        return "-"
    return "you" if seat == me else f"P{seat + 1}"


def _fit(head: str, parts: Sequence[str], sep: str = " | ", width: int = SCREEN_WIDTH) -> str:
    """``head`` and as many of ``parts`` as fit in one line of ``width``."""
    line = head
    for i, part in enumerate(parts):
        more = (sep if i else "") + part
        if len(line) + len(more) > width:
            break
        line += more
    return line


def wrap_words(head: str, words: Sequence[str], width: int = SCREEN_WIDTH) -> list[str]:
    """``head`` then ``words`` wrapped to ``width``, continuation lines indented."""
    return textwrap.wrap(head + " ".join(words), width=width, subsequent_indent="  ", break_long_words=False)


def field_words(key: str) -> str:
    """A view's field name in words: ``my_tiles`` -> ``My tiles``."""
    words = str(key).replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def is_tile(value: Any) -> bool:
    """Whether a view's value is a tile (``blackwhite.engine.TileView``: a mapping with
    exactly the keys ``tile`` and ``colour``); the generic drawings draw it as one."""
    return isinstance(value, dict) and set(value) == {"tile", "colour"}


def tile_words(value: dict[str, Any]) -> str:
    """A tile in words: ``black 4``; ``black ?`` face down with its colour shown; ``?``."""
    tile, shown = value.get("tile"), value.get("colour")
    if tile is None:
        return "?" if shown is None else f"{shown} ?"
    return f"{shown or ('black' if tile % 2 == 0 else 'white')} {tile}"


def seat_words(seat: Any, names: Sequence[str] = ()) -> str:
    """A seat in words: ``P1``, or ``P1 Sally`` when it has a name other than that."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        return value_words(seat)
    label = f"P{seat + 1}"
    if 0 <= seat < len(names) and names[seat] and names[seat] != label:
        return f"{label} {names[seat]}"
    return label


def value_words(value: Any, key: str = "", names: Sequence[str] = ()) -> str:
    """Any value of a view in plain words: tiles as tiles, seats as seats (a field named
    as :data:`blackwhite.views.SEAT_KEYS` says), yes/no, "none" for nothing, lists joined
    by commas, objects as "field value" pairs."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if is_seat_key(key) and (isinstance(value, int) or (isinstance(value, list) and all(isinstance(v, int) for v in value))):
        seats = value if isinstance(value, list) else [value]
        return ", ".join(seat_words(s, names) for s in seats) or "none"
    if isinstance(value, (int, float, str)):
        return str(value)
    if is_tile(value):
        return tile_words(value)
    if isinstance(value, dict):
        return "; ".join(f"{field_words(k).lower()} {value_words(v, str(k), names)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        if not value:
            return "none"
        inner = [value_words(v, "", names) for v in value]
        nested = any(isinstance(v, (list, tuple)) for v in value)
        return " / ".join(f"({w})" for w in inner) if nested else ", ".join(inner)
    return str(value)


def generic_lines(view: dict[str, Any], names: Sequence[str] = (), width: int = SCREEN_WIDTH) -> list[str]:
    """A view of any game as lines of text, every field in plain words (the drawing of a
    game that brings only its rules): a list of objects (rounds, plays) one per line."""
    lines: list[str] = []
    for key, value in view.items():
        head = f"{field_words(key)}: "
        if isinstance(value, list) and value and all(isinstance(v, dict) and not is_tile(v) for v in value):
            lines.append(head.rstrip())
            for item in value:
                lines.extend(textwrap.wrap(value_words(item, "", names), width=width, initial_indent="  - ",
                                           subsequent_indent="    ", break_long_words=False) or ["  - none"])
            continue
        lines.extend(textwrap.wrap(head + value_words(value, key, names), width=width, subsequent_indent="  ",
                                   break_long_words=False) or [head.rstrip()])
    return lines


def _grouping_tile(entry: Entry | None) -> str:
    """``6B`` a number you know, ``[6B]`` shown to both, ``?W`` unknown, ``?B-`` known
    not to be the 8 (final), ``.`` not dealt yet."""
    if entry is None:
        return "."
    tile = entry["tile"]
    if tile is None and entry.get("eight"):
        tile = 8
    body = f"?{entry['colour'][0].upper()}" if tile is None else f"{tile}{'B' if tile % 2 == 0 else 'W'}"
    if tile is None and entry.get("eight") is False and entry["colour"] == "black":
        body += "-"
    return f"[{body}]" if entry["revealed"] else body


def _grouping_round(r: RoundInfo, me: int) -> str:
    """One settled round in a few words: how it ended and who took the pot."""
    head = f"{r['deal']}.{r['round']}"
    pot = sum(r["bets"])
    if r["how"] == "fold":
        text = f"{_who(r['folder'], me)} folded, {_who(r['winner'], me)} took {pot}"
    elif r["how"] == "showdown":
        tiles: Sequence[object] = r["tiles"] or ["?", "?"]
        t = f"you {tiles[me]} P{2 - me} {tiles[1 - me]}"
        text = f"{t}, " + ("split" if r["winner"] is None else f"{_who(r['winner'], me)} took {pot}")
    else:
        text = f"{r['how']}, " + ("no winner" if r["winner"] is None else f"{_who(r['winner'], me)} won")
    if r.get("penalty"):
        text += f", penalty {r['penalty']}"
    return f"{head} {text}"


def grouping_lines(view: GroupingSeatView) -> tuple[str, list[str]]:
    """Grouping (both variants): chips, bets and pot; your groups; the dealt colours
    of both seats this set; the last rounds; items and proposals in the final."""
    me = view["seat"]
    assert me is not None, "a seat's view"
    them = 1 - me
    final = view["variant"] == "final"
    phase = {"group": "grouping", "choose": "who bets first", "bet": "betting"}.get(view["phase"], view["phase"])
    where = f"set {view['set']}, deal {view['deal']}"
    if view["round"] is not None:
        where += f", round {view['round']} of 9"
    title = f"Grouping{' (final)' if final else ''} - {where} - {phase}"
    ante = "sudden death: no ante, no bets" if view["sudden_death"] else f"ante {view['ante']}"
    chips, bets = view["chips"], view["bets"]
    lines = [
        f"{'':10}{'in hand':>8}{'bet':>6}   {ante}",
        f"{'you (P' + str(me + 1) + ')':10}{chips[me]:>8}{bets[me]:>6}   pot {sum(bets)}",
        f"{'P' + str(them + 1):10}{chips[them]:>8}{bets[them]:>6}",
    ]
    to_act = view.get("to_act")
    if to_act is not None:
        lines[-1] += f"   {_who(to_act, me)} to act"
    groups = view["my_groups"]
    if groups is None:
        lines.append("Your groups: not made yet (A takes 2 tiles, B 3, C 4; tiles 0-8)")
    else:
        text = "   ".join(f"{g}: {' '.join(map(str, ts))}" for g, ts in groups.items())
        order = view.get("my_order")
        lines.append(f"Your groups  {text}" + (f"   (order: {' '.join(order)})" if order else ""))
    current = view["round"]
    for d, deal in enumerate(view["deals"]):
        head = "".join(
            f"{'>' if d + 1 == view['deal'] and p + 1 == current else ' '}{p + 1:<4}" for p in range(9)
        )
        lines.append(f"Deal {d + 1:<5}{head}".rstrip())
        for label, entries in (("  you", deal["mine"]), (f"  P{them + 1}", deal["theirs"])):
            cells = [_grouping_tile(e) for e in entries]
            lines.append(f"{label:10}" + "".join(f" {c:<4}" for c in cells).rstrip())
    rounds = view["rounds"]
    if rounds:
        lines.append(_fit("Last rounds: ", [_grouping_round(r, me) for r in reversed(rounds)]))
    if view.get("first_choice") is None and view["phase"] == "choose":
        lines.append(f"{_who(view['chooser'], me)} chooses who bets first in round 1")
    if final:
        items = view["items"]
        used = items.get("used", [[], []])
        mine = ", ".join(i + (" (used)" if i in used[me] else "") for i in items["mine"]) or "none"
        theirs = ", ".join(i + (" (used)" if i in used[them] else "") for i in items["theirs"]) or "none"
        lines.extend(wrap_words("Items: ", [f"yours {mine}; P{them + 1}'s {theirs}"]))
        proposal = view.get("proposal")
        if proposal is not None:
            lines.append(f"Proposal: {_who(proposal['by'], me)} proposes ante {proposal['ante']}")
    if view.get("end_reason"):
        lines.append(f"Ended: {view['end_reason']}")
    lines.append("Tiles: 6B black 6 you know, [6B] shown to both, ?W white, number unknown,")
    lines.append("       ?B- black but not the 8, . not dealt; > the round being bet")
    return title, lines


_LABEL_ORDER = ("minute", "balance", "giant")


def _joust_tile(value: Any, colour: str) -> str:
    return f"{'?' if value is None else value}{colour[0].upper()}"


def joust_lines(view: JoustView) -> tuple[str, list[str]]:
    """Joust (both variants): points and chips, this set's lots with labels, colours,
    buyers and prices, the auction, your tiles with where they came from, and the
    joust so far."""
    me = view["seat"]
    assert me is not None, "a seat's view"
    them = 1 - me
    final = "items" in view["options"]
    sets = view["set"]
    phase = {
        "auction": "auction", "next": "auction: choosing the next label", "keep": "keeping a leftover",
        "joust-required": "joust: required tile", "joust-optional": "joust: optional step",
    }.get(view["phase"], view["phase"])
    where = "final joust" if sets == "final" else f"set {sets} of {view['options'].get('sets', 3)}"
    title = f"Joust{' (final)' if final else ''} - {where} - {phase}"
    pts, chips, hand = view["points"], view["chips"], view["tiles_in_hand"]
    lines = [
        f"{'':10}{'points':>7}{'chips':>7}{'tiles held':>12}",
        f"{'you (P' + str(me + 1) + ')':10}{pts[me]:>7}{chips[me]:>7}{hand[me]:>12}",
        f"{'P' + str(them + 1):10}{pts[them]:>7}{chips[them]:>7}{hand[them]:>12}",
    ]
    if isinstance(sets, int) and view["lots"]:
        lot = view["lots"][sets - 1]
        prices: dict[tuple[int | str, str | None], int] = {
            (a["group"], a["label"]): a["price"] for a in view["auctions"] if a["set"] == sets}
        lines.append(f"{'Lots of set ' + str(sets):14}" + "".join(f"{name:<15}" for name in _LABEL_ORDER).rstrip())
        for group in lot["groups"]:
            cells = []
            for tile in sorted(group["tiles"], key=lambda t: _LABEL_ORDER.index(t["label"])):
                cell = _joust_tile(tile["value"], tile["colour"])
                if tile["owner"] is not None:
                    price = prices.get((group["group"], tile["label"]))
                    cell += f" {_who(tile['owner'], me)}" + ("" if price is None else f"@{price}")
                cells.append(f"{cell:<15}")
            first = f"(first: {group['first']})" if group.get("first") else ""
            lines.append(f"{'  group ' + str(group['group']):14}" + "".join(cells) + first)
        left = []
        for t in lot["leftovers"]:
            value = "?" if t["value"] is None else str(t["value"])
            left.append(value + ("" if t["owner"] is None else f" to {_who(t['owner'], me)}"))
        lines.append(f"{'  leftover':14}" + ", ".join(left))
    auction = view.get("auction")
    if auction is not None:
        if auction["label"] is None:
            lines.append(f"Auction: {_who(auction['turn'], me)} choose(s) which group-{auction['group']} "
                         f"label is sold next: {', '.join(auction['remaining'])}")
        else:
            bid = "no bid yet" if auction["bid"] is None else (
                f"bid {auction['bid']} by {_who(auction['high_bidder'], me)}")
            lines.append(f"Auction: group {auction['group']} {auction['label']}, {bid}; "
                         f"{_who(auction['turn'], me)} to act")
    keep = view.get("keep")
    if keep:
        lines.append(f"Leftovers to keep one of: {', '.join(map(str, keep['leftovers']))}")
    held = [t for t in view["my_tiles"] if t["status"] in ("hand", "submitted")]
    tiles = [
        f"{t['value']}{t['colour'][0].upper()}({t['from']})" + ("*" if t["status"] == "submitted" else "")
        for t in held
    ]
    lines.extend(wrap_words("Your tiles: ", tiles or ["none"]))
    joust = view.get("joust")
    jousts = view["jousts"]
    if joust is not None:
        current = [p for p in view["plays"] if p["joust"] == joust["number"] and p["phase"] == (
            "final" if sets == "final" else sets)]
        mine = " ".join(f"{p['value']}{p['colour'][0].upper()}" for p in current if p["seat"] == me)
        theirs = " ".join(
            _joust_tile(p["value"], p["colour"]) + ("(?)" if p["group"] is None else f"({p['set']}.{p['group']})")
            for p in current if p["seat"] == them
        )
        step = "required tile" if joust["required"] else f"optional step {joust['step']}"
        lines.extend(wrap_words(f"Joust {joust['number']}, {step}: ", [f"you {mine or '-'} | P{them + 1} {theirs or '-'}"]))
    if jousts:
        lines.append(_fit("Last jousts: ", [
            f"{j['joust']}: totals {j['totals'][me]}-{j['totals'][them]}, "
            f"scored {j['gains'][me]}-{j['gains'][them]}" for j in reversed(jousts)]))
    if final:
        items = view["items"]
        mine_items = ", ".join(i + (" (used)" if i in items["my_used"] else "") for i in items["mine"]) or "none"
        their_items = ", ".join(i + (" (used)" if i in items["their_used"] else "") for i in items["theirs"]) or "none"
        concealed = "; tiles are concealed" if view.get("concealed") else ""
        lines.extend(wrap_words("Items: ", [f"yours {mine_items}; P{them + 1}'s {their_items}{concealed}"]))
    lines.append("Tiles: 7W white 7, ?B black, number unknown; P2@5 bought by P2 for 5 chips;")
    lines.append("       (2.4) bought in set 2, group 4; * submitted; a-b: you-opponent")
    return title, lines


#: Domino's board: its columns and rows by letter, nine of each (the rules' ``COLS``,
#: ``ROWS`` and ``W`` in ``blackwhite/games/domino.py``; a test keeps them equal)
DOMINO_COLS = "ABCDEFGHI"
DOMINO_ROWS = "RSTUVWXYZ"
_DOMINO_W = len(DOMINO_COLS)
_DOMINO_NAMES: tuple[str, ...] = tuple(c + r for r in DOMINO_ROWS for c in DOMINO_COLS)


def domino_board(view: DominoBoard) -> str:
    """Domino's board as text, from a seat's view, the public view or the host's view
    (``DominoState.host_view``, which the referee draws).

    ``5`` a shown number, ``(5)`` a hidden number of the viewer's own, ``[5]`` another
    seat's hidden number the viewer was shown (at the end), ``?b``/``?w`` a hidden
    black/white half it does not know; ``=`` and ``|`` join the halves of a domino.
    """
    board = view["board"]
    me = view.get("seat")  # the host's view has no seat
    W, NAMES = _DOMINO_W, _DOMINO_NAMES

    def token(name: str) -> str:
        cell = board.get(name)
        if cell is None:
            return " . "
        n = cell["number"]
        if n is None:
            return " ?" + cell["colour"][0]
        if not cell["hidden"]:
            return f" {n} "
        return f"[{n}]" if me is not None and cell.get("seat") != me else f"({n})"

    lines = ["    " + "   ".join(DOMINO_COLS)]
    # the rows holding a cell of the board (all nine but on a small variant's rectangle)
    shown = [r for r in range(W) if any(NAMES[r * W + c] in board for c in range(W))]
    for r in shown:
        row = [f" {DOMINO_ROWS[r]} "]
        link = ["   "]
        for c in range(W):
            g = r * W + c
            name = NAMES[g]
            on = name in board  # the view's board lists every cell of its shape
            right = c + 1 < W and on and _domino_joined(board, name, NAMES[g + 1])
            row.append((token(name) if on else "   ") + ("=" if right else " "))
            down = r + 1 < W and on and _domino_joined(board, name, NAMES[g + W])
            link.append(" | " if down else "   ")
            link.append(" ")
        lines.append("".join(row).rstrip())
        if r + 1 < W and r != shown[-1]:
            lines.append("".join(link).rstrip())
    pts = view.get("points")
    if pts is not None:
        lines.append(f"Points: P1 {pts[0]} - P2 {pts[1]}")
    return "\n".join(lines)


def _domino_joined(board: dict[str, Cell | None], a: str, b: str) -> bool:
    cell = board.get(a)
    return cell is not None and cell["mate"] == b
