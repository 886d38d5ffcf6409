"""A heuristic policy for both Grouping games (Death Match and Final).

Betting: the seat's own tile is face down, so both tiles are estimated.  From the
view alone (its groups, the colours and numbers it was told in this set's deals, the
fold-the-8 facts, its group order if it used ``order``) the exact helpers of
``bots.inference.grouping`` give the chance of each number for our tile and for the opponent's (whose
groups are weighed by their posterior).  That gives the chances that our tile is
higher, equal or lower (exactly: an earlier version drew 48 deals, which cost more
and added noise), and the bet follows the expected value of calling, folding or
raising in the variant's chip rules.

Grouping: a few templates that make our high tiles readable from colour runs
(e.g. ``A=7,8 B=1,3,5 C=0,2,4,6``), mixed with random groupings so the opponent
cannot read us as easily; under the Final's regrouping limits, the legal grouping
closest to the template.

Items and extras: ``peek`` when the decision is close and the bets matter, ``order``
early, propose a higher ante when well ahead, accept one only when not behind.
"""

from __future__ import annotations

import math
import random
from typing import Any, Sequence, cast

from ...engine.core import Action, State
from ...views.grouping import GroupingPolicyView, GroupingSeatView
from ...games.grouping import (
    ALL, BET, EIGHT_PENALTY, GROUP_ACTIONS, GROUPING_MASKS, GROUPINGS, MAX_RAISE, NAMES, TILES, GroupingState,
    Masks, mask_of,
)
from ..inference.grouping import deal_tile_chances, entries_constraints, tile_chances

TEMPLATES: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...] = (
    ((7, 8), (1, 3, 5), (0, 2, 4, 6)),
    ((0, 8), (1, 3, 5), (2, 4, 6, 7)),
    ((1, 8), (5, 6, 7), (0, 2, 3, 4)),
    ((6, 8), (3, 5, 7), (0, 1, 2, 4)),
)


def choose(view: GroupingPolicyView, legal: list[Action], rng: random.Random) -> Action:
    """Pick one of ``legal`` from what ``view`` tells the seat."""
    if not legal:
        raise ValueError("no legal action to choose from")
    if _lists(legal, "group"):
        return _grouping_step(view, legal, rng)
    if view.get("phase") == "choose":
        return ("go", "second") if ("go", "second") in legal else legal[0]
    if _lists(legal, "call"):
        return _bet(view, legal, rng)
    return legal[rng.randrange(len(legal))]


def _lists(legal: list[Action], tag: str) -> bool:
    """Whether an action tagged ``tag`` is legal (a grouping step lists 1260 groupings:
    the first one answers)."""
    for action in legal:
        if action[0] == tag:
            return True
    return False


# ----------------------------------------------------------------------------- grouping


def _grouping_step(view: GroupingPolicyView, legal: list[Action], rng: random.Random) -> Action:
    proposal = view.get("proposal")
    return _grouping_step_on(view["seat"], view["chips"], None if proposal is None else proposal["by"], legal, rng)


def _grouping_step_on(
    me: int, chips: list[int], proposal: int | None, legal: list[Action], rng: random.Random,
    all_first: bool | None = None,
) -> Action:
    """The grouping step from the chips and who made the open ante proposal (``None``:
    none open); the view and the state paths share it.  ``all_first``: whether ``legal``
    starts with every grouping in the engine's order, when the caller knows it (the state
    path: the world lists them so under free regrouping); ``None``: compared here."""
    if proposal is not None and proposal != me:
        # a higher ante drains the shorter stack first
        want = chips[me] >= chips[1 - me]
        answer: Action = ("accept",) if want else ("decline",)
        if answer in legal:
            return answer
    # the engine lists every grouping first, then the free actions: split them without
    # testing each of the 1260 (any other order is filtered the long way)
    count = len(GROUP_ACTIONS)
    full = tuple(legal[:count]) == GROUP_ACTIONS if all_first is None else all_first
    rest = legal[count:] if full else legal
    proposals = [a for a in rest if a[0] == "propose"]
    if proposals and proposal is None and chips[me] >= 1.25 * chips[1 - me] + 5:
        return min(proposals, key=lambda a: a[1])
    more = [a for a in rest if a[0] == "group"]
    groups: Sequence[Action]
    if full and not more:
        groups = GROUP_ACTIONS  # what ``legal`` lists first, and no other grouping
    else:
        groups = legal[:count] + more if full else more
        full = False
    if rng.random() < 0.25:
        target = groups[rng.randrange(len(groups))][1:]
    else:
        target = TEMPLATES[rng.randrange(len(TEMPLATES))]
    best = _closest(groups, target, full)
    return groups[best[rng.randrange(len(best))]]


