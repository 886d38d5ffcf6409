"""Text laid out in Discord messages: none over :data:`MESSAGE_LIMIT` characters
(Discord refuses a longer one with 400, code 50035), every line kept whole where it
fits one message, and a board too long for one message split on its line boundaries
into several code blocks rather than cut."""

from __future__ import annotations

from collections.abc import Sequence

#: a Discord message holds at most this many characters
MESSAGE_LIMIT = 2000
#: what a code block adds to its text: "```\n" and "\n```"
FENCE_COST = 8


def pieces(line: str, size: int) -> list[str]:
    """``line`` in parts of at most ``size`` characters (one part if it fits)."""
    return [line[i:i + size] for i in range(0, len(line), size)] or [""]


def split_lines(lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    """Lines joined into as few messages as fit ``limit`` each, in order; a line longer
    than a message is split into parts, never cut."""
    return [text for text, _ in _split(lines, limit)]


def _split(lines: Sequence[str], limit: int) -> list[tuple[str, list[str]]]:
    """:func:`split_lines`, each message with the lines that start in it."""
    out: list[tuple[str, list[str]]] = []
    current: str | None = None
    started: list[str] = []
    for whole in lines:
        for i, line in enumerate(pieces(whole, limit)):
            if current is not None and len(current) + 1 + len(line) <= limit:
                current = f"{current}\n{line}"
            else:
                if current is not None:
                    out.append((current, started))
                current, started = line, []
            if i == 0:
                started.append(whole)
    if current is not None:
        out.append((current, started))
    return out


def fence(text: str) -> str:
    """``text`` as a code block (a ``` inside it would end the block early: changed)."""
    return "```\n" + text.replace("```", "'''") + "\n```"


def blocks(board: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """The board as code blocks of at most ``limit`` characters each, split between lines."""
    inner = board.replace("```", "'''").split("\n")
    return [fence(part) for part in split_lines(inner, limit - FENCE_COST)]


def compose(notes: Sequence[str], board: str | None, tail: str = "", limit: int = MESSAGE_LIMIT) -> list[str]:
    """The messages of one post: ``notes`` (lines), then ``board`` in a code block, then
    ``tail`` (the clock and the prompt, which the post's buttons follow): one message
    when it fits; else the notes, the board's blocks and the tail in as few messages
    as fit, the tail always in the last one."""
    return [text for text, _ in compose_noted(notes, board, tail, limit)]


def compose_noted(notes: Sequence[str], board: str | None, tail: str = "",
                  limit: int = MESSAGE_LIMIT) -> list[tuple[str, list[str]]]:
    """:func:`compose`, each message with the notes it carries (a message superseded
    before it was sent hands them on to the next view)."""
    parts = [*notes, *([fence(board)] if board is not None else []), *([tail] if tail else [])]
    one = "\n".join(parts)
    if len(one) <= limit:
        return [(one, list(notes))] if one else []
    out = _split(list(notes), limit)
    board_blocks = blocks(board, limit) if board is not None else []
    out.extend((block, []) for block in board_blocks)
    if tail:
        if out and board_blocks and len(out[-1][0]) + 1 + len(tail) <= limit:
            out[-1] = (f"{out[-1][0]}\n{tail}", out[-1][1])
        else:
            out.extend((text, []) for text in split_lines(tail.split("\n"), limit))
    return out
