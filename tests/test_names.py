"""Display names (blackwhite.names): emoji of several code points are names people use;
what hides or moves text is not; a cut never splits what a person sees as one character."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, strategies as st

from blackwhite import names
from blackwhite.discord_bridge.core import seat_name

WOMAN_CODER = "\U0001F469\u200D\U0001F4BB"  # woman, zero-width joiner, laptop
SCOTLAND = "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"  # black flag + tags
FRANCE = "\U0001F1EB\U0001F1F7"
THUMBS = "\U0001F44D\U0001F3FD"  # thumbs up, medium skin tone


@pytest.mark.parametrize("name", [f"Ana {WOMAN_CODER}", f"Mo {SCOTLAND}", f"Jean {FRANCE}", f"Li {THUMBS}",
                                  "Zoë", "e\u0301mile", "İsmail", "李小龍", "x" * 64])
def test_names_people_write_are_names(name: str) -> None:
    assert names.problem(name) is None


@pytest.mark.parametrize(("name", "said"), [
    ("", "empty"), ("   ", "empty"), ("x" * 65, "at most 64"), ("evil\u202Eexe.txt", "right-to-left override"),
    ("tab\tname", "control"), ("line\nbreak", "control"), ("a\u2028b", "line separator"),
    ("priv\uE000", "U+E000"), ("lone\udc80", "U+DC80"), (7, "text"),
])
def test_what_hides_or_breaks_text_is_refused_in_words(name: object, said: str) -> None:
    why = names.problem(name)
    assert why is not None and said in why
    assert "\\u" not in why  # said in words, never as an escape


def test_a_cut_keeps_joined_emoji_flags_and_accents_whole() -> None:
    for sequence in (WOMAN_CODER, SCOTLAND, FRANCE, THUMBS, "e\u0301"):
        for pad in range(0, len(sequence) + 1):  # the limit falls before, inside or just after it
            out = names.cut("a" * (64 - pad) + sequence + "bbbb")
            assert len(out) <= 64
            assert out[64 - pad:] == (sequence if pad == len(sequence) else ""), (sequence, pad, out[64 - pad:])


def test_a_run_of_flags_is_cut_between_pairs() -> None:
    flags = FRANCE * 40  # 80 code points
    out = names.cut("x" + flags)
    assert len(out) <= 64 and (len(out) - 1) % 2 == 0


@given(st.text(max_size=200))
def test_the_bridge_makes_a_name_the_server_takes_from_any_discord_name(raw: str) -> None:
    made = seat_name(raw, 1)
    assert names.problem(made) is None, (raw, made)
    assert made == unicodedata.normalize("NFC", made)


def test_the_bridge_keeps_joined_emoji() -> None:
    assert seat_name(f"Ana {WOMAN_CODER}", 0) == f"Ana {WOMAN_CODER}"
    assert seat_name("a" * 63 + WOMAN_CODER, 0) == "a" * 63
