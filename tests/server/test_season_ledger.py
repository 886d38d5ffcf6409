"""The season ledger's fold (blackwhite/server/season_ledger.py): what it allows and refuses,
voids, and that standings are a function of the entries alone."""

from __future__ import annotations

from typing import Any

import pytest

from blackwhite.server.season_ledger import LedgerError, Rules, Season, conservation, entry, replay, result_entries


def ledger(n: int = 5, garnets: int = 4, **rules: Any) -> list[dict[str, Any]]:
    cast = [{"player": f"p{i}", "name": f"P {i}"} for i in range(1, n + 1)]
    return [{"seq": 1, "kind": "created", "at": 0.0, "by": "host:h",
             "data": {"name": "S", "cast": cast, "garnets": garnets, "rules": rules, "host": "h"}}]


def add(entries: list[dict[str, Any]], *new: dict[str, Any], at: float = 1.0) -> list[dict[str, Any]]:
    out = list(entries)
    for e in new:
        out.append({**e, "seq": len(out) + 1, "at": at, "by": "host:h"})
    replay(out)
    return out


def main_round(entries: list[dict[str, Any]], mid: str, tokens: list[str], candidate: str) -> list[dict[str, Any]]:
    from blackwhite.server.season_ledger import recorded_main

    season = replay(entries)
    return add(entries, *recorded_main(season, len(entries) + 1, mid, "elsewhere", season.alive(), tokens, candidate,
                                       {}))


def test_a_transfer_never_goes_below_zero_and_changes_nothing_when_refused() -> None:
    entries = ledger(garnets=3)
    entries = add(entries, entry("transfer", {"from": "p1", "to": "p2", "garnets": 3}))
    with pytest.raises(LedgerError) as refused:
        add(entries, entry("transfer", {"from": "p1", "to": "p3", "garnets": 1}))
    assert refused.value.code == "not_enough_garnets"
    season = replay(entries)
    assert season.players["p1"].garnets == 0 and season.players["p2"].garnets == 6
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(LedgerError):
            add(entries, entry("transfer", {"from": "p2", "to": "p3", "garnets": bad}))
    with pytest.raises(LedgerError):
        add(entries, entry("transfer", {"from": "p2", "to": "p2", "garnets": 1}))
    entries = add(entries, entry("award", {"player": "p2", "garnets": 20}))
    for i in range(10):  # ten a round, no more: no cast member fills the ledger
        entries = add(entries, entry("transfer", {"from": "p2", "to": "p3", "garnets": 1}))
    with pytest.raises(LedgerError) as refused:
        add(entries, entry("transfer", {"from": "p2", "to": "p3", "garnets": 1}))
    assert refused.value.code == "too_many_transfers"
    add(entries, entry("transfer", {"from": "p3", "to": "p2", "garnets": 1}))  # another player's own count


def test_a_token_holder_cannot_be_candidate_nor_chosen_and_the_deadline_binds_the_candidate() -> None:
    entries = main_round(ledger(), "m1", ["p1"], "p2")
    with pytest.raises(LedgerError) as refused:
        add(entries, entry("opponent", {"player": "p1", "by": "candidate"}))
    assert refused.value.code == "not_eligible"
    with pytest.raises(LedgerError):
        add(entries, entry("opponent", {"player": "p2", "by": "candidate"}))  # the candidate themselves
    late = Rules().choose_seconds + 10
    with pytest.raises(LedgerError) as refused:
        add(entries, entry("opponent", {"player": "p3", "by": "candidate"}), at=late)
    assert refused.value.code == "too_late"
    add(entries, entry("opponent", {"player": "p3", "by": "host"}), at=late)  # a host may, after it
    with pytest.raises(LedgerError) as refused:
        main_round(ledger(), "m1", ["p1"], "p1")
    assert refused.value.code == "token_holder"


def death(entries: list[dict[str, Any]], mid: str, opponent: str, winner_is_candidate: bool) -> list[dict[str, Any]]:
    entries = add(entries, entry("opponent", {"player": opponent, "by": "host"}))
    season = replay(entries)
    seats = [season.candidate, opponent]
    entries = add(entries, entry("match_created", {"match": mid, "stage": "death", "game": "joust", "seats": seats}))
    ranking = seats if winner_is_candidate else seats[::-1]
    season = replay(entries)
    return add(entries, *result_entries(season, len(entries) + 1, mid, [str(p) for p in ranking]))


