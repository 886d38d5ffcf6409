"""What the bots infer about hidden facts: samplers, posteriors and probability tables.

A game's module keeps only its rules and its ``resample`` contract; the maths that
serves the bots (which deals fit what a seat saw, how likely each is) lives here,
one module per game.
"""
