"""A tiny builder for fixed-layout observation tensors (used by the encodings).

An observation is a flat list of floats whose layout is fixed by the game's options.
Building it through :class:`Tensor` keeps every block's size explicit, and
:meth:`Tensor.done` checks the total against the declared shape, so a view that
would shift the layout is caught at once rather than silently misread by a learner.

Observations are mostly zeros (one-hot blocks), and converting a list of a thousand
floats to an array costs far more than building it.  So an observation is a
:class:`Floats`: the dense list the encoding contract promises, which also carries
the entries written, so the adapters fill a NumPy array by index instead.
"""

from __future__ import annotations

from typing import Iterable


class Floats(list[float]):
    """A dense observation (a plain list of floats for every reader) with the entries
    that were written: ``written`` maps an index to its value; every other entry is 0.0."""

    def __init__(self, size: int, written: dict[int, float]) -> None:
        data = [0.0] * size
        for i, v in written.items():
            data[i] = v
        super().__init__(data)
        self.written = written


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

    def value(self, x: float) -> None:
        x = float(x)
        if x:
            self.written[self.at] = x
        self.at += 1

    def done(self) -> Floats:
        if self.at != self.size:
            raise ValueError(f"observation has {self.at} floats, layout says {self.size}")
        return Floats(self.size, self.written)
