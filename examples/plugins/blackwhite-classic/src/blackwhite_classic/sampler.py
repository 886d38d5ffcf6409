"""How a search redraws what a seat of ``classic`` was not told (optional: without it,
blackwhite's generic sampler replays the seat's history, about a hundred times slower).

A seat knows its own tiles, the colour of every tile the other seat played and who won
each round.  What it was not told is which of the other seat's tiles of that colour
each was: a world is drawn uniformly among the assignments of the other seat's tiles
to its plays that agree with every colour and every round's outcome (the exact
belief about a seat that plays at random), and the tiles left over are its hand.
"""

from __future__ import annotations

import random

from .rules import TILES, ClassicState

#: tries of plain rejection (shuffle the tiles of each colour, keep what agrees)
#: before the depth-first search that always finds an assignment
REJECTION_TRIES = 200


def resample(state: ClassicState, seat: int, rng: random.Random) -> ClassicState:
    """A copy of ``state`` in which the other seat's tiles of this game are redrawn."""
    other = 1 - seat
    world = state.clone(track=False)
    assert isinstance(world, ClassicState)
    # the other seat's plays of this game: (colour bit, the seat's own tile it met or
    # None, and the outcome for the other seat: 1 won, 0 tie, -1 lost)
    slots: list[tuple[int, int | None, int]] = []
    for leader, led, answer, winner in state.done:
        theirs, mine = (led, answer) if leader == other else (answer, led)
        outcome = 0 if winner is None else (1 if winner == other else -1)
        slots.append((theirs % 2, mine, outcome))
    led_by_them = state.led is not None and state.leader == other
    if led_by_them:
        assert state.led is not None
        slots.append((state.led % 2, None, 0))
    tiles = _assign(slots, rng)
    played = set(tiles)
    world.hands[other] = [t for t in range(TILES) if t not in played]
    done = []
    for (leader, led, answer, winner), theirs in zip(state.done, tiles):
        if leader == other:
            done.append((leader, theirs, answer, winner))
        else:
            done.append((leader, led, theirs, winner))
    world.done = done
    if led_by_them:
        world.led = tiles[-1]
    return world


def _fits(tile: int, mine: int | None, outcome: int) -> bool:
    if mine is None:
        return True
    return (tile > mine) - (tile < mine) == outcome


def _assign(slots: list[tuple[int, int | None, int]], rng: random.Random) -> list[int]:
    """One tile per slot, none twice, each of the slot's colour and outcome."""
    by_colour = [[t for t in range(TILES) if t % 2 == c] for c in (0, 1)]
    for _ in range(REJECTION_TRIES):
        pools = [rng.sample(by_colour[0], len(by_colour[0])), rng.sample(by_colour[1], len(by_colour[1]))]
        out = [pools[c].pop() for c, _, _ in slots]
        if all(_fits(t, mine, outcome) for t, (_, mine, outcome) in zip(out, slots)):
            return out
    # many constraints: a search in a random order (always succeeds on a real match)
    chosen: list[int] = []
    used: set[int] = set()

    def search(i: int) -> bool:
        if i == len(slots):
            return True
        colour, mine, outcome = slots[i]
        options = [t for t in by_colour[colour] if t not in used and _fits(t, mine, outcome)]
        rng.shuffle(options)
        for tile in options:
            chosen.append(tile)
            used.add(tile)
            if search(i + 1):
                return True
            chosen.pop()
            used.discard(tile)
        return False

    if not search(0):
        raise ValueError("no assignment of tiles agrees with the match so far")
    return chosen
