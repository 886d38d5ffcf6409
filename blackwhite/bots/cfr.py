"""``cfr:PATH``: play a policy solved offline (``benchmarks/solve.py``) from a file.

The file (docs/research.md, "Solving") maps the information-state string of a
position, :func:`blackwhite.engine.infostate.infostate_string` of the deciding seat, to a
probability for the notation of each action.  That string is the seat's decision
trail (the key of its view at each of its earlier decisions and the action it took)
then the key of its current view; the bot builds it from what it was shown and what
it chose in this match, as the OpenSpiel adapter does, so a bot plays one match (the
arena and the terminal make a new bot for each).

Refusals, each a ``ValueError`` naming the file and the rule:

- a missing, unreadable or malformed file (not ``blackwhite-policy/1``, a
  probability that is not a number in [0, 1], an entry without a positive total);
- a match of another game or other options than the policy was solved for
  (:meth:`CFRBot.check_game` where the game is known at setup, else the first
  decision);
- a position the policy does not hold (``fallback=error``, the default).  With
  ``fallback=uniform`` (``cfr:PATH:fallback=uniform``) such a position is played
  uniformly at random over the legal actions instead, and counted in ``misses``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ..engine.core import Action
from ..engine.registry import make_game
from ..engine.infostate import infostate_key, infostate_string, trail_entry
from .base import Decision

FORMAT = "blackwhite-policy/1"
FALLBACKS = ("error", "uniform")


class PolicyError(ValueError):
    """The policy file cannot be used (missing, malformed, or for another game)."""


def load_policy(path: str | Path) -> dict[str, Any]:
    """Read and check a policy file; :class:`PolicyError` says what is wrong."""
    file = Path(path)
    if file.exists() and not file.is_file():
        # a directory, a device (/dev/zero never ends) or a FIFO (would wait for a writer)
        raise PolicyError(f"policy file {str(file)!r} is not a regular file")
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PolicyError(f"policy file {str(file)!r} does not exist (make one with benchmarks/solve.py)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PolicyError(f"policy file {str(file)!r} cannot be read as JSON: {type(exc).__name__}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise PolicyError(f"policy file {str(file)!r} is not a {FORMAT} file (its \"format\" must be {FORMAT!r})")
    game, options, policy = doc.get("game"), doc.get("options"), doc.get("policy")
    if not isinstance(game, str) or not isinstance(options, dict) or not isinstance(policy, dict):
        raise PolicyError(f"policy file {str(file)!r} needs \"game\" (text), \"options\" and \"policy\" (objects)")
    try:
        doc["options"] = make_game(game, options).options
    except (KeyError, ValueError) as exc:
        raise PolicyError(f"policy file {str(file)!r} names no playable game: {exc}") from None
    for key, probs in policy.items():
        ok = isinstance(probs, dict) and probs and all(
            isinstance(p, (int, float)) and not isinstance(p, bool) and 0 <= p <= 1 for p in probs.values()
        )
        if not ok or sum(probs.values()) <= 0:
            raise PolicyError(
                f"policy file {str(file)!r}: the entry for {key[:60]!r}... must map notation to "
                "probabilities in [0, 1] with a positive total"
            )
    return doc


class CFRBot:
    """Plays a saved policy (see the module docstring)."""

    name = "cfr"

    def __init__(self, path: str = "", fallback: str = "error") -> None:
        if not str(path).strip():
            raise PolicyError("the cfr bot needs a policy file: cfr:PATH (make one with benchmarks/solve.py)")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {', '.join(FALLBACKS)}, got {fallback!r}")
        self.path = str(path)
        self.fallback = fallback
        doc = load_policy(path)
        self.game: str = doc["game"]
        self.options: dict[str, Any] = doc["options"]
        self.policy: dict[str, dict[str, float]] = doc["policy"]
        self.misses = 0
        self._format = make_game(self.game, self.options).new_initial_state().format_action
        #: per seat, its decision trail in this match (see the module docstring)
        self._trails: dict[int, list[str]] = {}

    def check_game(self, game_id: str, options: Any) -> None:
        """Refuse, before a match starts, a game or options the policy was not solved for."""
        try:
            full = make_game(game_id, dict(options or {})).options
        except (KeyError, ValueError):
            full = options
        if game_id != self.game or full != self.options:
            raise PolicyError(
                f"policy {self.path!r} was solved for {self.game} with options {json.dumps(self.options)}; "
                f"this match is {game_id} with options {json.dumps(full, default=repr)}"
            )

    def choose(self, decision: Decision) -> Action:
        view = decision.view
        self.check_game(str(view.get("game")), view.get("options"))
        action = self._pick(decision, self.infostate(decision))
        self._trails.setdefault(decision.seat, []).append(trail_entry(infostate_key(view), action))
        return action

    def infostate(self, decision: Decision) -> str:
        """The information-state string of this decision, from the seat's trail in
        this match and its current view (the OpenSpiel adapter's string)."""
        return infostate_string(self._trails.get(decision.seat, []), infostate_key(decision.view))

    def _pick(self, decision: Decision, info: str) -> Action:
        probs = self.policy.get(info)
        if probs is None:
            if self.fallback == "uniform":
                self.misses += 1
                return decision.rng.choice(decision.legal)
            raise PolicyError(
                f"policy {self.path!r} holds no entry for P{decision.seat + 1}'s position here "
                "(a position the solved game never reaches); use cfr:PATH:fallback=uniform to play on"
            )
        by_text = {self._format(a): a for a in decision.legal}
        unknown = [t for t in probs if t not in by_text]
        if unknown:
            raise PolicyError(f"policy {self.path!r} plays {unknown[0]!r}, which is not legal here")
        texts = list(probs)
        return by_text[decision.rng.choices(texts, [probs[t] for t in texts])[0]]
