"""The figures of an arena run: per bot slot, win rate with its Wilson interval, mean
score margin and rank, from the match outcomes alone (so the saved records give them
again), as a rich table or JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from rich.table import Table


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (sound near 0 and 1, unlike p +/- 2se)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Row:
    """One slot's figures over a set of matches."""

    label: str
    games: int = 0
    wins: float = 0.0  # a match without a winner counts half (two seats), else 1/n
    unfinished: int = 0
    margin_sum: float = 0.0
    rank_sum: int = 0
    decisions: float = 0.0
    iterations: float = 0.0
    ci: tuple[float, float] = field(default=(0.0, 1.0))

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def margin(self) -> float:
        return self.margin_sum / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        return self.rank_sum / self.games if self.games else 0.0

    @property
    def sims(self) -> float | None:
        return self.iterations / self.decisions if self.decisions else None


def tabulate(results: Sequence[dict[str, Any]]) -> list[Row]:
    """Per slot: win rate with its Wilson interval, mean score margin, mean rank.

    The margin is the slot's score minus the mean of the other seats' scores.  Works
    from the match outcomes only (winner, scores, ranking by seat name), so the same
    figures can be recomputed from the saved records.
    """
    rows: dict[str, Row] = {}
    for res in results:
        names: list[str] = res["names"]
        n = len(names)
        scores = res["scores"]
        winner = res["winner"]
        ranking = res.get("ranking") or _ranking_from(winner, scores)
        for seat, label in enumerate(names):
            row = rows.setdefault(label, Row(label))
            row.games += 1
            if winner is None:
                row.wins += 0.5 if n == 2 else 1 / n
            elif winner == seat:
                row.wins += 1
            if not res["finished"]:
                row.unfinished += 1
            others = [s for i, s in enumerate(scores) if i != seat]
            row.margin_sum += scores[seat] - sum(others) / len(others)
            row.rank_sum += ranking.index(seat) + 1
            stats = res.get("bot_stats", {}).get(label)
            if stats and "iterations" in stats:
                row.decisions += stats["decisions"]
                row.iterations += stats["iterations"]
    order = _slot_order(results)
    out = sorted(rows.values(), key=lambda r: (order.get(r.label, len(order)), r.label))
    for row in out:
        row.ci = wilson(row.wins, row.games)
    return out


def _slot_order(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Label -> position in the bots as given (``--bots a,b``: a first), from the specs."""
    order: dict[str, int] = {}
    for res in results:
        for label in res.get("spec", {}).get("labels", ()):
            order.setdefault(label, len(order))
    return order


def _ranking_from(winner: int | None, scores: Sequence[int]) -> list[int]:
    order = sorted(range(len(scores)), key=lambda s: -scores[s])
    if winner is not None:
        order.remove(winner)
        order.insert(0, winner)
    return order


def rows_table(rows: Sequence[Row], title: str, seats: int) -> Table:
    table = Table(title=title)
    table.add_column("bot")
    table.add_column("games", justify="right")
    table.add_column("wins", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("mean margin", justify="right")
    if seats > 2:
        table.add_column("mean rank", justify="right")
    table.add_column("sims/decision", justify="right")
    for row in rows:
        cells = [
            row.label,
            str(row.games),
            f"{round(row.wins, 2):g}",
            f"{100 * row.rate:.1f}%",
            f"{100 * row.ci[0]:.1f}-{100 * row.ci[1]:.1f}%",
            f"{row.margin:+.2f}",
        ]
        if seats > 2:
            cells.append(f"{row.mean_rank:.2f}")
        cells.append("" if row.sims is None else f"{row.sims:.0f}")
        table.add_row(*cells)
    return table


def rows_json(rows: Sequence[Row]) -> list[dict[str, Any]]:
    return [
        {
            "bot": r.label,
            "games": r.games,
            "wins": r.wins,
            "win_rate": r.rate,
            "ci95": list(r.ci),
            "mean_margin": r.margin,
            "mean_rank": r.mean_rank,
            "unfinished": r.unfinished,
            "sims_per_decision": r.sims,
        }
        for r in rows
    ]
