"""Running an arena: bots play many matches, seats rotated (``blackwhite arena``).

Every match is fully determined by its spec (game, options, who sits where, seed,
budget), so the same run can go to a local process pool (the default), stay in
this process (``--workers 1``), or go to a Ray cluster (``--ray ADDRESS``; Ray is an
optional extra, imported only then).  Workers return the match record; the driver
writes it, so records land on this machine wherever the match was played.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..bots import make_bot_spec, parse_bot_spec, spec_budget
from ..bots.match import play_match
from ..engine import make_game, to_record
from .results import Row, rows_json, tabulate

RAY_HINT = "Ray is not installed; it is an optional extra: pip install 'blackwhite[ray]'"


class ArenaError(ValueError):
    """A run that cannot start (bad bots for the game, Ray missing...)."""


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class MatchSpec:
    """One match: ``lineup[seat]`` is the slot (index into ``bots``) sitting there."""

    index: int
    game: str
    options: dict[str, Any]
    bots: tuple[str, ...]  # bot spec per slot
    labels: tuple[str, ...]  # unique name per slot (the record's seat names)
    lineup: tuple[int, ...]
    seed: int
    budget: float
    group: str = ""  # which table the match belongs to (benchmarks run several at once)


def slot_labels(bots: Sequence[str]) -> list[str]:
    """Unique seat names for the slots: the bot name, numbered when it repeats."""
    names = [parse_bot_spec(b)[0] for b in bots]
    out = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            out.append(f"{name}#{names[: i + 1].count(name)}")
        else:
            out.append(name)
    return out


def expand_bots(bots: Sequence[str], seats: int) -> list[str]:
    """Fill a game's seats from the bots given: ``a,b`` in a 3-seat game is ``a,b,b``
    (one of ``a`` against two of ``b``), the fair reading of a two-bot comparison."""
    if not bots:
        raise ArenaError("name at least one bot")
    if len(bots) > seats:
        raise ArenaError(f"{len(bots)} bots named but the game has {seats} seats")
    return list(bots) + [bots[-1]] * (seats - len(bots))


def make_specs(
    game: str,
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    budget: float = 0.05,
    options: dict[str, Any] | None = None,
    group: str = "",
    first_index: int = 0,
) -> list[MatchSpec]:
    """``games`` matches with seats rotated: match ``i`` uses rotation ``i % seats``.

    The ``seats`` rotations of a block share one seed, so each deal is played once from
    every seat (paired matches cut the luck of the draw out of the comparison).
    """
    n = make_game(game, options or {}).num_seats
    slots = expand_bots(bots, n)
    for spec in slots:
        bot = make_bot_spec(spec)  # fail now on a bad name or setting, not in a worker
        check = getattr(bot, "check_game", None)  # a solved policy: fail now on another game
        if check is not None:
            check(game, options or {})
    labels = tuple(slot_labels(slots))
    out = []
    for i in range(games):
        rot = i % n
        lineup = tuple((seat + rot) % n for seat in range(n))
        out.append(
            MatchSpec(
                first_index + i, game, dict(options or {}), tuple(slots), labels, lineup,
                seed + i // n, budget, group,
            )
        )
    return out


# --------------------------------------------------------------------------- playing


def run_match(spec: MatchSpec) -> dict[str, Any]:
    """Play one match (in whatever process) and return its outcome and record."""
    game = make_game(spec.game, spec.options)
    bots = [make_bot_spec(spec.bots[slot]) for slot in spec.lineup]
    start = time.perf_counter()
    # a budget or an iteration cap in a bot's own spec is its own, over --budget
    budgets = [spec_budget(spec.bots[slot], spec.budget) for slot in spec.lineup]
    state = play_match(game, bots, spec.seed, budgets)
    result = state.result()
    names = [spec.labels[slot] for slot in spec.lineup]
    stats = {}
    for seat, bot in enumerate(bots):
        bot_stats = getattr(bot, "stats", None)
        if bot_stats:
            stats[spec.labels[spec.lineup[seat]]] = dict(bot_stats)
    return {
        "spec": asdict(spec),
        "names": names,
        "finished": result.finished,
        "winner": result.winner,
        "scores": list(result.scores),
        "ranking": None if result.ranking is None else list(result.ranking),
        "seconds": time.perf_counter() - start,
        "bot_stats": stats,
        "record": to_record(state, seats=names),
    }


def run_specs(
    specs: Sequence[MatchSpec],
    workers: int = 0,
    ray_address: str | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Play every spec: in this process (``workers == 1``), a process pool, or on Ray.

    Results come back in spec order; ``on_result`` sees each as it finishes.
    """
    if ray_address is not None:
        stream: Iterable[dict[str, Any]] = _ray_stream(specs, ray_address)
    elif workers == 1 or len(specs) <= 1:
        stream = map(run_match, specs)
    else:
        stream = _pool_stream(specs, workers or os.cpu_count() or 1)
    results = []
    for res in stream:
        if on_result is not None:
            on_result(res)
        results.append(res)
    results.sort(key=lambda r: r["spec"]["index"])
    return results


