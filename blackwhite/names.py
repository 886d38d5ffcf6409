"""What a person's display name may hold, shared by the server (which refuses a bad
name) and the Discord bridge (which turns a Discord display name into one).

A name is text people read beside a board: letters, digits, punctuation, spaces and
emoji, including the ones built of several code points (``👩‍💻`` is woman, zero-width
joiner, laptop; a Scottish flag is a black flag and tag characters).  What it may not
hold is what hides, moves or breaks text: control characters, line breaks, bidirectional
overrides, unassigned or private-use code points, lone surrogates.  The length limit
counts code points, and :func:`cut` shortens a name without splitting a character a
person sees (an emoji sequence, a letter with its accents, a flag's pair).
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 64

#: format characters (category Cf) that are part of what people write: joiners, and the
#: tag characters of subdivision flags; every other Cf (bidi overrides, invisible
#: separators) is refused
_KEPT_FORMAT = frozenset({0x200C, 0x200D}) | frozenset(range(0xE0020, 0xE0080))
#: categories refused outright: controls, unassigned, private use, surrogates, line and
#: paragraph separators
_REFUSED = frozenset({"Cc", "Cn", "Co", "Cs", "Zl", "Zp"})
_JOINER = 0x200D


def bad_character(name: str) -> str | None:
    """The first character ``name`` may not hold, described for a person, or None."""
    for ch in name:
        cat = unicodedata.category(ch)
        if cat in _REFUSED or (cat == "Cf" and ord(ch) not in _KEPT_FORMAT):
            label = unicodedata.name(ch, "").lower() or f"code point U+{ord(ch):04X}"
            return label
    return None


def problem(name: object) -> str | None:
    """Why ``name`` is not a display name (a sentence for a person), or None if it is."""
    if not isinstance(name, str):
        return "a name is text"
    text = unicodedata.normalize("NFC", name).strip()
    if not text:
        return "a name cannot be empty"
    if len(text) > MAX_NAME:
        return f"a name is at most {MAX_NAME} characters (this one has {len(text)})"
    bad = bad_character(text)
    if bad is not None:
        return f"a name cannot hold an invisible or control character ({bad})"
    return None


def clean(name: str) -> str:
    """``name`` as the server stores it: NFC-normalised, spaces at either end trimmed."""
    return unicodedata.normalize("NFC", name).strip()


def _extends(ch: str) -> bool:
    """Whether ``ch`` belongs to the character before it (an accent, a variation
    selector, a skin tone, a tag, a joiner)."""
    code = ord(ch)
    return (unicodedata.category(ch) in ("Mn", "Me", "Mc") or code == _JOINER or 0x1F3FB <= code <= 0x1F3FF
            or 0xE0020 <= code <= 0xE007F or 0xFE00 <= code <= 0xFE0F)


def _regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def cut(name: str, limit: int = MAX_NAME) -> str:
    """``name`` shortened to at most ``limit`` code points without splitting what a
    person sees as one character (an emoji sequence, a flag, a letter and its accents)."""
    if len(name) <= limit:
        return name
    end = limit
    while end > 0 and (_extends(name[end]) or name[end - 1] == "\u200d"):
        end -= 1  # the cut falls inside a sequence: back to where it starts
    if end > 0 and _regional(name[end - 1]) and _regional(name[end]):
        run = 0
        while end - run > 0 and _regional(name[end - 1 - run]):
            run += 1
        if run % 2:  # an odd run of flag letters before the cut: its last one pairs with the next
            end -= 1
    return name[:end].rstrip()