#: the masks of each grouping action's groups
_ACTION_MASKS: dict[Action, Masks] = dict(zip(GROUP_ACTIONS, GROUPING_MASKS))
#: each grouping's index in ``GROUPINGS`` (and so in ``GROUP_ACTIONS``)
_GROUPING_AT: dict[tuple[tuple[int, ...], ...], int] = {g: i for i, g in enumerate(GROUPINGS)}
#: ``_closest`` over every grouping (the usual legal list), by target
_CLOSEST_OF_ALL: dict[tuple[tuple[int, ...], ...], list[int]] = {}


def _closest(groups: Sequence[Action], target: tuple[tuple[int, ...], ...], full: bool) -> list[int]:
    """Indices in ``groups``, in order, of the groupings sharing the most tiles with
    ``target`` group by group.  Over the full list of groupings (``full``: ``groups``
    is ``GROUP_ACTIONS``, as at every free grouping step) the answer is kept per
    target: a grouping step is the dearest move a simulation makes otherwise."""
    if full:
        known = _CLOSEST_OF_ALL.get(target)
        if known is not None:
            return known
        at = _GROUPING_AT.get(target)
        if at is not None:  # a grouping itself: the only one sharing all nine tiles with it
            return [at]
    ta, tb, tc = mask_of(target[0]), mask_of(target[1]), mask_of(target[2])
    best: list[int] = []
    score = -1
    for i, action in enumerate(groups):
        masks = _ACTION_MASKS.get(action)
        if masks is None:
            masks = (mask_of(action[1]), mask_of(action[2]), mask_of(action[3]))
        a, b, c = masks
        overlap = (a & ta).bit_count() + (b & tb).bit_count() + (c & tc).bit_count()
        if overlap > score:
            best, score = [i], overlap
        elif overlap == score:
            best.append(i)
    if full:
        _CLOSEST_OF_ALL[target] = best
    return best


# ----------------------------------------------------------------------------- betting


def outcome_chances(view: GroupingPolicyView) -> tuple[float, float, float]:
    """(P win, P tie, P lose) of this round's tiles, exactly, and from the view alone.

    Our tile's chances follow from our groups and what we know of this deal; the
    opponent's from the posterior over their groupings given everything we know of
    their deals this set (``deal_tile_chances``).  The two are independent given
    the view, so the outcome is a 9 x 9 sum.
    """
    rnd, their_tile = view["round"], view["their_tile"]
    assert rnd is not None and their_tile is not None, "a betting round is under way"
    d = view["deal"] - 1
    p = rnd - 1
    deals = view["deals"]
    mine = _my_tile_chances(view)
    known = their_tile["tile"]
    if known is not None:
        theirs = tuple(1.0 if t == known else 0.0 for t in range(TILES))
    else:
        theirs = deal_tile_chances(tuple(entries_constraints(both["theirs"]) for both in deals), d, p)
    return _outcome(mine, theirs)


def _outcome(mine: tuple[float, ...], theirs: tuple[float, ...]) -> tuple[float, float, float]:
    """(P win, P tie, P lose) of two independent tiles with these chances."""
    win = tie = 0.0
    below = 0.0  # P(their tile < t), built up as t rises
    for t in range(TILES):
        win += mine[t] * below
        tie += mine[t] * theirs[t]
        below += theirs[t]
    return win, tie, max(0.0, 1.0 - win - tie)


