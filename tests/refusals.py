"""A refused action changes nothing: the check the rule tests of every game share."""

from __future__ import annotations

import json

import pytest

from blackwhite.engine import IllegalActionError, State, to_record


def refuse(state: State, seat: int, text: str, error: type[Exception] = IllegalActionError,
           match: str | None = None) -> None:
    """The action is refused with ``error`` and the state does not change: its record
    and every seat's view are as before."""
    def snapshot() -> str:
        return json.dumps([to_record(state), *(state.view(s) for s in range(state.num_seats))], sort_keys=True)

    before = snapshot()
    with pytest.raises(error, match=match):
        state.apply_text(seat, text)
    assert snapshot() == before
