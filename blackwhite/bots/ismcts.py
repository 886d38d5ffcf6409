"""``ismcts``: Information-Set Monte Carlo Tree Search over any game of the engine.

Every iteration draws a world consistent with what the searching seat knows
(``Decision.sample_world``, i.e. ``State.resample``) and plays it forward:

* **One tree per seat, keyed on that seat's information** (multiple-observer
  ISMCTS).  At the root a seat's key is a hash of the game's ``info_key`` for
  that seat in the sampled world; below it the key grows with what the seat is
  told (the announcements it sees) and what it does.  Each awaited seat picks its action from *its own* node,
  so a modelled opponent acts on what it would know in that world and never on
  the searcher's secrets.
* **Simultaneous steps are sound.**  All seats of a step choose first, each from its
  own statistics (decoupled UCT), and only then are the actions applied, so no
  choice can depend on another seat's pending one.  The sampled world itself holds
  no other seat's pending choice (``resample`` drops them).
* **Chance** is drawn with ``State.sample_chance``.
* **Large action spaces** (504 placements, bids 0..90, 1262 groupings) use
  progressive widening: a node admits ``1 + widen * visits ** widen_exp`` actions,
  in a random order with the game's heuristic choice first at the root.
* **The heuristic is the champion**: its choice is the default answer and gets every
  other root sample; the search replaces it only when a challenger is better by
  ``trust`` standard errors (at a few hundred noisy samples, the noisy maximum lost
  to the plain heuristic).
* **Opponent models** (per game, :func:`tuning_for`): the other seats may be played by the
  game's heuristic from their own view of each sampled world (``model``), or, where
  their past play can be read from the view (yellow), by the heuristic or at random
  in proportion to how well each explains that play (``adapt``).  Where the model is
  sharp, the search is trusted sooner (``trust``).
* **Inference** (``infer``): where the game's heuristic module can say how likely
  another seat's visible play is in a sampled world (``explain``), fresh worlds are
  drawn by rejection with that likelihood, so a raise makes a good tile likelier.
* **Paired worlds** (``paired``): the champion and the next challenger play the same
  world, and ``best`` tests their paired differences.
* **Rollouts** are random (or the game's heuristic where it is cheap, ``rollout``)
  and cut at a per-game horizon, at a quiet position (``State.quiet``), where the
  position is scored from ``State.scores()`` of the sampled world (the searcher's
  belief, never the real state).  Below ``depth`` of its own tree decisions the
  searcher's moves are rollout moves.  Determinizations are reused after the first
  ``worlds`` samples.
* **A game's own worlds** (``worlds_by``, swapping): where the game's tuning names a
  drawer, it draws the worlds (the other seat's hidden row as if that seat had played
  the heuristic), else ``sample_world`` does.

Everything runs on the fast path: ``clone(track=False)`` worlds, ``legal_actions``,
``apply_fast`` and ``apply_chance_fast`` (worlds keep announcements only while a
seat is still in its tree, since the announcements are the observations).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, cast

from ..engine.core import Action, State
from ..engine.registry import declared, load
from .base import Decision
from .heuristic import evidence_for, explain_for, in_worlds_for, policy_for, respond_for
from .opponents import heuristic_seats, shares

#: action lists longer than this are widened progressively; shorter ones are all tried
WIDEN_FROM = 12
#: a game's world drawer (``GameTuning.worlds_by``): ``count`` worlds for a decision, or
#: ``None`` when it has nothing to add there
WorldsBy = Callable[[Decision, int, random.Random], "list[State] | None"]
#: a game's heuristic read from a world's state (``GameTuning.state_policy``)
StatePolicy = Callable[[State, int, list[Action], random.Random], Action]
#: a game's ``explain`` read from a world's state (``GameTuning.state_explain``)
StateExplain = Callable[[State, int, float], float]
#: draws per determinization when worlds are weighed by the others' play (``infer``)
TRIES = 12


@dataclass(frozen=True)
class GameTuning:
    """How a game's rollouts end and how a cut position is scored.

    ``horizon``: steps (not counting chance) simulated from the root before the
    position is scored; ``None`` plays to the end.  ``scale``: the score lead worth
    about 76% (tanh 1) in a scored position.  ``rollout``: share of the searcher's
    rollout moves played by the game's heuristic.  ``model``: share of the other
    seats' moves (in the tree and in rollouts) played by the heuristic from their
    own view of the sampled world, instead of by their own trees or at random.
    ``adapt``: instead of one fixed share, every other seat is modelled from its own
    past play (the heuristic module's ``play_evidence``): in each simulation it plays
    the heuristic with the posterior chance that it plays like it, else uniformly at
    random.  ``trust``: standard errors a challenger must beat the heuristic's choice
    by (see ``ISMCTSBot.best``); lower where the model of the others is sharp.
    ``champion_worlds``: where the heuristic module offers ``choose_in_worlds``, the
    champion is its choice weighed over this many sampled worlds (which then start
    the search's pool) instead of the plain policy's; 0 keeps the plain policy.
    ``worlds_by``: a function (``"module:name"``, a :data:`WorldsBy`) that draws the
    search's worlds instead of ``sample_world`` where it has something to add (swapping:
    the other seat's row as if it had played the heuristic).  ``state_policy``: the
    game's heuristic read from a world's state (a :data:`StatePolicy`), making exactly
    the choices the heuristic makes from the view, used inside the search where the
    view costs more than the choice.  ``state_explain``: likewise the heuristic module's
    ``explain`` read from a world's state (``(world, seat, share) -> likelihood``), the
    same answers, for ``infer``.
    """

    horizon: int | None = 60
    scale: float = 3.0
    rollout: float = 0.0
    model: float = 0.0
    adapt: bool = False
    trust: float = 2.5
    depth: int | None = None
    infer: bool = False
    paired: bool = False
    convinced: float | None = None
    champion_worlds: int = 0
    worlds_by: str | None = None
    state_policy: str | None = None
    state_explain: str | None = None


_TUNINGS: dict[str, GameTuning] = {}


def tuning_for(game_id: str) -> GameTuning:
    """The game's tuning: its registry entry's ``tuning`` (keyword arguments of
    :class:`GameTuning`, chosen per game from arena runs, docs/bots.md); the defaults
    for a game that names none.  A misspelt key is a ``TypeError`` naming the game."""
    found = _TUNINGS.get(game_id)
    if found is None:
        declared_as = declared(game_id)
        given = {} if declared_as is None else dict(declared_as.tuning)
        try:
            found = GameTuning(**given)
        except TypeError as exc:
            raise TypeError(f"game {game_id!r}: its GameEntry's tuning is not GameTuning's: {exc}") from None
        _TUNINGS[game_id] = found
    return found


class _Node:
    """One information set of one seat: its admitted actions with visit counts and
    value sums in parallel lists (indexed, not keyed: the hot loop is an index scan).

    A node keeps the legal list it was made with: its key includes the seat's
    information and the number of legal actions, and the legal actions follow from
    the information.  Small action lists are admitted at once, in a random rotation;
    long ones are widened progressively (``legal`` and ``picked`` are then set).
    """

    __slots__ = ("visits", "actions", "n", "w", "fresh", "legal", "picked")

    def __init__(self, legal: list[Action], rand: Any, first: Action | None = None) -> None:
        self.visits = 0
        self.fresh = 0  # actions before this index have been tried (they come in order)
        count = len(legal)
        self.legal: list[Action] | None = None
        self.picked: set[int] | None = None
        if count > WIDEN_FROM:
            self.legal = legal
            self.picked = set()
            self.actions: list[Action] = []
            if first is not None:
                self.picked.add(legal.index(first))
                self.actions.append(first)
        else:
            k = int(rand() * count)
            actions = legal[k:] + legal[:k]
            if first is not None:
                actions.remove(first)
                actions.insert(0, first)
            self.actions = actions
        self.n: list[int] = [0] * len(self.actions)
        self.w: list[float] = [0.0] * len(self.actions)


def _shaped(scores: tuple[int, ...], scale: float) -> list[float]:
    """Each seat's lead over its best rival, squashed into 0..1."""
    if len(scores) == 2:
        lead = math.tanh((scores[0] - scores[1]) / scale)
        return [0.5 + 0.5 * lead, 0.5 - 0.5 * lead]
    out = []
    for i, s in enumerate(scores):
        rival = max(x for j, x in enumerate(scores) if j != i)
        out.append(0.5 + 0.5 * math.tanh((s - rival) / scale))
    return out


class ISMCTSBot:
    """Multiple-observer ISMCTS with decoupled simultaneous moves (see module docstring).

    ``budget``: seconds per decision when the decision itself gives none.
    ``iterations``: a cap on iterations; given alone (no ``budget``) the search is
    time-free and so deterministic for fixed seeds, which is what tests use.
    """

    name = "ismcts"

    def __init__(
        self,
        budget: float | None = None,
        iterations: int | None = None,
        c: float = 0.7,
        widen: float = 2.0,
        widen_exp: float = 0.5,
        prior: bool = True,
        trust: float | None = None,
        horizon: int | None = None,
        margin_weight: float = 0.1,
        rollout: float | None = None,
        model: float | None = None,
        scale: float | None = None,
        worlds: int = 32,
        adapt: bool | None = None,
        paired: bool | None = None,
        depth: int | None = None,
        infer: bool | None = None,
        champion_worlds: int | None = None,
        posterior: bool | None = None,
    ) -> None:
        self.budget = None if budget is None else float(budget)
        self.iterations = None if iterations is None else int(iterations)
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.c = float(c)
        self.widen = float(widen)
        self.widen_exp = float(widen_exp)
        self.prior = _as_bool(prior)
        self.trust = None if trust is None else float(trust)
        self.horizon = None if horizon is None else int(horizon)
        self.margin_weight = float(margin_weight)
        self.rollout = None if rollout is None else float(rollout)
        self.model = None if model is None else float(model)
        self.worlds = int(worlds)
        self.scale = None if scale is None else float(scale)
        self.adapt = None if adapt is None else _as_bool(adapt)
        self.paired = None if paired is None else _as_bool(paired)
        self.depth = None if depth is None else int(depth)
        self.infer = None if infer is None else _as_bool(infer)
        self.champion_worlds = None if champion_worlds is None else int(champion_worlds)
        self.posterior = None if posterior is None else _as_bool(posterior)
        #: the opponent model's replay cache (``play_evidence``): a cache only, a
        #: decision depends on its view alone
        self.memo: dict[Any, Any] = {}
        #: totals over the bot's life: searched decisions, iterations, seconds searching
        self.stats: dict[str, float] = {"decisions": 0, "iterations": 0, "seconds": 0.0}

    # ------------------------------------------------------------------ interface

    def time_limit(self, decision: Decision) -> float | None:
        """Seconds for this decision: the decision's budget, else the bot's, else 1 s
        (none at all when only an iteration cap was set)."""
        if decision.budget > 0:
            return decision.budget
        if self.budget is not None:
            return self.budget
        return None if self.iterations is not None else 1.0

    def choose(self, decision: Decision) -> Action:
        legal = decision.legal
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        limit = self.time_limit(decision)
        deadline = None if limit is None else start + limit
        cap = self.iterations
        search = _Search(self, decision)
        step = search.step
        done = 0
        if deadline is None:  # time-free: a fixed count (see ``time_limit``), the bare loop
            assert cap is not None
            for _ in range(cap):
                step()
            done = cap
        else:
            while cap is None or done < cap:
                if done > 0 and time.perf_counter() >= deadline:
                    break
                step()
                done += 1
        self.stats["decisions"] += 1
        self.stats["iterations"] += done
        self.stats["seconds"] += time.perf_counter() - start
        return search.best()


class _Search:
    """The trees and settings of one decision."""

    def __init__(self, bot: ISMCTSBot, decision: Decision) -> None:
        self.bot = bot
        self.decision = decision
        self.me = decision.seat
        self.rng = decision.rng
        gid = decision.view["game"]
        self.gid = gid
        #: the match's options, for the views the policies read inside the search
        self.options: dict[str, Any] = decision.view["options"]
        tuning = tuning_for(gid)
        horizon = bot.horizon if bot.horizon is not None else tuning.horizon
        self.horizon = horizon if horizon is None or horizon > 0 else None
        self.scale = bot.scale if bot.scale is not None else tuning.scale
        self.rollout_p = bot.rollout if bot.rollout is not None else tuning.rollout
        self.model_p = bot.model if bot.model is not None else tuning.model
        self.trust = bot.trust if bot.trust is not None else tuning.trust
        depth = bot.depth if bot.depth is not None else tuning.depth
        self.depth = depth if depth is not None and depth > 0 else None
        adapt = bot.adapt if bot.adapt is not None else tuning.adapt
        # ``adapt`` models the others by the heuristic or at random: it needs the policy
        # even where no share of moves is the heuristic's otherwise (``model``, ``rollout`` 0)
        self.policy = policy_for(gid) if self.rollout_p > 0 or self.model_p > 0 or adapt else None
        if self.policy is None:
            # no heuristic (a game that brings only its rules): whatever the settings
            # ask, the others are searched in their own trees and rollouts play at random
            self.model_p = self.rollout_p = 0.0
        #: per seat, the chance a simulation plays it by the heuristic (else at random)
        self.share: list[float] | None = None
        self.heuristic_seats: list[bool] = []
        evidence = evidence_for(gid) if adapt else None
        if evidence is not None and self.policy is not None:
            llr = evidence(decision.view, bot.memo)
            self.share = shares(llr)
            if tuning.convinced is not None and bot.trust is None:
                others = [x for seat, x in enumerate(llr) if seat != self.me]
                if others and min(others) < tuning.convinced:
                    self.trust = math.inf  # not sure the model fits: keep the heuristic's choice
            self.model_p = 1.0
        pairs = bot.paired if bot.paired is not None else tuning.paired
        infer = bot.infer if bot.infer is not None else tuning.infer
        self.explain = explain_for(gid) if infer else None
        #: ``explain`` read from the state (the same answers, without the view)
        self.state_explain: StateExplain | None = (
            load(tuning.state_explain) if self.explain is not None and tuning.state_explain is not None else None
        )
        posterior = bot.posterior if bot.posterior is not None else tuning.worlds_by is not None
        #: the game's own world drawer (``worlds_by``) and the worlds it drew, not yet used
        self.worlds_by: WorldsBy | None = (
            load(tuning.worlds_by) if posterior and tuning.worlds_by is not None else None
        )
        self.drawn: list[State] = []
        #: the heuristic read from the state (the same choices as from the view, cheaper)
        self.state_policy: StatePolicy | None = (
            load(tuning.state_policy) if tuning.state_policy is not None and self.policy is not None else None
        )
        self.tables: dict[int, dict[Hashable, _Node]] = {}
        self.pool: list[tuple[State, list[int]]] = []
        #: ``_iterate_root``'s values one step from a kept world, by the world's id and the
        #: root action's index (the world stays alive in the pool): the searcher's value
        #: where the rollout scores the position at once, else ``_LIVE``
        self.after: dict[tuple[int, int], float] = {}
        self.turn = 0
        #: the champion's last world (kept pristine for the challenger's turn) and value
        self.pair_world: tuple[State, list[int]] | None = None
        self.champion_value = 0.0
        #: per root index: challenger samples paired with the champion, and the sum and
        #: sum of squares of their value minus the champion's on the same world
        self.pair_n: dict[int, int] = {}
        self.pair_sum: dict[int, float] = {}
        self.pair_sq: dict[int, float] = {}
        self.root_legal = decision.legal
        self.champion_worlds = bot.champion_worlds if bot.champion_worlds is not None else tuning.champion_worlds
        self.default: Action | None = self._prior(gid) if bot.prior else None
        # the default answer, when there is one, is the root's action 0
        self.root = _Node(self.root_legal, self.rng.random, self.default)
        #: champion and challenger alternate on shared worlds (needs a champion)
        self.pairing = pairs and self.default is not None
        self.widen = bot.widen
        self.widen_exp = bot.widen_exp
        self.c = bot.c
        #: one iteration: where only the searcher has a tree and it ends at the root
        #: (``depth`` 1, every other seat played by the model), the lean ``_iterate_root``
        self.step: Callable[[], None] = (
            self._iterate_root if self.depth == 1 and self.model_p >= 1 else self.iterate
        )

    def _prior(self, gid: str) -> Action | None:
        """The game's heuristic choice: the default answer, tried first.  Where the
        other seats are modelled from their play (``share``) and the heuristic module
        can answer that model (``respond``), that answer is the default instead."""
        policy = policy_for(gid)
        if policy is None:
            return None
        legal = self.root_legal
        # the policy gets its own rng so the search's random stream does not depend on it
        rng = random.Random(self.rng.random())
        respond = respond_for(gid)
        in_worlds = in_worlds_for(gid) if self.champion_worlds > 0 else None
        if respond is not None and self.share is not None:
            choice = respond(self.decision.view, legal, rng, self.share)
        elif in_worlds is not None:
            choice = in_worlds(self.decision.view, legal, self._first_worlds(self.champion_worlds), rng)
        else:
            choice = policy(self.decision.view, legal, rng)
        return choice if choice in legal else None

    def _first_worlds(self, count: int) -> list[State]:
        """``count`` fresh determinizations for the champion; they start the pool,
        so the search plays on the worlds its champion was weighed on."""
        out = []
        limit = self.bot.worlds
        for _ in range(count):
            world = self._draw_world()
            out.append(world)
            if limit and len(self.pool) < limit:
                keys = [_ROOT if seat == self.me else _info_key(world, seat) for seat in range(world.num_seats)]
                self.pool.append((world, keys))
        return out

    # ------------------------------------------------------------------ one iteration

    def _world(self) -> tuple[State, list[int]]:
        """A determinization and every seat's root key in it.

        The first ``worlds`` samples are kept and then reused in turn (a clone each
        time): ``resample`` is the costliest step of an iteration in most games, and a
        few dozen determinizations per decision carry most of what sampling can tell.
        With a champion, each world serves two iterations in a row, the champion's and
        then a challenger's, so the two are compared on the same hidden cards (see
        ``best``).
        """
        if self.pairing and self.root.visits % 2 and self.pair_world is not None:
            pristine, keys = self.pair_world
            return pristine.clone(track=False), list(keys)
        pool = self.pool
        limit = self.bot.worlds
        if limit and len(pool) >= limit:
            world, keys = pool[self.turn % limit]
            self.turn += 1
        else:
            world = self._draw_world()
            # a seat played wholly by the opponent model never descends a tree: no key
            keyed = self.model_p < 1
            keys = [
                _ROOT if seat == self.me or not keyed else _info_key(world, seat)
                for seat in range(world.num_seats)
            ]
            if limit:
                pool.append((world, keys))
            elif not self.pairing:
                return world, keys
        self.pair_world = (world, keys)
        return world.clone(track=False), list(keys)

    def _draw_world(self) -> State:
        """A fresh determinization: from the game's drawer (``worlds_by``) while it has
        some to give, else from ``sample_world``; with ``infer``, drawn again (up to ``TRIES`` draws in
        all) unless accepted with the chance that the other seats' play so far is explained in it by the
        heuristic (``explain``): a rejection sampler of the worlds given that play."""
        worlds_by = self.worlds_by
        if worlds_by is not None:
            if not self.drawn:
                drawn = worlds_by(self.decision, max(self.bot.worlds, 1), self.rng)
                if drawn is None:
                    self.worlds_by = None  # nothing to add here: draw as usual
                else:
                    self.drawn = drawn[::-1]
            if self.drawn:
                return self.drawn.pop()
        explain = self.explain
        world = self.decision.sample_world(self.rng)
        if explain is None:
            return world
        state_explain = self.state_explain
        for _ in range(TRIES - 1):
            like = 1.0
            share = self.share
            for seat in range(world.num_seats):
                if seat != self.me:
                    given = 1.0 if share is None else share[seat]
                    if state_explain is not None:
                        like *= state_explain(world, seat, given)
                    else:
                        like *= explain(self._policy_view(world, seat), given)
            if like >= 1.0 or self.rng.random() < like:
                return world
            world = self.decision.sample_world(self.rng)
        return world

    def iterate(self) -> None:
        """One sample: descend every seat's tree, expand one node each, roll out, back up."""
        rng = self.rng
        rand = rng.random
        world, keys = self._world()
        if self.share is not None:  # who plays like the heuristic in this simulation
            self.heuristic_seats = heuristic_seats(self.share, rand)
        # announcements are the seats' observations: keep them while any seat is in its tree
        world.track = True
        log = world.log
        n = world.num_seats
        paths: list[list[tuple[_Node, int]]] = [[] for _ in range(n)]
        # seats played wholly by the opponent model have no tree to descend
        in_tree = [seat == self.me or self.model_p < 1 for seat in range(n)]
        tables = self.tables
        first = True
        steps = 0
        horizon = self.horizon
        depth = self.depth
        me = self.me
        values: list[float] | None = None
        while any(in_tree):
            movers = world.to_move()  # empty exactly at a chance step or the end
            if not movers:
                if world.is_chance():
                    world.apply_chance_fast(world.sample_chance(rng))
                    continue
                values = self._final_values(world)
                break
            if horizon is not None and steps >= horizon and _cut(world, steps, horizon):
                values = _shaped(world.scores(), self.scale)
                break
            if log:
                if not [note for note in log if note.to is not None]:  # all public
                    told = hash(tuple(log))
                    for seat in range(n):
                        if in_tree[seat]:
                            keys[seat] = hash((keys[seat], told))
                else:
                    for seat in range(n):
                        if in_tree[seat]:
                            seen = tuple([note for note in log if note.to is None or note.to == seat])
                            if seen:
                                keys[seat] = hash((keys[seat], hash(seen)))
                log.clear()
            chosen: list[tuple[int, Action]] = []
            for seat in movers:
                if first and seat == self.me:
                    node: _Node | None = self.root
                    legal = self.root_legal
                    if self.default is not None and not self.root.visits % 2:
                        # the champion gets every other sample, so the test in best() has power
                        paths[seat].append((self.root, 0))
                        chosen.append((seat, self.default))
                        continue
                else:
                    legal = world.legal_actions(seat)
                    node = None
                    if seat != self.me and self._modelled():
                        assert self.policy is not None
                        chosen.append((seat, self._policy_action(world, seat, legal)))
                        continue
                    if in_tree[seat] and len(legal) > 1:
                        table = tables.get(seat)
                        if table is None:
                            table = tables[seat] = {}
                        key = (keys[seat], len(legal))
                        node = table.get(key)
                        if node is None:
                            node = table[key] = _Node(legal, rand)
                            in_tree[seat] = False  # expanded: the rest is rollout
                if node is not None:
                    i = self._select(node)
                    paths[seat].append((node, i))
                    action = node.actions[i]
                else:
                    action = self._rollout_action(world, seat, legal)
                chosen.append((seat, action))
            for seat, action in chosen:
                if in_tree[seat]:
                    keys[seat] = hash((keys[seat], action))
            if depth is not None and in_tree[me] and len(paths[me]) >= depth:
                in_tree[me] = False  # the searcher's deeper moves are rollout moves
            if not any(in_tree):
                world.track = False  # the last step in a tree: nobody reads what it announces
            for seat, action in chosen:
                world.apply_fast(seat, action)
            first = False
            steps += 1
        if values is None:
            world.track = False
            values = self._rollout(world, steps)
        if self.pairing:
            self._pair(paths[self.me][0][1], values[self.me])
        for seat in range(n):
            value = values[seat]
            for node, i in paths[seat]:
                node.visits += 1
                node.n[i] += 1
                node.w[i] += value

    def _iterate_root(self) -> None:
        """``iterate`` where the searcher's tree is its root alone and no other seat has
        one (``depth`` 1, ``model`` 1: the grouping games, swapping): one step from the
        root, then the rollout.  The same draws in the same order and the same statistics
        as ``iterate`` there, without the bookkeeping of deeper trees (keys, paths, the log).

        A kept world (pooled; with ``worlds`` 0 nothing is kept) met again with
        the same action of the searcher alone gives the same position after it: applying
        an action draws nothing.  Where the rollout would score that position at once,
        drawing nothing either (a call or a fold that settles a grouping round), its
        value is remembered (``after``): the simulation is the same, its result is not
        computed again.  (Remembering the other positions too, to copy them instead of
        applying the action again, made the search slower: 79,400 simulations per CPU
        second against 87,000 remembering values alone, on the same matches.)"""
        root = self.root
        # the kept world ``_world`` would copy next, moving the pool's turn and the
        # champion's world as it does (``None``: it draws a new one, drawn here)
        source: State | None = None
        if self.pairing and root.visits % 2 and self.pair_world is not None:
            source = self.pair_world[0]
        else:
            pool = self.pool
            limit = self.bot.worlds
            if limit and len(pool) >= limit:
                entry = self.pair_world = pool[self.turn % limit]
                self.turn += 1
                source = entry[0]
            else:
                world = self._world()[0]
        share = self.share
        if share is not None:  # who plays like the heuristic in this simulation (``heuristic_seats``)
            rand = self.rng.random
            if len(share) == 2:
                self.heuristic_seats = [rand() < share[0], rand() < share[1]]
            else:
                self.heuristic_seats = [rand() < p for p in share]
        me = self.me
        i = 0
        if source is None:
            world.track = False  # nobody is in a tree after this step: nobody reads its announcements
            movers = world.to_move()  # the root is a step of the searcher's
        else:
            movers = source.to_move()  # a kept world is never changed, only copied
        if len(movers) == 1:  # the searcher's alone (a bet): as the loop below, without its list
            if self.default is not None and not root.visits % 2:
                action = self.default  # the champion's sample
            else:
                i = self._select(root)
                action = root.actions[i]
            if source is not None and self.bot.worlds:  # a pooled world: alive all decision
                key = (id(source), i)
                known = self.after.get(key)
                if known is None or known == _LIVE:
                    world = source.clone(track=False)
                    world.apply_fast(me, action)
                    if known is None:
                        known = self.after[key] = self._settled(world)
                value = known if known != _LIVE else self._rollout(world, 1)[me]
            else:
                # with ``worlds`` 0 the champion's world is let go after its challenger and a
                # later world may take its ``id``: nothing is remembered of it
                if source is not None:
                    world = source.clone(track=False)
                world.apply_fast(me, action)
                value = self._rollout(world, 1)[me]
        else:
            if source is not None:
                world = source.clone(track=False)
            chosen: list[tuple[int, Action]] = []
            for seat in movers:
                if seat != me:
                    chosen.append((seat, self._policy_action(world, seat, world.legal_actions(seat))))
                elif self.default is not None and not root.visits % 2:
                    chosen.append((seat, self.default))  # the champion's sample
                else:
                    i = self._select(root)
                    chosen.append((seat, root.actions[i]))
            for seat, action in chosen:
                world.apply_fast(seat, action)
            value = self._rollout(world, 1)[me]
        # the searcher's value for root action ``i`` (``_pair``, inlined)
        if self.pairing:
            if not root.visits % 2:
                self.champion_value = value
            elif i:
                diff = value - self.champion_value
                pair_n, pair_sum, pair_sq = self.pair_n, self.pair_sum, self.pair_sq
                pair_n[i] = pair_n.get(i, 0) + 1
                pair_sum[i] = pair_sum.get(i, 0.0) + diff
                pair_sq[i] = pair_sq.get(i, 0.0) + diff * diff
        root.visits += 1
        root.n[i] += 1
        root.w[i] += value

    def _settled(self, world: State) -> float:
        """The searcher's value of ``world``, one step from the root, where ``_rollout``
        would score it at once (nothing drawn, nothing moved: its first pass), else
        ``_LIVE``."""
        if world.to_move():
            horizon = self.horizon
            if horizon is not None and 1 >= horizon and (1 >= 4 * horizon or world.quiet()):
                return _shaped(world.scores(), self.scale)[self.me]
            return _LIVE
        if world.is_chance():
            return _LIVE
        return self._final_values(world)[self.me]

    def _pair(self, i: int, value: float) -> None:
        """Note the searcher's value at the root: the champion's (even iterations) is
        kept, a challenger's (odd ones, same world) is compared with it."""
        if not self.root.visits % 2:
            self.champion_value = value
            return
        if i == 0:  # the champion can be picked again by UCB on its own turn too
            return
        diff = value - self.champion_value
        self.pair_n[i] = self.pair_n.get(i, 0) + 1
        self.pair_sum[i] = self.pair_sum.get(i, 0.0) + diff
        self.pair_sq[i] = self.pair_sq.get(i, 0.0) + diff * diff

    def _policy_view(self, world: State, seat: int) -> dict[str, Any]:
        """``seat``'s view of the world for a policy playing inside the search.

        The game's own filtered view (``_view``, the one place secrets are filtered)
        plus the three core fields the heuristics read (``options``: a small variant's
        limits, such as grouping's raise cap, the decision's own, shared and not to be
        changed); the rest of ``State.view`` (result, log) is public bookkeeping that
        costs more than the policy.
        """
        # a game's part is a fresh dict each call, so adding the fields copies nothing
        view = cast("dict[str, Any]", world._view(seat))
        view["game"] = self.gid
        view["seat"] = seat
        view["options"] = self.options
        return view

    def _modelled(self) -> bool:
        """Whether another seat's move now comes from the opponent model."""
        p = self.model_p
        return p > 0 and (p >= 1 or self.rng.random() < p)

    def _policy_action(self, world: State, seat: int, legal: list[Action]) -> Action:
        """The heuristic's move for ``seat`` from that seat's own view of the world."""
        assert self.policy is not None
        if len(legal) == 1:
            return legal[0]
        if self.share is not None and not self.heuristic_seats[seat]:
            return legal[int(self.rng.random() * len(legal))]
        if self.state_policy is not None:
            return self.state_policy(world, seat, legal, self.rng)
        return self.policy(self._policy_view(world, seat), legal, self.rng)

    def _rollout_action(self, world: State, seat: int, legal: list[Action]) -> Action:
        if self.policy is not None and len(legal) > 1:
            p = self.model_p
            if seat != self.me and p > 0:
                if p >= 1 or self.rng.random() < p:  # ``_modelled``, inlined
                    return self._policy_action(world, seat, legal)
            elif self.rng.random() < self.rollout_p:
                if self.state_policy is not None:
                    return self.state_policy(world, seat, legal, self.rng)
                return self.policy(self._policy_view(world, seat), legal, self.rng)
        return legal[int(self.rng.random() * len(legal))]

    def _rollout(self, world: State, steps: int) -> list[float]:
        """Play on (untracked) to the end or the horizon: the hot loop, kept bare."""
        rng = self.rng
        rand = rng.random
        horizon = self.horizon if self.horizon is not None else 1 << 30
        policy = self.policy
        state_policy = self.state_policy
        me = self.me
        model_p = self.model_p
        rollout_p = self.rollout_p
        while True:
            movers = world.to_move()
            if not movers:
                if world.is_chance():
                    world.apply_chance_fast(world.sample_chance(rng))
                    continue
                return self._final_values(world)
            if steps >= horizon and (steps >= 4 * horizon or world.quiet()):  # ``_cut``, inlined
                return _shaped(world.scores(), self.scale)
            if len(movers) == 1:
                seat = movers[0]
                legal = world.legal_actions(seat)
                count = len(legal)
                # ``_rollout_action`` and ``_policy_action``, inlined: the same draws
                if policy is None or count == 1:
                    action = legal[int(rand() * count)]
                elif seat != me and model_p > 0:
                    if model_p < 1 and rand() >= model_p:
                        action = legal[int(rand() * count)]
                    elif self.share is not None and not self.heuristic_seats[seat]:
                        action = legal[int(rand() * count)]
                    elif state_policy is not None:
                        action = state_policy(world, seat, legal, rng)
                    else:
                        action = policy(self._policy_view(world, seat), legal, rng)
                elif rand() < rollout_p:
                    if state_policy is not None:
                        action = state_policy(world, seat, legal, rng)
                    else:
                        action = policy(self._policy_view(world, seat), legal, rng)
                else:
                    action = legal[int(rand() * count)]
                world.apply_fast(seat, action)
            else:
                chosen = [(s, self._rollout_action(world, s, world.legal_actions(s))) for s in movers]
                for seat, action in chosen:
                    world.apply_fast(seat, action)
            steps += 1

    def _final_values(self, world: State) -> list[float]:
        result = world.result()
        n = world.num_seats
        w = self.bot.margin_weight
        shaped = _shaped(result.scores, self.scale)
        if result.winner is None:
            base = [1.0 / n] * n
        else:
            base = [1.0 if seat == result.winner else 0.0 for seat in range(n)]
        return [(1 - w) * base[s] + w * shaped[s] for s in range(n)]

    # ------------------------------------------------------------------ selection

    def _select(self, node: _Node) -> int:
        """UCB1 over the actions the node admits now; an untried admitted action first."""
        actions = node.actions
        legal = node.legal
        if legal is not None:
            allowed = min(len(legal), 1 + int(self.widen * (node.visits + 1) ** self.widen_exp))
            while len(actions) < allowed:
                self._admit(node, legal)
        i = node.fresh
        if i < len(actions):
            node.fresh = i + 1
            return i
        k = self.c * math.sqrt(math.log(node.visits + 1))
        best = 0
        best_value = -1.0
        i = 0
        inv = _INV_SQRT
        for ni, wi in zip(node.n, node.w):
            if ni:
                value = wi / ni + k * (inv[ni] if ni < _INV_SIZE else 1.0 / math.sqrt(ni))
            else:  # tried earlier in this same iteration, not yet backed up
                return i
            if value > best_value:
                best_value = value
                best = i
            i += 1
        return best

    def _admit(self, node: _Node, legal: list[Action]) -> None:
        """Add one random not-yet-admitted action to the node."""
        picked = node.picked
        assert picked is not None
        count = len(legal)
        rand = self.rng.random
        while True:
            i = int(rand() * count)
            if i not in picked:
                picked.add(i)
                node.actions.append(legal[i])
                node.n.append(0)
                node.w.append(0.0)
                return

    # ------------------------------------------------------------------ answer

    def best(self) -> Action:
        """The most visited root action (ties: the higher mean value).

        With a heuristic default (the champion, sampled every other iteration), the
        most visited challenger replaces it only when it beats the champion by
        ``trust`` standard errors: at a few hundred noisy samples a near-tie is noise,
        and the heuristic's choice is the better bet.  With ``paired`` (per game, see
        ``GameTuning``) the test is on the challenger's value minus the champion's on the same world,
        which takes out the luck of the world drawn (whose tiles are whose); without
        it, on the difference of the two means.
        """
        root = self.root
        tried = [i for i, ni in enumerate(root.n) if ni > 0]
        if self.default is None:
            if not tried:
                return self.root_legal[0]
            i = max(tried, key=lambda j: (root.n[j], root.w[j] / root.n[j]))
            return root.actions[i]
        rivals = [i for i in tried if i != 0]
        if not rivals:
            return self.default
        b = max(rivals, key=lambda j: (root.n[j], root.w[j] / root.n[j]))
        if self.pairing:
            n = self.pair_n.get(b, 0)
            if n < 3:
                return self.default
            mean = self.pair_sum[b] / n
            var = max((self.pair_sq[b] - mean * mean * n) / (n - 1), 1e-4)
            return root.actions[b] if mean > self.trust * math.sqrt(var / n) else self.default
        n_b, n_d = root.n[b], root.n[0]
        if n_d < 2 or n_b < 3:
            return self.default
        q_b, q_d = root.w[b] / n_b, root.w[0] / n_d
        spread = math.sqrt(max(q_b * (1 - q_b), 0.01) / n_b + max(q_d * (1 - q_d), 0.01) / n_d)
        return root.actions[b] if q_b - q_d > self.trust * spread else self.default


#: 1/sqrt(n) for the visit counts UCB sees most
_INV_SIZE = 4096
_INV_SQRT = [0.0] + [1.0 / math.sqrt(i) for i in range(1, _INV_SIZE)]


_ROOT = 0
#: ``_settled``'s answer where the rollout must be played (no value is infinite)
_LIVE = math.inf


def _cut(world: State, steps: int, horizon: int) -> bool:
    """Whether a simulation past its horizon stops here: at a quiet position, or at
    four times the horizon whatever happens (a betting war must not run on)."""
    return steps >= 4 * horizon or world.quiet()


def _info_key(world: State, seat: int) -> int:
    """What ``seat`` knows in ``world`` at the root: the game's :meth:`State.info_key`.

    Below the root a seat's key grows from what it is told (the announcements it
    sees) and what it does, which is far cheaper than a view per step.
    """
    return hash(world.info_key(seat))


def _as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)