def _my_tile_chances(view: GroupingPolicyView) -> tuple[float, ...]:
    my_tile, rnd = view["my_tile"], view["round"]
    assert my_tile is not None and rnd is not None, "a betting round is under way"
    known = my_tile["tile"]
    if known is not None:
        return tuple(1.0 if t == known else 0.0 for t in range(TILES))
    d = view["deal"] - 1
    g = view["my_groups"]
    assert g is not None, "the seat has grouped this set"
    groups = (tuple(g["A"]), tuple(g["B"]), tuple(g["C"]))
    order = None
    my_order = view.get("my_order")
    if my_order and d == 0:
        idx = [NAMES.index(n) for n in my_order]
        order = (idx[0], idx[1], idx[2])
    cons = entries_constraints(view["deals"][d]["mine"])
    return tile_chances(groups, cons, rnd - 1, order)


def _bet(view: GroupingPolicyView, legal: list[Action], rng: random.Random) -> Action:
    me = view["seat"]
    opp = 1 - me
    final = view.get("variant") == "final"
    pwin, ptie, plose = outcome_chances(view)
    p8 = _chance_my_tile_is_eight(view) if final else 0.0
    return _bet_on(final, pwin, ptie, plose, view["bets"][me], view["bets"][opp], view["set"], p8, legal, rng)


def _bet_on(
    final: bool, pwin: float, ptie: float, plose: float, my_bet: int, their_bet: int, set_no: int,
    p8: float, legal: list[Action], rng: random.Random,
) -> Action:
    """The bet from the round's outcome chances and the bets (``p8``: the chance our
    tile is the 8, read in the Final only); the view and the state paths share it."""
    # items are the Final's alone: the Death Match's lists need no scan for them
    if final and ("peek",) in legal and 0.25 < pwin + ptie / 2 < 0.75 and max(my_bet, their_bet) >= 4:
        return ("peek",)
    if final and ("order",) in legal and (set_no >= 2 or rng.random() < 0.3):
        return ("order",)
    top = 0  # the last raise listed (raises come first, so scan from the end)
    for action in reversed(legal):
        if action[0] == "raise":
            top = action[1]
            break
    equity = pwin + ptie / 2
    strong = _strong(final, pwin, equity)
    if final:
        fold_ev = -my_bet - EIGHT_PENALTY * p8
        call_ev = -(plose + ptie) * their_bet
    else:
        fold_ev = -my_bet
        call_ev = (2 * equity - 1) * their_bet
    if top and (strong or (equity > BLUFF_FROM and rng.random() < BLUFF)):
        if strong and equity > 0.9:
            size = top
        else:
            size = max(1, min(top, int(round(top * equity * rng.uniform(0.3, 0.8)))))
        # do not escalate forever: once the bets are high, calling is enough
        if their_bet < 12 or equity > 0.85:
            return ("raise", size)
    if call_ev >= fold_ev or ("fold",) not in legal:
        return ("call",)
    return ("fold",)


#: a raise without a strong tile: how often, and from what equity up
BLUFF = 0.08
BLUFF_FROM = 0.35
#: what ``explain`` allows for play the policy would not make (a person's whim)
WHIM = 0.03
#: the betting actions a seat has when every raise fits: raise 1..MAX_RAISE, call, fold
BET_CHOICES = MAX_RAISE + 2
#: how often a uniformly random seat raises (ten raises among twelve betting actions)
RANDOM_RAISE = MAX_RAISE / BET_CHOICES
#: the starting seat's first action, raise, call or fold: roughly how often the policy
#: makes each (it never folds unraised; 1% allows for whim)
POLICY_START = (0.3, 0.69, 0.01)
#: the answering seat's first action to a raise, raise or fold (the rest calls)
POLICY_ANSWER = (0.15, 0.4)


def _strong(final: bool, pwin: float, equity: float) -> bool:
    """A tile worth raising on: the Final counts ties as losses (a tie takes nothing)."""
    return pwin >= 0.7 if final else equity >= 0.72


