"""Heuristic play of ``swapping``, reading only the seat's view.

What a thoughtful player does:

* **Placing**: the swap phase can rearrange most of the row, so the placement is
  mainly information for the opponent (the running totals): place at random.
* **Swapping**: a position where the opponent's tile is already revealed is a fixed
  target; put the cheapest tile that beats it there, or the cheapest tile of all
  when nothing beats it.  Positions still unknown count by the chance that the tile
  there beats a tile drawn from the opponent's unrevealed ones (of the colour shown,
  with ``show_colours``).  The swap that most improves that sum is played.
* **Revealing**: lock what is already won (a tile beating a revealed tile), then
  lock cheap sacrifices (the lowest tile under a tile nothing beats); otherwise
  reveal a tile whose outcome the opponent can least exploit, keeping both colours
  unrevealed while swaps are still useful.
"""

from __future__ import annotations

import random

from ...engine.core import Action
from ...views.swapping import SwappingPolicyView


def choose(view: SwappingPolicyView, legal: list[Action], rng: random.Random) -> Action:
    phase = view["phase"]
    if phase == "play" or len(legal) == 1:
        return legal[rng.randrange(len(legal))]
    if phase == "swap":
        return _swap(view, legal, rng)
    return _reveal(view, legal, rng)


def _theirs(view: SwappingPolicyView) -> tuple[list[int | None], list[list[int]]]:
    """Per position: the opponent's revealed tile (or None) and the tiles it may be."""
    tiles = len(view["their_row"])  # one position per tile (the small variant has fewer)
    hidden = [t for t in range(tiles) if t not in view["their_revealed"]]
    revealed: list[int | None] = []
    maybe: list[list[int]] = []
    for cell in view["their_row"]:
        if cell is not None and cell["revealed"]:
            revealed.append(cell["tile"])
            maybe.append([cell["tile"]])
            continue
        revealed.append(None)
        colour = None if cell is None else cell["colour"]
        if colour is None:
            maybe.append(hidden)
        else:
            parity = 0 if colour == "black" else 1
            maybe.append([t for t in hidden if t % 2 == parity])
    return revealed, maybe


def _position_value(mine: int, maybe: list[int]) -> float:
    """Chance of winning the position minus chance of losing it."""
    if not maybe:
        return 0.0
    win = sum(1 for t in maybe if mine > t)
    lose = sum(1 for t in maybe if mine < t)
    return (win - lose) / len(maybe)


def _row_value(row: list[int], maybe: list[list[int]], revealed: list[int | None]) -> float:
    total = 0.0
    for p, mine in enumerate(row):
        target = revealed[p]
        if target is None:
            total += _position_value(mine, maybe[p])
        elif mine > target:
            total += 1.0 - 0.02 * (mine - target)  # win cheaply: keep big tiles for elsewhere
        elif mine == target:
            total += 0.0
        else:
            total -= 1.0 - 0.02 * (target - mine)  # lose with the smallest tile possible
    return total


def _cell_value(mine: int, maybe: list[int], target: int | None) -> float:
    """What ``mine`` at one position adds to :func:`_row_value`."""
    if target is None:
        return _position_value(mine, maybe)
    if mine > target:
        return 1.0 - 0.02 * (mine - target)
    if mine == target:
        return 0.0
    return -(1.0 - 0.02 * (target - mine))


def _swap(view: SwappingPolicyView, legal: list[Action], rng: random.Random) -> Action:
    """The swap that most improves :func:`_row_value`, ties drawn by ``rng``.  A swap
    changes two positions, so each is valued by the change there (from a table of every
    tile's value at every position) instead of the whole row: the values differ from the
    row's sum by rounding only (1e-15), far inside the 1e-9 that counts as a tie, while
    two different values differ by much more, so the choice is the same."""
    row = [c["tile"] for c in view["my_row"] if c is not None]  # the swap phase: every tile is placed
    where = {t: p for p, t in enumerate(row)}
    revealed, maybe = _theirs(view)
    tiles = len(row)
    table = [[_cell_value(x, maybe[p], revealed[p]) for x in range(tiles)] for p in range(tiles)]
    base = _row_value(row, maybe, revealed)
    best: list[Action] = []
    best_value = -1e9
    for action in legal:
        _, a, b = action
        pa, pb = where[a], where[b]
        value = base + (table[pa][b] - table[pa][a]) + (table[pb][a] - table[pb][b])
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif abs(value - best_value) <= 1e-9:
            best.append(action)
    return best[rng.randrange(len(best))]


def reveal_scores(
    tiles: list[int], hidden: list[int], targets: list[int | None], their_open: int
) -> list[tuple[int, float]]:
    """The score of revealing each of ``tiles`` (``hidden``: the seat's unrevealed
    tiles; ``targets``: the other seat's revealed tile facing each, or ``None``;
    ``their_open``: the other seat's unrevealed positions).  The search's model of the
    other seat (``bots/swapping_search.py``) scores its reveals with this too."""
    lowest = min(hidden)
    blacks = sum(1 for t in hidden if t % 2 == 0)
    whites = len(hidden) - blacks
    out = []
    for t, target in zip(tiles, targets):
        if target is not None:
            if t > target:
                score = 3.0 - 0.01 * (t - target)
            elif t == target:
                score = 1.0
            elif t == lowest or not any(u > target for u in hidden):
                score = 2.0 - 0.05 * t
            else:
                score = 0.5 - 0.05 * t  # a better tile may still be swapped in
        else:
            # the opponent can answer a tile shown now; extremes leave it least to gain
            score = 0.2 + 0.05 * abs(t - 4)
        one_colour_left = (t % 2 == 0 and blacks == 1) or (t % 2 == 1 and whites == 1)
        if one_colour_left and their_open > 1:
            score -= 0.3  # keep swapping possible while targets remain unknown
        out.append((t, score))
    return out


def _reveal(view: SwappingPolicyView, legal: list[Action], rng: random.Random) -> Action:
    my_row = view["my_row"]
    where = {c["tile"]: p for p, c in enumerate(my_row) if c is not None}
    unrevealed = [c["tile"] for c in my_row if c is not None and not c["revealed"]]
    revealed, _ = _theirs(view)
    their_open = sum(1 for v in revealed if v is None)
    tiles = [action[1] for action in legal]
    scores = reveal_scores(tiles, unrevealed, [revealed[where[t]] for t in tiles], their_open)
    best: list[Action] = []
    best_score = -1e9
    for action, (_, score) in zip(legal, scores):
        if score > best_score + 1e-9:
            best, best_score = [action], score
        elif abs(score - best_score) <= 1e-9:
            best.append(action)
    return best[rng.randrange(len(best))]
