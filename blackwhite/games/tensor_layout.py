"""Tiny builders for fixed-layout observation tensors (used by the encodings).

An observation is a flat list of floats whose layout is fixed by the game's options.
Two ways to fill one, whichever reads better for the game's view:

- :class:`Tensor` appends the blocks in order, and :meth:`Tensor.entries` checks the
  total against the declared shape, so a view that would shift the layout is caught
  at once rather than silently misread by a learner;
- :class:`Blocks` names the blocks of a layout with their offsets, and a
  :class:`BlockWriter` puts values into a named block in any order, each index
  checked against its block's size.

Observations are mostly zeros (one-hot blocks), and converting a list of a thousand
floats to an array costs far more than building it.  So both give the entries written
(``entries()``, what an encoding's ``observation_entries`` returns), from which the
adapters fill a NumPy array by index; ``done()`` gives the dense list too
(:class:`~blackwhite.engine.encoding.Floats`).

The encodings' fast paths write their entries straight at known offsets of such a
dict; the small writers below (:func:`one_hot`, :func:`side`, :func:`side_values`,
:func:`colour`) are the blocks every game has, written once, each checking what it
reads from the view.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from ..engine.encoding import Floats

def one_hot(out: dict[int, float], at: int, index: int, n: int, what: str = "index") -> None:
    """1.0 at ``index`` of the one-hot block of ``n`` floats at offset ``at``.

    ``ValueError`` (naming ``what`` the index is: a tile, a seat, ...) outside the
    block: a view that does not fit the layout must not write into the next block."""
    if not 0 <= index < n:
        raise ValueError(f"{what} {index!r} outside a one-hot block of {n} (0..{n - 1})")
    out[at + index] = 1.0


def side(out: dict[int, float], at: int, who: int | None, a: int) -> None:
    """The two-float block "A, B" at ``at``: 1.0 in A's float when seat ``who`` is
    ``a`` (the seat the observation is for), in B's when it is the other seat; none
    for ``None`` (no one yet)."""
    if who == a:
        out[at] = 1.0
    elif who == 1 - a:
        out[at + 1] = 1.0


def side_values(out: dict[int, float], at: int, values: Sequence[float], a: int, per: float = 1) -> None:
    """The two-float block "A, B" at ``at`` of a per-seat count: ``values[a] / per``,
    then the other seat's (a zero is left unwritten, as every zero is)."""
    x, y = values[a], values[1 - a]
    if x:
        out[at] = x / per
    if y:
        out[at + 1] = y / per


def colour(out: dict[int, float], at: int, name: str | None) -> None:
    """The two-float block "black, white" at ``at``; none for ``None`` (a colour not
    shown), ``ValueError`` for any other name."""
    if name == "black":
        out[at] = 1.0
    elif name == "white":
        out[at + 1] = 1.0
    elif name is not None:
        raise ValueError(f"colour {name!r} is not black or white")


class Tensor:
    """Appends blocks of floats; ``done`` checks the declared size."""

    def __init__(self, size: int) -> None:
        self.size = size
        #: how many floats the blocks so far hold
        self.at = 0
        self.written: dict[int, float] = {}

    def flag(self, value: bool) -> None:
        """One float: 1.0 when ``value`` holds."""
        if value:
            self.written[self.at] = 1.0
        self.at += 1

    def flags(self, values: Iterable[bool]) -> None:
        """One float per value (as :meth:`flag`, without a call for each)."""
        written, at = self.written, self.at
        for v in values:
            if v:
                written[at] = 1.0
            at += 1
        self.at = at

    def one_hot(self, index: int | None, n: int) -> None:
        """``n`` floats, 1.0 at ``index`` (all zero for ``None``)."""
        if index is not None:
            if not 0 <= index < n:
                raise ValueError(f"index {index} outside a one-hot block of {n}")
            self.written[self.at + index] = 1.0
        self.at += n

    def skip(self, n: int) -> None:
        """``n`` floats of zero (a block, or the empty rest of one, left unwritten)."""
        self.at += n

    def value(self, x: float) -> None:
        x = float(x)
        if x:
            self.written[self.at] = x
        self.at += 1

    def entries(self) -> dict[int, float]:
        """The non-zero entries written, once the blocks fill the declared size."""
        if self.at != self.size:
            raise ValueError(f"observation has {self.at} floats, layout says {self.size}")
        return self.written

    def done(self) -> Floats:
        return Floats(self.size, self.entries())


class Block(NamedTuple):
    """One named stretch of the flat tensor."""

    start: int
    size: int


class Blocks(dict[str, Block]):
    """The blocks of a layout by name, each with its offset (built from the layout's
    ``(name, size)`` parts, in order)."""

    def __init__(self, parts: Sequence[tuple[str, int]]) -> None:
        super().__init__()
        at = 0
        for name, n in parts:
            self[name] = Block(at, n)
            at += n
        #: the total: the length of the flat tensor
        self.size = at

    def writer(self) -> BlockWriter:
        """An empty tensor of this layout to fill."""
        return BlockWriter(self)


class BlockWriter:
    """Puts values into the named blocks of a :class:`Blocks` layout."""

    def __init__(self, blocks: Blocks) -> None:
        self.blocks = blocks
        self.written: dict[int, float] = {}

    def put(self, name: str, index: int, value: float = 1.0) -> None:
        """``value`` at ``index`` of block ``name``; ``ValueError`` outside the block."""
        start, n = self.blocks[name]
        if not 0 <= index < n:
            raise ValueError(f"observation block {name}: index {index} outside 0..{n - 1}")
        self.written[start + index] = float(value)

    def entries(self) -> dict[int, float]:
        """The non-zero entries written."""
        return self.written

    def done(self) -> Floats:
        return Floats(self.blocks.size, self.written)
