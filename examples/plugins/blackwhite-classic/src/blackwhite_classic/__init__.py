"""Black and White as The Genius first played it, as a blackwhite game package.

blackwhite finds the game through the entry point in this package's pyproject.toml
(group ``blackwhite.games``), which names :data:`ENTRY`: the game's id, its rules and
its rules page.  Every other part is optional (docs/designing-a-game.md in the
blackwhite repository says what each buys).
"""

from blackwhite.engine import GameEntry

ENTRY = GameEntry(
    id="classic",
    rules="blackwhite_classic.rules:Classic",
    rules_page="blackwhite_classic:rules.md",
    # optional parts, each measured in docs/designing-a-game.md
    sampler="blackwhite_classic.sampler",
    heuristic="blackwhite_classic.heuristic",
    # the ismcts bot models the other seat from its play (heuristic.play_evidence); where
    # that play looks random (its evidence at most ``convinced``), the champion is the
    # solver's exact answer (heuristic.respond) and the search's noise may not replace it
    tuning={"adapt": True, "horizon": None, "trust": 1.0, "convinced": 0.01},
)

__all__ = ["ENTRY"]
