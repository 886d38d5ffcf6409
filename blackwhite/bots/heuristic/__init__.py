"""Per-game heuristic policies: ``choose(view, legal, rng) -> action`` in a module per game."""
