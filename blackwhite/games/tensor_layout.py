"""A tiny builder for fixed-layout observation tensors (used by the encodings).

An observation is a flat list of floats whose layout is fixed by the game's options.
Building it through :class:`Tensor` keeps every block's size explicit, and
:meth:`Tensor.done` checks the total against the declared shape, so a view that
would shift the layout is caught at once rather than silently misread by a learner.
"""

from __future__ import annotations

from typing import Iterable


class Tensor:
    """Appends blocks of floats; ``done`` checks the declared size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: list[float] = []

    def flag(self, value: bool) -> None:
        """One float: 1.0 when ``value`` holds."""
        self.data.append(1.0 if value else 0.0)

    def flags(self, values: Iterable[bool]) -> None:
        for v in values:
            self.flag(v)

    def one_hot(self, index: int | None, n: int) -> None:
        """``n`` floats, 1.0 at ``index`` (all zero for ``None``)."""
        block = [0.0] * n
        if index is not None:
            if not 0 <= index < n:
                raise ValueError(f"index {index} outside a one-hot block of {n}")
            block[index] = 1.0
        self.data.extend(block)

    def value(self, x: float) -> None:
        self.data.append(float(x))

    def done(self) -> list[float]:
        if len(self.data) != self.size:
            raise ValueError(f"observation has {len(self.data)} floats, layout says {self.size}")
        return self.data
