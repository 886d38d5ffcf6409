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
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from ..engine.encoding import Floats


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