def test_a_death_match_eliminates_its_loser_moves_the_garnets_and_starts_a_round_where_tokens_lapse() -> None:
    entries = main_round(ledger(), "m1", ["p1"], "p2")
    entries = death(entries, "d1", "p3", winner_is_candidate=True)
    season = replay(entries)
    assert season.players["p3"].eliminated_round == 1
    assert season.players["p3"].garnets == 0 and season.players["p2"].garnets == 8
    assert season.round == 2 and season.phase == "main"
    assert season.players["p1"].tokens == 0  # one round only, by default
    assert conservation(season)
    with pytest.raises(LedgerError) as refused:  # never seated again
        add(entries, entry("match_created", {"match": "m2", "stage": "main", "game": "yellow",
                                             "seats": ["p1", "p2", "p3"]}))
    assert refused.value.code == "eliminated"
    kept = replay(death(main_round(ledger(tokens_one_round=False), "m1", ["p1"], "p2"), "d1", "p3", True))
    assert kept.players["p1"].tokens == 1
    off = replay(death(main_round(ledger(loser_garnets_to_winner=False), "m1", ["p1"], "p2"), "d1", "p3", True))
    assert off.players["p3"].garnets == 4 and off.players["p2"].garnets == 4


def test_a_void_undoes_a_result_and_what_followed_and_the_match_is_played_again() -> None:
    entries = main_round(ledger(), "m1", ["p1"], "p2")
    entries = death(entries, "d1", "p3", winner_is_candidate=False)
    assert replay(entries).players["p2"].eliminated_round == 1
    entries = add(entries, entry("void", {"match": "d1"}))
    season = replay(entries)
    assert season.phase == "death" and season.round == 1 and season.players["p2"].alive
    assert season.players["p2"].garnets == 4 and season.players["p3"].garnets == 4
    with pytest.raises(LedgerError):
        add(entries, entry("void", {"match": "d1"}))  # once
    entries = add(entries, entry("match_created", {"match": "d2", "stage": "death", "game": "joust",
                                                   "seats": ["p2", "p3"]}))
    entries = add(entries, *result_entries(replay(entries), len(entries) + 1, "d2", ["p2", "p3"]))
    season = replay(entries)
    assert season.players["p3"].eliminated_round == 1 and season.players["p2"].garnets == 8
    with pytest.raises(LedgerError) as refused:  # only the newest match
        add(entries, entry("void", {"match": "m1"}))
    assert refused.value.code == "bad_void"


def test_a_void_that_would_leave_a_transfer_below_zero_is_refused() -> None:
    entries = main_round(ledger(), "m1", ["p1"], "p2")
    entries = death(entries, "d1", "p3", winner_is_candidate=True)
    entries = add(entries, entry("transfer", {"from": "p2", "to": "p1", "garnets": 8}))  # p3's garnets among them
    with pytest.raises(LedgerError) as refused:
        add(entries, entry("void", {"match": "d1"}))
    assert refused.value.code == "not_enough_garnets"


def test_garnets_staked_in_a_running_main_match_cannot_be_given_and_spending_is_counted() -> None:
    entries = add(ledger(), entry("match_created", {"match": "y", "stage": "main", "game": "yellow",
                                                    "seats": ["p1", "p2", "p3"], "garnets": {"p1": 3}}))
    with pytest.raises(LedgerError):
        add(entries, entry("transfer", {"from": "p1", "to": "p4", "garnets": 2}))
    add(entries, entry("transfer", {"from": "p1", "to": "p4", "garnets": 1}))
    entries = add(entries, *result_entries(replay(entries), len(entries) + 1, "y", ["p2", "p3", "p1"], {"p1": 3}))
    season = replay(entries)
    assert season.players["p1"].garnets == 1 and season.spent == 3 and conservation(season)
    assert season.candidate == "p1" and season.opponent == "p3" and season.players["p2"].tokens == 1