def explain(view: GroupingPolicyView, share: float = 1.0) -> float:
    """How likely this seat's bets of the round so far are, if it plays by the policy
    with chance ``share`` and otherwise uniformly at random.

    In a round every action but the last is a raise, so a seat whose bet stands above
    the other's has raised; the policy raises on a strong tile and bluffs now and then
    on a middling one.  Its chances of the outcome do not change within a round, so one
    raise says as much as several.  A random seat raises with the share of raises
    among its betting actions (ten of twelve when all fit).  Anything else the view
    shows is equally likely either way.
    """
    if view.get("phase") != "bet" or view.get("round") is None:
        return 1.0
    me = view["seat"]
    bets = view["bets"]
    if bets[me] <= bets[1 - me]:
        return 1.0
    pwin, ptie, _ = outcome_chances(view)
    top = view.get("options", {}).get("max_raise", MAX_RAISE)  # the small variant's raise cap
    return _explained(view.get("variant") == "final", pwin, ptie, share, top)


def _explained(final: bool, pwin: float, ptie: float, share: float, top: int) -> float:
    """``explain``'s answer for a seat that raised, from its outcome chances."""
    equity = pwin + ptie / 2
    if _strong(final, pwin, equity):
        policy = 1.0
    else:
        policy = BLUFF if equity > BLUFF_FROM else WHIM
    return share * policy + (1.0 - share) * top / (top + 2)


def play_evidence(view: GroupingSeatView, memo: dict[Any, Any] | None = None) -> list[float]:
    """Per seat, the log-likelihood ratio of its play as the starting seat under this
    policy against uniformly random play (0.0 for the viewing seat).

    The public rounds show what the starting seat did first: a showdown at the ante
    means it called straight away (the policy's usual play, a random seat's one time
    in twelve), a bet above the ante that it raised, a fold at the ante that it gave
    the round up unraised (which the policy never does).  Who started follows from
    the first-bettor choice and the winners (a split keeps the same starter).
    ``memo`` is unused: the count is cheap.
    """
    me = view["seat"]
    llr = [0.0, 0.0]
    chips = view["options"]["chips"]
    top = view["options"].get("max_raise", MAX_RAISE)  # the small variant's raise cap
    choices = top + 2
    stacks = [chips, chips]  # before each round's ante
    for r in view["rounds"]:
        starter = r["starter"]
        if starter is None:  # sudden death: no betting
            continue
        ante = r["ante"]
        bets = r["bets"]
        if starter != me:
            # the raises that fitted: a random seat raises with chance fits / (fits + 2)
            fits = max(0, min(top, min(stacks) - ante))
            if bets[starter] > ante or bets[1 - starter] > ante:
                llr[starter] += math.log(POLICY_START[0] * (fits + 2) / fits) if fits else 0.0
            elif r["folder"] == starter:
                llr[starter] += math.log(POLICY_START[2] * (fits + 2))
            else:
                llr[starter] += math.log(POLICY_START[1] * (fits + 2))
        other = 1 - starter
        if other != me and r["folder"] is not None and bets[starter] > ante:
            # the starter raised and the other seat answered: a fold shows at once; a
            # bet left standing above a folding starter's shows a raise back
            if r["folder"] == other:
                llr[other] += math.log(POLICY_ANSWER[1] * choices)
            elif bets[other] > bets[starter]:
                llr[other] += math.log(POLICY_ANSWER[0] * choices / top)
        stacks = list(r["chips"])
    return llr


def _chance_my_tile_is_eight(view: GroupingPolicyView) -> float:
    tile = view["my_tile"]
    assert tile is not None, "a betting round is under way"
    if tile["tile"] is not None:
        return 1.0 if tile["tile"] == 8 else 0.0
    if tile["colour"] != "black" or tile.get("eight") is False:
        return 0.0
    return _my_tile_chances(view)[8]


# ----------------------------------------------------------------------------- in a search


