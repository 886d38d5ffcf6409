"""Bots: players built on the engine's per-seat view (never on hidden state)."""
