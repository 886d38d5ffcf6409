"""A game of blackwhite as a PettingZoo AEC environment.

``BlackWhiteEnv("grouping", chips=10)`` (or :func:`blackwhite.envs.pettingzoo_env`):

- agents ``player_0 .. player_{n-1}`` are seats P1..Pn;
- the action space of every agent is ``Discrete(num_distinct_actions)`` of the game's
  :class:`~blackwhite.engine.encoding.Encoding`; the code of an action is the
  encoding's, and the legal ones are in ``action_mask``;
- an observation is ``{"observation": float32 tensor, "action_mask": int8 mask}``:
  the tensor is the encoding of ``State.view(seat)`` and nothing else, and the mask
  marks the actions :meth:`Encoding.offered` gives the seat (all zero when another
  agent is selected);
- a simultaneous step is presented one seat at a time in seat order; the engine
  keeps each choice pending and its views hide it, so a later seat never learns an
  earlier one;
- chance steps are drawn inside the environment with a ``random.Random`` seeded by
  ``reset(seed=...)``, so a seed and the same actions give the same match;
- rewards are the encoding's utilities, all given when the match ends; there is no
  truncation (every match ends within the encoding's ``max_game_length``);
- ``render()`` draws the public view (what a spectator sees) as text: returned for
  ``render_mode="ansi"``, printed for ``"human"``.
"""

from __future__ import annotations


import random
from bisect import bisect_left
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine.core import State
from ..engine.encoding import encoding, view_text
from ..engine.registry import make_game
from .seats import next_seat, render_view