def _pool_stream(specs: Sequence[MatchSpec], workers: int) -> Iterator[dict[str, Any]]:
    # longest-first would need a cost model; chunksize 1 keeps both cores busy to the end
    with multiprocessing.get_context("fork").Pool(min(workers, len(specs))) as pool:
        yield from pool.imap_unordered(run_match, specs, chunksize=1)


def _ray_stream(specs: Sequence[MatchSpec], address: str) -> Iterator[dict[str, Any]]:
    """Every spec as a Ray task on the cluster at ``address`` (``auto``: the one this
    machine runs).  The connection is closed after the run, unless the caller had
    connected already (then it is the caller's to close)."""
    try:
        import ray
    except ImportError:
        raise ArenaError(RAY_HINT) from None
    ours = not ray.is_initialized()
    ray.init(address=address, ignore_reinit_error=True)
    try:
        remote = ray.remote(run_match)
        waiting = [remote.remote(spec) for spec in specs]
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if ours:
            ray.shutdown()


# --------------------------------------------------------------------------- running a whole arena


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def save_results(out: Path, results: Sequence[dict[str, Any]], meta: dict[str, Any]) -> None:
    """Every match's record as ``records/match-NNNN.json``, and ``summary.json``."""
    records = out / "records"
    records.mkdir(parents=True, exist_ok=True)
    summary = []
    for res in results:
        index = res["spec"]["index"]
        path = records / f"match-{index:04d}.json"
        path.write_text(json.dumps(res["record"], indent=1) + "\n", encoding="utf-8")
        entry = {k: v for k, v in res.items() if k != "record"}
        entry["record"] = str(path.relative_to(out))
        summary.append(entry)
    rows = tabulate(results)
    data = {**meta, "table": rows_json(rows), "matches": summary}
    (out / "summary.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def output_dir(out: Path | None, game: str, now: float | None = None) -> Path:
    """The folder a run writes to, made and checked before any match is played.

    The default, ``arena/GAME-TIME``, gets a ``-2``, ``-3``... suffix when a run that
    started in the same second has it already; a ``--out`` folder that holds another
    run's ``summary.json`` is refused rather than overwritten.  Raises ArenaError
    when the folder cannot be made or written.
    """
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        base = Path("arena") / f"{game}-{stamp}"
        for n in range(1, 1000):
            target = base if n == 1 else base.with_name(f"{base.name}-{n}")
            try:
                target.mkdir(parents=True, exist_ok=False)
            except FileExistsError:
                continue
            except OSError as exc:
                raise ArenaError(f"cannot make the output folder {target}: {exc.strerror or exc}") from None
            break
        else:
            raise ArenaError(f"too many runs named {base}; give --out")
    else:
        target = out
        if (target / "summary.json").exists():
            raise ArenaError(f"{target} already holds an arena run (summary.json); give another --out")
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ArenaError(f"cannot make the output folder {target}: {exc.strerror or exc}") from None
    probe = target / ".write-test"
    try:
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise ArenaError(f"cannot write in the output folder {target}: {exc.strerror or exc}") from None
    return target


def check_run(games: int, workers: int, budget: float) -> None:
    """Refuse a run that cannot mean anything before a match starts (ArenaError)."""
    if games < 1:
        raise ArenaError(f"--games must be at least 1, got {games}")
    if workers < 0:
        raise ArenaError(f"--workers must be 0 (one per core), 1 (in this process) or more, got {workers}")
    if not (budget > 0 and math.isfinite(budget)):
        raise ArenaError(f"--budget is seconds per decision and must be above 0, got {budget:g}")


def run_arena(
    game: str,
    bots: Sequence[str],
    games: int,
    workers: int = 0,
    budget: float = 0.05,
    seed: int = 0,
    out: Path | None = None,
    options: dict[str, Any] | None = None,
    ray_address: str | None = None,
    console: Console | None = None,
) -> tuple[list[Row], list[dict[str, Any]]]:
    """Play, show progress, save records and summary under ``out``; return the table rows."""
    console = console or Console()
    check_run(games, workers, budget)
    specs = make_specs(game, bots, games, seed, budget, options)
    with progress_bar(console) as progress:
        task = progress.add_task(f"{game}: {' vs '.join(bots)}", total=len(specs))
        results = run_specs(specs, workers, ray_address, lambda _: progress.advance(task))
    if out is not None:
        meta = {
            "game": game,
            "bots": list(bots),
            "games": games,
            "budget": budget,
            "seed": seed,
            "options": options or {},
            "workers": workers,
            "ray": ray_address,
        }
        save_results(out, results, meta)
    return tabulate(results), results


def check_ray() -> None:
    """ArenaError saying how to install Ray when it is missing (``--ray``)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ArenaError(RAY_HINT) from None