def test_the_final_is_drafted_in_order_and_the_ledger_refuses_a_malformed_or_reordered_history() -> None:
    entries = ledger(n=3)
    entries = main_round(entries, "m1", ["p1"], "p2")
    entries = death(entries, "d1", "p3", winner_is_candidate=True)
    assert replay(entries).phase == "draft"
    entries = add(entries, entry("final_game", {"game": "joust-final", "items": ["inversion", "equaliser", "conceal"]}))
    assert replay(entries).draft_order() == ["p2", "p1"]  # most garnets first
    with pytest.raises(LedgerError):
        add(entries, entry("draft", {"player": "p1", "items": ["conceal"]}))
    with pytest.raises(LedgerError):
        add(entries, entry("draft", {"player": "p2", "items": ["conceal", "inversion"]}))
    entries = add(entries, entry("draft", {"player": "p2", "items": ["conceal"]}))
    with pytest.raises(LedgerError):
        add(entries, entry("draft", {"player": "p1", "items": ["inversion"]}))  # takes the rest
    entries = add(entries, entry("draft", {"player": "p1", "items": ["equaliser", "inversion"]}))
    entries = add(entries, entry("match_created", {"match": "f", "stage": "final", "game": "joust-final",
                                                   "seats": ["p2", "p1"]}))
    entries = add(entries, *result_entries(replay(entries), len(entries) + 1, "f", ["p1", "p2"]))
    season = replay(entries)
    assert season.phase == "over" and season.champion == "p1"
    assert [r["player"] for r in season.standings()] == ["p1", "p2", "p3"]
    assert [r["place"] for r in season.standings()] == [1, 2, 3]
    for broken in (entries[:3] + entries[4:], [dict(entries[0], seq=2)] + entries[1:],
                   [{**entries[1], "kind": "created"}] + entries[1:], entries + [{**entries[-1], "seq": len(entries) + 1}]):
        with pytest.raises(LedgerError):
            replay(broken)
    with pytest.raises(LedgerError):  # a result's consequence written without its result
        replay(entries[:2] + [{**entries[2], "cause": 2, "kind": "round"}])


@pytest.mark.parametrize("rules", [{"finalists": 5}, {"transfers": "secret"}, {"choose_seconds": -1},
                                   {"tokens_one_round": "yes"}, {"surprise": 1}, []])
def test_bad_rules_are_refused_by_name(rules: Any) -> None:
    with pytest.raises(LedgerError) as refused:
        replay(ledger(rules=rules) if False else [{**ledger()[0], "data": {**ledger()[0]["data"], "rules": rules}}])
    assert refused.value.code == "bad_rules"


def test_a_hostile_ledger_is_refused_as_a_ledger_error_never_a_crash() -> None:
    """Mutations of a finished season's ledger (as an import could bring) replay or are
    refused with LedgerError; nothing else escapes."""
    import copy
    import random

    entries = ledger(n=3)
    entries = main_round(entries, "m1", ["p1"], "p2")
    entries = death(entries, "d1", "p3", winner_is_candidate=True)
    rng = random.Random(1)
    odd: list[Any] = [None, 0, -1, 2**70, 1.5, float("nan"), "", "p1", "zz", [], {}, ["p1"], [["p1"]], {"p1": "x"},
                      True, {"player": "p1"}]
    for _ in range(3000):
        mutated = copy.deepcopy(entries)
        e = rng.choice(mutated)
        target = e["data"] if e["data"] and rng.random() < 0.8 else e
        key = rng.choice(sorted(target)) if target else "x"
        target[key] = rng.choice(odd)
        try:
            replay(mutated)
        except LedgerError:
            pass


def test_a_token_that_lasts_the_season_protects_in_black_and_yellow_too() -> None:
    """With tokens for the whole season, the middle seat of a Black and Yellow who holds
    one is not sent to the death match: the last is the candidate and chooses."""

    def yellow_after_a_token(holder: str) -> Season:
        """A first round in which ``holder`` played a season-long token, then a Black and
        Yellow of p1, p2, p3 that p2 wins ahead of p1: the season after it."""
        entries = main_round(ledger(n=5, tokens_one_round=False), "m1", [holder], "p2")
        entries = death(entries, "d1", "p5", winner_is_candidate=True)
        entries = add(entries, entry("match_created", {"match": "y", "stage": "main", "game": "yellow",
                                                       "seats": ["p1", "p2", "p3"]}))
        entries = add(entries, *result_entries(replay(entries), len(entries) + 1, "y", ["p2", "p1", "p3"]))
        return replay(entries)

    season = yellow_after_a_token("p1")
    assert season.candidate == "p3" and season.phase == "choose"
    assert season.eligible_opponents() == ["p4"]
    # the candidate holding one is protected as well: the middle one is the candidate then
    season = yellow_after_a_token("p3")
    assert season.candidate == "p1" and season.phase == "choose" and "p3" not in season.eligible_opponents()