class BlackWhiteEnv(AECEnv):
    """One game of blackwhite with its options fixed (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "name": "blackwhite_v0", "is_parallelizable": False}

    def __init__(self, game_id: str, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of 'human', 'ansi' or None")
        self.game = make_game(game_id, options)
        self.encoding = encoding(self.game)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"blackwhite_{game_id.replace('-', '_')}_v0"}
        n = self.encoding.num_distinct_actions
        shape = self.encoding.observation_shape
        self._size = int(np.prod(shape))
        self.possible_agents = [f"player_{s}" for s in range(self.game.num_seats)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        self._action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        #: a game without a tensor encoding is observed as its view's JSON text, as
        #: ASCII codes padded with zeros to a fixed length (``ViewEncoding.view_chars``)
        self._view_chars = int(getattr(self.encoding, "view_chars", 0))
        observed: spaces.Space = (
            spaces.Box(-np.inf, np.inf, shape, np.float32) if self.encoding.tensor
            else spaces.Box(0, 127, (self._view_chars,), np.uint8)
        )
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": observed,
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._rng = random.Random()
        #: (seat, the codes offered to it, in increasing order) worked out once a step
        #: and read by ``observe`` for the mask and by ``step`` to check the action;
        #: dropped whenever the state changes
        self._offer: tuple[int, list[int]] | None = None
        #: the mask of the last offer: the encoding hands back the very same list when
        #: a step offers what an earlier one did (a phase offers the same placements or
        #: groupings to each seat in turn), and then the mask is the same too
        self._mask: tuple[list[int], np.ndarray] | None = None
        #: seat -> the encoding of its view as an array, worked out when ``observe``
        #: first asks in the current state (``last()`` and ``observe`` of the same
        #: agent, or an agent observed twice, then cost one view); dropped whenever the
        #: state changes.  ``observe`` hands out copies.
        self._seen: dict[int, np.ndarray] = {}
        #: whether the match is over (all agents terminated), kept by ``_advance``
        self._over = False
        self._state: State = self.game.new_initial_state()
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # ------------------------------------------------------------ the match

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match; ``seed`` fixes every chance draw of it."""
        self._rng = random.Random(seed)
        self.state_ = self.game.new_initial_state()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._advance()

    def step(self, action: int) -> None:
        """Play the selected agent's action code (an offered one: anything else is
        refused with a ``ValueError`` naming it, and the match is unchanged)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        codes = self._offered(seat)
        code = int(action) if isinstance(action, (int, np.integer)) else action
        try:
            k = bisect_left(codes, code)
        except TypeError:  # not a number at all
            k = len(codes)
        if k == len(codes) or codes[k] != code:
            raise ValueError(
                f"action {action!r} is not offered to {agent} (P{seat + 1}) now; "
                f"offered codes: {codes[:20]}{' ...' if len(codes) > 20 else ''}"
            )
        chosen = self.encoding._decode(codes[k])  # an offered code: the action it stands for
        self._cumulative_rewards[agent] = 0.0
        self._changed()
        self._state.apply_fast(seat, chosen)
        self._advance()
        # rewards are all zero until the end (``reset`` set them), so there is
        # nothing to clear or add up before then
        if self._over:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _advance(self) -> None:
        """Draw chance events, then select the next seat or finish the match."""
        state = self.state_
        while state.is_chance():
            state.apply_chance(state.sample_chance(self._rng), drawn=True)
        self._changed()
        if state.is_over():
            self._over = True
            for agent, value in zip(self.agents, self.encoding.utilities(state)):
                self.rewards[agent] = float(value)
                self.terminations[agent] = True
            self.agent_selection = self.agents[0]
            return
        seat = next_seat(state)
        assert seat is not None, "a live match that is not at a chance step awaits a seat"
        self.agent_selection = self.possible_agents[seat]

    @property
    def state_(self) -> State:
        """The engine state of the match (read it through ``view``)."""
        return self._state

    @state_.setter
    def state_(self, state: State) -> None:
        self._state = state
        self._over = state.is_over()
        self._changed()

    def _changed(self) -> None:
        """Forget what was worked out for the state as it was."""
        self._offer = None
        self._seen.clear()

    def _offered(self, seat: int) -> list[int]:
        """The codes ``seat`` is offered now, in increasing order, worked out once per
        step (the encoding's list: read it, never change it)."""
        if self._offer is None or self._offer[0] != seat:
            self._offer = (seat, self.encoding.offered_codes(self._state, seat))
        return self._offer[1]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation: the encoding of its view (or, for a game without a
        tensor encoding, the view's JSON text as ASCII codes), and its action mask (fresh arrays at
        every call: a caller may keep or change them)."""
        seat = self._seat[agent]
        observation = self._seen.get(seat)
        if observation is None:
            view = self._state.view(seat)
            observation = self._seen[seat] = self._tensor(view) if self.encoding.tensor else self._text(view)
        if agent == self.agent_selection and not self._over:
            codes = self._offered(seat)
            last = self._mask
            if last is not None and last[0] is codes:
                mask = last[1].copy()
            else:
                mask = np.zeros(self.encoding.num_distinct_actions, dtype=np.int8)
                mask[np.fromiter(codes, np.intp, len(codes))] = 1
                self._mask = (codes, mask.copy())
        else:
            mask = np.zeros(self.encoding.num_distinct_actions, dtype=np.int8)
        return {"observation": observation.copy(), "action_mask": mask}

    def _text(self, view: Any) -> np.ndarray:
        """The view's JSON text as ASCII codes, padded with zeros to the fixed length."""
        data = view_text(view).encode("ascii")
        if len(data) > self._view_chars:
            raise ValueError(f"{self.game.id}: a view of {len(data)} characters is longer than the "
                             f"{self._view_chars} its observation space holds")
        out = np.zeros(self._view_chars, dtype=np.uint8)
        out[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        return out

    def _tensor(self, view: Any) -> np.ndarray:
        """The encoding of ``view`` as a float32 array of the observation's shape,
        filled from its non-zero entries."""
        out = np.zeros(self._size, dtype=np.float32)
        entries = self.encoding.observation_entries(view)
        n = len(entries)
        if n:
            out[np.fromiter(entries, np.intp, n)] = np.fromiter(entries.values(), np.float32, n)
        return out.reshape(self.encoding.observation_shape)

    def render(self) -> str | None:
        """The public view as text (``ansi``: returned; ``human``: printed)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; pass render_mode='ansi'")
            return None
        text = render_view(self.state_.view(None), f"{self.game.title} (public view)")
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release (no window, no process)."""
