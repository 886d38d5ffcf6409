"""What both adapters share: whom to ask next, the completion of a resampled world,
and a compact text drawing of a view (the information-state key and string are the
engine's, :mod:`blackwhite.engine.infostate`, since the ``cfr`` bot needs them too).

Both libraries want a game where one seat acts at a time.  A simultaneous step of
the engine is presented one seat at a time in seat order: the lowest awaited seat
that has not submitted is asked.  The engine holds each submission in ``pending``
and its views hide pending choices, so a later seat is never told an earlier one;
asking in sequence is therefore the same game as asking at once.
"""

from __future__ import annotations

import json
import random
from typing import Any, Mapping, Sequence

from ..engine.core import State
from ..engine.encoding import Encoding


def next_seat(state: State) -> int | None:
    """The seat the adapters ask now: the lowest seat the step still awaits, or
    ``None`` at a chance step or at the end."""
    waiting = state.to_move()
    return min(waiting) if waiting else None


def complete_step(world: State, seat: int, enc: Encoding, rng: random.Random) -> None:
    """Fill, in a world resampled for ``seat``, the choices of the seats asked before
    it in the current simultaneous step (the engine's ``resample`` removes other seats'
    pending choices; here they are asked first).  Each is drawn uniformly among its
    offered non-free actions, which ``seat`` cannot see: its view is unchanged."""
    for other in sorted(world.to_move()):
        if other >= seat:
            break
        options = [a for a in enc.offered(world, other) if not world.is_free(a)]
        if not options:
            raise ValueError(f"P{other + 1} has no choice to fill in a world sampled for P{seat + 1}")
        world.apply_fast(other, rng.choice(options))


def render_view(view: Mapping[str, Any], title: str) -> str:
    """A compact text drawing of a view: who is to move, the scores, every structured
    field on one line, and the last announcements (a view holds nothing else)."""
    lines = [title]
    if view.get("finished"):
        winner = view.get("winner")
        lines.append("finished: " + ("no winner" if winner is None else f"P{winner + 1} wins"))
    else:
        waiting = view.get("to_move") or []
        lines.append("to move: " + (", ".join(f"P{s + 1}" for s in waiting) or "chance"))
    if view.get("scores") is not None:
        lines.append("scores: " + " ".join(str(s) for s in view["scores"]))
    if view.get("my_pending"):
        lines.append(f"my choice this step: {view['my_pending']}")
    skip = {"game", "seat", "finished", "winner", "scores", "to_move", "submitted", "my_pending", "log"}
    for key in sorted(k for k in view if k not in skip):
        lines.append(f"{key}: {json.dumps(view[key], separators=(',', ':'), default=repr)}")
    log = list(view.get("log") or [])
    if log:
        lines.append("last announcements:")
        lines.extend("  " + text for text in log[-5:])
    return "\n".join(lines)


def fill(out: Any, observation: Sequence[float]) -> None:
    """Write ``observation`` (an encoding's) into the NumPy array ``out``: by its
    written entries when it carries them (:class:`~blackwhite.games.tensor_layout.Floats`),
    which is far cheaper than converting every float, else float by float."""
    written = getattr(observation, "written", None)
    if written is None:
        out[:] = observation
        return
    out.fill(0.0)
    if written:
        import numpy as np  # here: the bots import this module, and NumPy is the adapters' alone

        n = len(written)
        out[np.fromiter(written, np.intp, n)] = np.fromiter(written.values(), out.dtype, n)