def choose_in_state(world: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """``choose`` for ``seat`` of ``world`` (``legal``: its legal actions there, as a
    search passes them), read from the state instead of a view: the
    same chances from the same facts (``_cons`` of what the seat was told is what
    ``entries_constraints`` reads back from its view), the same order of ``legal`` and
    the same draws from ``rng``, so the same action.  A search calls it for every
    modelled move, where building the view cost more than the move."""
    assert isinstance(world, GroupingState)
    if not legal:
        raise ValueError("no legal action to choose from")
    # ``choose``'s steps, told apart by the phase: ``legal`` is the seat's legal list in
    # ``world``, so a betting step lists no grouping and always lists ``call``
    if world.phase == BET:
        if world.starter is None:  # the view's phase "choose"
            return ("go", "second") if ("go", "second") in legal else legal[0]
        return _bet_in_state(world, seat, legal, rng)
    if _lists(legal, "group"):
        proposal = world.proposal
        every = world._group_actions(seat) is GROUP_ACTIONS  # ``legal`` starts with them all
        return _grouping_step_on(seat, world.chips, None if proposal is None else proposal[0], legal, rng, every)
    return legal[rng.randrange(len(legal))]


def explain_in_state(world: State, seat: int, share: float = 1.0) -> float:
    """``explain`` of the view a search gives a policy for ``seat`` of ``world``, read from
    the state as ``choose_in_state`` reads it; the raise cap is the match's own
    (``max_raise``: a small variant's raises are fewer, so a random raise is likelier)."""
    assert isinstance(world, GroupingState)
    if world.phase != BET or world.starter is None:
        return 1.0
    bets = world.bets
    if bets[seat] <= bets[1 - seat]:
        return 1.0
    pwin, ptie, _, _ = _outcome_in_state(world, seat)
    return _explained(world.FINAL, pwin, ptie, share, world.max_raise)


def _bet_in_state(world: GroupingState, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """``_bet`` of ``seat``'s view of ``world``, from the state (see ``choose_in_state``)."""
    pwin, ptie, plose, mine = _outcome_in_state(world, seat)
    final = world.FINAL
    p8 = 0.0
    if final:  # as ``_chance_my_tile_is_eight``
        d, p = world.deal_no, world.pos
        if world.deals[seat][d][p] % 2 == 0 and world.eight[seat][9 * d + p] != 0:
            p8 = mine[8]
    bets = world.bets
    opp = 1 - seat
    return _bet_on(final, pwin, ptie, plose, bets[seat], bets[opp], world.set_no, p8, legal, rng)


def _outcome_in_state(world: GroupingState, seat: int) -> tuple[float, float, float, tuple[float, ...]]:
    """``outcome_chances`` of ``seat``'s view of ``world``, from the state, and our tile's
    chances.  Kept in the state's ``inferred`` until what a seat knows changes: a search
    asks it for the same seat at the same knowledge in most of its copies of a world
    (the first answer to the root's bet), and a raise leaves it standing."""
    memo = world.inferred
    known = memo.get(seat)
    if known is not None:
        return cast("tuple[float, float, float, tuple[float, ...]]", known)
    out = memo[seat] = _outcome_from_state(world, seat)
    return out


def _outcome_from_state(world: GroupingState, seat: int) -> tuple[float, float, float, tuple[float, ...]]:
    """``_outcome_in_state``, computed."""
    opp = 1 - seat
    d, p = world.deal_no, world.pos
    slot = 9 * d + p
    bit = 1 << seat
    deals = world.deals
    # our tile: as ``_my_tile_chances`` (told of it, else our groups and what this deal showed)
    tile = deals[seat][d][p]
    if world.vis[seat][slot] & bit:
        mine = _ONE_HOT[tile]
    else:
        groups = world.groups[seat]
        assert groups is not None, "the seat has grouped this set"
        known = world.order_known[seat]
        order = known[1] if known is not None and known[0] == world.gset and d == 0 else None
        mine = tile_chances(groups, world._cons(seat, seat, d), p, order)
    # theirs: as ``outcome_chances``, from what this set's deals showed of them
    if world.vis[opp][slot] & bit:
        theirs = _ONE_HOT[deals[opp][d][p]]
    else:
        told = len(deals[opp])
        facts = tuple(
            world._cons(seat, opp, k) if k < told else _NOTHING for k in range(max(len(deals[0]), len(deals[1])))
        )
        theirs = deal_tile_chances(facts, d, p)
    pwin, ptie, plose = _outcome(mine, theirs)
    return pwin, ptie, plose, mine


#: one tile's chances when it is known
_ONE_HOT: tuple[tuple[float, ...], ...] = tuple(
    tuple(1.0 if t == known else 0.0 for t in range(TILES)) for known in range(TILES)
)
#: what is known of a deal not dealt
_NOTHING: tuple[int, ...] = (ALL,) * TILES
