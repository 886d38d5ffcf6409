"""Heuristic play of ``yellow``, reading only the seat's view (everything owned is public).

What a thoughtful player does:

* **Spend a tile every round.**  Non-zero tiles come back as a fresh 0..8 once they
  are all spent, so a round spent on the free 0 is a round of the cycle lost
  (``TEMPO``), and so is a tile an exchange adds and the seat does not play at once
  (``EXTRA``); the question is mostly *when* to play each tile.  Holding back the
  last low tiles was this policy's costliest habit: the analysis (docs/analysis.md)
  marked it as 10-25 points of win chance lost, and pricing those rounds properly
  took one copy from 65% to 96% of matches won against two random seats (and 86%
  against two copies of the old policy; 600 matches each).
* **Play a tile when it is likelier to win than it usually is.**  A tile's chance to
  be strictly highest now is computed against a model of the two others; its usual
  chance is what it would have later on average.  The tile with the largest gain of
  the two is played.  A surely-highest tile (above anything the others can reach,
  exchanges included) is taken at its cheapest.
* **Yellow**: the gain is counted (a gain that wraps past 8 loses value), and a high
  yellow is exchanged for a tile before it can wrap.
* **Opponents** with a sure winner are expected to take it; otherwise they play the
  free 0 a third of the time and any other tile they can reach evenly.  A search that
  has read how the others play (``play_evidence``) asks ``respond`` instead: the same
  prices against their exact choice chances under this policy.
* **Mixing**: noise of ``NOISE`` points is added to every submission's worth.  The
  round is simultaneous, so a predictable seat is beaten or tied at the top.  Without
  the noise two copies at one table tie each other at the top every round: a random
  third seat then won all of 300 matches, and three copies always played to round 50;
  with it the random third seat wins 4% and three copies reach round 50 in 2% of
  matches, while one copy against two random seats still wins 96% (300 matches each).
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Any

from ...engine.core import Action, is_int
from ...games.yellow import BOOST_COST as BOOST
from ...games.yellow import VALUES, WIN_POINTS
from ...games.yellow import outcome as _outcome
from ...games.yellow import submissions
from ...views.yellow import YellowPart, YellowPolicyView, YellowView

#: how a seat is expected to play this round: (tile played, probability) pairs
Model = list[tuple[int, float]]
#: worth of one pip of yellow, in points (it becomes an extra tile by exchange)
YELLOW = 0.03
#: what a round spent without cycling a tile costs, in points: the fresh 0..8 comes a
#: round later (against two random seats, 600 matches: 0.12 won 65%, 0.5 88%, 0.5 with
#: ``EXTRA`` 96%)
TEMPO = 0.5
#: what a tile added by an exchange costs: one more round before the fresh 0..8, less
#: than ``TEMPO`` since the tile itself can still win
EXTRA = 0.3
#: chance an opponent without a sure winner plays its free 0
ZERO_SHARE = 1 / 3
#: yellow at or above this is banked (exchanged) rather than risked past 8
BANK_AT = 6
NOISE = 0.3


def choose(view: YellowPolicyView, legal: list[Action], rng: random.Random) -> Action:
    return _best(view, legal, rng, _models(view))


def _best(view: YellowPolicyView, legal: list[Action], rng: random.Random, models: list[Model]) -> Action:
    """The submission of the largest worth against ``models``, plus ``NOISE`` (mixing):
    one draw of ``rng`` per submission, in the order of ``legal``."""
    best = legal[0]
    best_value = -1e9
    for action, worth in zip(legal, prices(view, legal, models)):
        value = worth + NOISE * rng.random()
        if value > best_value:
            best, best_value = action, value
    return best


def respond(view: YellowPolicyView, legal: list[Action], rng: random.Random, shares: list[float]) -> Action:
    """``choose``'s prices against the other seats as a search models them: each plays
    by this policy with its share (its exact choice chances, ``choice_probabilities``)
    and evenly among its submissions otherwise, instead of ``choose``'s rough model (a
    sure winner taken, else the 0 a third of the time).  A best answer to the round;
    what comes after is priced as ``choose`` prices it.  Against two copies of
    ``choose`` it won 94% of 300 matches, against two random seats 96%."""
    me = view["seat"]
    return _best(view, legal, rng, [_modelled(view, s, shares[s]) for s in range(3) if s != me])


def _modelled(view: YellowPolicyView, seat: int, share: float) -> Model:
    """(play, probability) for ``seat``: this policy with chance ``share``, else even."""
    legal = submissions(set(view["inventories"][seat]), view["yellow"][seat], view["garnets"][seat])
    if not legal:
        return [(0, 1.0)]
    probs = choice_probabilities({**view, "seat": seat}, legal) if len(legal) > 1 else [1.0]
    even = (1.0 - share) / len(legal)
    plays: dict[int, float] = {}
    for action, p in zip(legal, probs):
        plays[action[2]] = plays.get(action[2], 0.0) + share * p + even
    return sorted(plays.items())


def _reachable(view: YellowPolicyView, seat: int) -> set[int]:
    """Tiles ``seat`` can play this round: inventory, or its yellow after boosts + exchange."""
    tiles = set(view["inventories"][seat])
    y, g = view["yellow"][seat], view["garnets"][seat]
    for _ in range(VALUES):
        if y > 0:
            tiles.add(y)
        if g < BOOST:
            break
        g -= BOOST
        y = (y + 1) % VALUES
    return tiles


def _models(view: YellowPolicyView) -> list[Model]:
    """(play, probability) for each other seat, in seat order, as the module docstring
    describes: a sure winner is taken, else the free 0 a third of the time and any
    other reachable tile evenly.  The lists are shared (:func:`_model`): not to be
    changed."""
    me = view["seat"]
    reach = [_reachable(view, s) for s in range(3)]
    tops = [max(r) for r in reach]
    out: list[Model] = []
    for seat in range(3):
        if seat == me:
            continue
        rival_top = max(tops[s] for s in range(3) if s != seat)
        out.append(_model(frozenset(reach[seat]), rival_top))
    return out


#: a number for each model :func:`_model` made, by its ``id`` (they are never freed, so
#: no other object takes that ``id``): the key of :data:`_KNOWN`
_NUMBERS: dict[int, int] = {}
#: the models :func:`_model` made, by their contents
_SHARED: dict[tuple[tuple[int, float], ...], Model] = {}


@lru_cache(maxsize=None)
def _model(mine: frozenset[int], rival_top: int) -> Model:
    """The model of a seat that can reach the tiles ``mine`` while the best either
    other seat can reach is ``rival_top``; one list per answer, made once (at most
    512 sets of tiles times 9 tops) and numbered in :data:`_NUMBERS`."""
    sure = sorted(t for t in mine if t > rival_top)
    model: Model
    if sure:
        model = [(sure[0], 1.0)]
    else:
        nonzero = sorted(t for t in mine if t > 0)
        if not nonzero:
            model = [(0, 1.0)]
        else:
            share = (1 - ZERO_SHARE) / len(nonzero)
            model = [(0, ZERO_SHARE)] + [(t, share) for t in nonzero]
    same = _SHARED.setdefault(tuple(model), model)  # one list for each model, whatever led to it
    if same is model:
        _NUMBERS[id(model)] = len(_NUMBERS)
    return same


def _usual(tile: int) -> float:
    """A tile's average chance of being strictly highest when played some other round:
    its chance against two tiles drawn evenly from a fresh 0..8."""
    return (tile / VALUES) ** 2


def _gains(n: int, y: int) -> list[list[int]]:
    """By the two others' plays ``a`` then ``b``: how the seat's yellow ``y`` changes when
    it plays ``n`` (0 where the rule gives it no yellow)."""
    return [[((y + _outcome(n, a, b)[1]) % VALUES) - y for b in range(VALUES)] for a in range(VALUES)]


#: :func:`_gains` of every tile played and yellow, by ``n * VALUES + y``
_GAINS: list[list[list[int]]] = [_gains(n, y) for n in range(VALUES) for y in range(VALUES)]


def _expected(n: int, y: int, first: Model, rows: list[list[float]], tiles: list[int]) -> tuple[float, float]:
    """(chance of the point, expected change of the seat's yellow) when it plays ``n``
    with yellow ``y`` after its steps, while the first other seat plays by ``first`` and
    the second plays ``tiles``, ``rows[i][j]`` being the chance of the first's ``i``-th
    play and the second's ``j``-th.

    The sum over the two others' plays of the scoring rule (``outcome``): a point when
    ``n`` is above both plays, else a change of yellow.  It is the hot loop of the
    search and of the analysis (both play this policy for every seat at every step),
    so it adds up only what is not zero: the same products in the same order as the
    plain loop over every pair, so the same floats to the last bit
    (tests/test_yellow_prices.py keeps the plain loop and compares).
    """
    now = 0.0
    yellow_gain = 0.0
    gains = _GAINS[n * VALUES + y]
    for (a, _), row in zip(first, rows):
        if a < n:
            for b, p in zip(tiles, row):
                if b < n:
                    now += p
                else:
                    d = gains[a][b]
                    if d:
                        yellow_gain += p * d
        elif a > n:
            change = gains[a]
            for b, p in zip(tiles, row):
                d = change[b]
                if d:
                    yellow_gain += p * d
    return now, yellow_gain


def _expected2(
    n: int, y: int, z: int, first: Model, rows: list[list[float]], tiles: list[int]
) -> tuple[float, float, float]:
    """:func:`_expected` for ``n`` played with yellow ``y`` and with yellow ``z``, in one
    pass: (chance of the point, expected change of ``y``, of ``z``).  A submission with
    an exchange and one without often play the same tile; the chance of the point does
    not depend on the yellow, and each sum is made of the same terms in the same order
    as :func:`_expected` makes it, so the same floats."""
    now = 0.0
    gain_y = 0.0
    gain_z = 0.0
    gains_y = _GAINS[n * VALUES + y]
    gains_z = _GAINS[n * VALUES + z]
    for (a, _), row in zip(first, rows):
        if a < n:
            change_y, change_z = gains_y[a], gains_z[a]
            for b, p in zip(tiles, row):
                if b < n:
                    now += p
                else:
                    d = change_y[b]
                    if d:
                        gain_y += p * d
                    d = change_z[b]
                    if d:
                        gain_z += p * d
        elif a > n:
            change_y, change_z = gains_y[a], gains_z[a]
            for b, p in zip(tiles, row):
                d = change_y[b]
                if d:
                    gain_y += p * d
                d = change_z[b]
                if d:
                    gain_z += p * d
    return now, gain_y, gain_z


#: :func:`_expected`'s answers by the pair of models (the numbers of
#: :data:`_NUMBERS`), then by ``n * VALUES + y``.  The same pairs meet again and again:
#: in an analysis of yellow.json's first nine decisions, 35k pairs in 136k pricings,
#: 611k different answers asked for 1.4M times; an answer is the same floats however
#: often it is asked for.
_KNOWN: dict[tuple[int, int], dict[int, tuple[float, float]]] = {}
#: pairs remembered before :data:`_KNOWN` starts afresh (each holds a few dozen
#: answers, about 3 kB)
KNOWN_PAIRS = 4096


def prices(view: YellowPolicyView, legal: list[Action], models: list[Model]) -> list[float]:
    """The worth of each submission of ``legal`` against ``models`` (the other two
    seats' plays, in seat order), before ``choose`` adds its noise."""
    first, second = models
    i, j = _NUMBERS.get(id(first)), _NUMBERS.get(id(second))
    if i is None or j is None:
        known: dict[int, tuple[float, float]] = {}  # a caller's own models: nothing kept
    else:
        pair = _KNOWN.get((i, j))
        if pair is None:
            if len(_KNOWN) >= KNOWN_PAIRS:
                _KNOWN.clear()
            pair = _KNOWN[(i, j)] = {}
        known = pair
    me = view["seat"]
    start = view["yellow"][me]
    target = view.get("target", WIN_POINTS)  # lower in the small variant
    point_worth = 1.0 + (2.0 if view["points"][me] + 1 >= target else 0.0)
    walked = []
    wanted: dict[int, list[int]] = {}  # by tile played: the yellows it is not known at
    for _, steps, n in legal:
        y = start
        banked = 0
        for step in steps:
            if step == "b":
                y = (y + 1) % VALUES
            else:
                banked += y
                y = 0
        walked.append((steps, n, y, banked))
        if n * VALUES + y not in known:
            ys = wanted.setdefault(n, [])
            if y not in ys:
                ys.append(y)
    if wanted:
        tiles = [b for b, _ in second]
        rows = [[pa * pb for _, pb in second] for _, pa in first]
        for n, ys in wanted.items():
            while len(ys) >= 2:
                y, z = ys.pop(), ys.pop()
                now, gain_y, gain_z = _expected2(n, y, z, first, rows, tiles)
                known[n * VALUES + y] = (now, gain_y)
                known[n * VALUES + z] = (now, gain_z)
            if ys:
                known[n * VALUES + ys[0]] = _expected(n, ys[0], first, rows, tiles)
    out = []
    for steps, n, y, banked in walked:
        now, yellow_gain = known[n * VALUES + y]
        value = now * point_worth - _usual(n) + YELLOW * yellow_gain
        if n == 0:
            value -= TEMPO
        value -= EXTRA * steps.count("x")
        if banked:
            # an exchange pays when it banks a high yellow, or gives a winning tile now
            value += 0.05 if (banked >= BANK_AT or (n == banked and now > 0.5)) else -0.05
        value -= 0.02 * steps.count("b")  # garnets only break late ties; spend them for a reason
        out.append(value)
    return out


# ----------------------------------------------------------------------------- evidence
#
# Yellow is wholly public: every submission is announced when the round resolves, so
# a seat's past play can be replayed exactly from the view's ``submissions``.  A search that
# models the other seats asks how likely each one's submissions were under this
# policy rather than under uniformly random play; the answer is a log-likelihood
# ratio per seat, which the search turns into the share of that seat it plays by
# this policy.

#: points of the midpoint rule that integrates the policy's noise out
_GRID = 48
#: share of a seat's play that is anything at all (a person's whim): no submission is
#: ever impossible under the model, so one surprise cannot settle the question
_WHIM = 0.05


def choice_probabilities(view: YellowPolicyView, legal: list[Action]) -> list[float]:
    """The chance ``choose`` picks each action of ``legal``, its noise integrated out.

    ``choose`` takes the largest worth plus ``NOISE`` times a uniform draw; an action
    wins when every other's noisy worth falls below its own, which is a product of
    clipped linear terms integrated over its own draw.
    """
    worths = prices(view, legal, _models(view))
    top = max(worths)
    out = [0.0] * len(legal)
    rivals = [i for i, w in enumerate(worths) if w > top - NOISE]
    if len(rivals) == 1:
        out[rivals[0]] = 1.0
        return out
    for i in rivals:
        wi = worths[i]
        total = 0.0
        for k in range(_GRID):
            u = (k + 0.5) / _GRID
            p = 1.0
            for j in rivals:
                if j != i:
                    x = (wi - worths[j]) / NOISE + u
                    if x <= 0.0:
                        p = 0.0
                        break
                    if x < 1.0:
                        p *= x
            total += p
        out[i] = total / _GRID
    norm = sum(out)
    return [p / norm for p in out]


def _outcome_key(state: Any, seat: int, action: Action) -> tuple[Any, ...]:
    """What a submission does (final yellow and garnets, tiles gained, play): two
    submissions with the same key are the same choice."""
    _, steps, n = action
    y, g = state.yellow[seat], state.garnets[seat]
    gained = []
    for step in steps:
        if step == "b":
            g -= BOOST
            y = (y + 1) % VALUES
        else:
            gained.append(y)
            y = 0
    return (y, g, tuple(sorted(gained)), n)


_STEP_LETTER = {"boost": "b", "exchange": "x"}


def _rounds(view: YellowPart) -> list[tuple[Action, ...]]:
    """The submissions of every round so far, as actions, from the view's data; it
    stops before the first round it cannot read (a view built by hand, say)."""
    out: list[tuple[Action, ...]] = []
    for subs in view["submissions"]:
        try:
            actions = tuple(
                ("sub", "".join(_STEP_LETTER[w] for w in sub["steps"]), sub["play"]) for sub in subs
            )
        except (KeyError, TypeError):
            break
        if len(actions) != 3 or not all(is_int(a[2]) for a in actions):
            break
        out.append(actions)
    return out


def play_evidence(view: YellowView, memo: dict[Any, Any]) -> list[float]:
    """Per seat, the log-likelihood ratio of its announced submissions under this
    policy against uniformly random play (0.0 for the viewing seat).

    ``memo`` is the caller's cache, kept between calls: the replay resumes from the
    longest stretch of rounds already seen, so a match costs one policy evaluation
    per seat and round in all.  The answer depends only on ``view``.
    """
    from ...engine.registry import make_game  # the replay needs the rules themselves

    me = view["seat"]
    rounds = _rounds(view)
    base = ("yellow", repr(sorted(view["options"].items())))
    chain = [hash(base)]
    for submissions in rounds:
        chain.append(hash((chain[-1], submissions)))
    done = len(rounds)
    while done > 0 and chain[done] not in memo:
        done -= 1
    if done == 0 and chain[0] not in memo:
        memo[chain[0]] = (make_game("yellow", view["options"]).new_initial_state(), (0.0, 0.0, 0.0))
    state, llr = memo[chain[done]]
    if len(memo) > 4096:  # a long-lived bot: forget old matches, keep this one's path
        keep = {k: memo[k] for k in chain[: done + 1]}
        memo.clear()
        memo.update(keep)
    llr = list(llr)
    for r in range(done, len(rounds)):
        state = state.clone(track=False)
        actions: dict[int, Action] = {}
        for seat in range(3):
            legal = state.legal_actions(seat)
            want = _outcome_key(state, seat, rounds[r][seat])
            index = next((i for i, a in enumerate(legal) if _outcome_key(state, seat, a) == want), None)
            if index is None:
                return [0.0 if s == me else v for s, v in enumerate(llr)]
            actions[seat] = legal[index]
            if len(legal) > 1:
                seat_view = state._view(seat)
                seat_view["seat"] = seat
                seat_view["game"] = "yellow"
                p = choice_probabilities(seat_view, legal)[index]
                uniform = 1.0 / len(legal)
                llr[seat] += math.log((1 - _WHIM) * p + _WHIM * uniform) - math.log(uniform)
        for seat in range(3):
            state.apply_fast(seat, actions[seat])
        memo[chain[r + 1]] = (state, tuple(llr))
    return [0.0 if s == me else v for s, v in enumerate(llr)]
