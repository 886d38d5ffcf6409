"""``blackwhite play``: a person plays a game in the terminal against bots.

Everything drawn for the person comes from their seat's view (``State.view``), the
same filter bots get, so the terminal can show no more than the seat knows.  Chance
events are drawn from ``random.Random(seed)``; the seed is printed so a match can
be played again, and the match record is saved at the end.
"""

from __future__ import annotations

import importlib
import json
import random
import re
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import typer
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .bots import Bot, decision_for, make_bot_spec
from .bots.match import bot_rng
from .engine import (
    TIMEOUT,
    ActionSyntaxError,
    BlackWhiteError,
    Game,
    IllegalActionError,
    State,
    make_game,
    to_record,
)

#: ``ismcts`` thinks this long per decision when playing a person
PERSON_BUDGET = 1.0
#: at most this many actions are listed in full at the prompt; longer lists are summarised
LIST_ALL = 24


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["dmo=1", "show_colours=true"]`` -> ``{"dmo": 1, "show_colours": True}`` (JSON
    values where they parse, text otherwise)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad option {pair!r}; write key=value")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


# --------------------------------------------------------------------------- drawing


def _tile_text(tile: Any, colour: Any, revealed: bool) -> str:
    if tile is None:
        body = "?" + ("" if colour is None else colour[0].upper())
    else:
        body = f"{tile}{'B' if tile % 2 == 0 else 'W'}"
    return f"[{body}]" if revealed else body


def draw_swapping(view: dict[str, Any]) -> RenderableType:
    """Both rows by position: ``4B`` my unrevealed black 4, ``[5W]`` revealed, ``?`` unknown."""
    table = Table(title=f"Swapping - game {view['game_no']}, phase {view['phase']}")
    table.add_column("")
    for p in range(9):
        table.add_column(str(p + 1), justify="center")
    me = view["seat"]
    mine = ["." if c is None else _tile_text(c["tile"], None, c["revealed"]) for c in view["my_row"]]
    theirs = [
        "." if c is None else _tile_text(c["tile"], c["colour"], c["revealed"]) for c in view["their_row"]
    ]
    table.add_row(f"P{me + 1} (you)", *map(Text, mine))
    table.add_row(f"P{2 - me}", *map(Text, theirs))
    lines: list[RenderableType] = [table]
    if view["my_unplaced"]:
        lines.append(Text(f"Your unplaced tiles: {' '.join(map(str, view['my_unplaced']))}"))
    if view["totals"]:
        totals = ", ".join(f"{a}-{b}" for a, b in view["totals"])
        lines.append(Text(f"Running totals after each play round (P1-P2): {totals}"))
    if view["past_games"]:
        lines.append(Text(f"Tied games so far: {view['past_games']}"))
    lines.append(Text("B = black (even), W = white (odd), [..] = revealed, ? = unknown"))
    return _group(lines)


def draw_yellow(view: dict[str, Any]) -> RenderableType:
    """Everything is public: one line per seat."""
    table = Table(title=f"Black and Yellow - round {view['round'] + 1} of {view['max_rounds']}")
    for col in ("seat", "points", "yellow", "garnets", "black inventory", "last play"):
        table.add_column(col)
    last = view["last_plays"]
    for s in range(3):
        who = f"P{s + 1}" + (" (you)" if s == view["seat"] else "")
        table.add_row(
            who,
            str(view["points"][s]),
            str(view["yellow"][s]),
            str(view["garnets"][s]),
            " ".join(map(str, view["inventories"][s])),
            "" if last is None else str(last[s]),
        )
    return table


#: drawers for games whose modules have no ``draw_board`` of their own
LOCAL_DRAWERS: dict[str, Callable[[dict[str, Any]], RenderableType]] = {
    "swapping": draw_swapping,
    "yellow": draw_yellow,
}

_COMMON = {"game", "seat", "options", "log", "to_move", "submitted", "my_pending", "finished", "winner"}


def draw_generic(view: dict[str, Any]) -> RenderableType:
    """Any game: the view's fields as a two-column table (structured, not pretty)."""
    table = Table(title=f"{view['game']} - what P{view['seat'] + 1} knows", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    for key, value in view.items():
        if key in _COMMON:
            continue
        table.add_row(key, Text(_compact(value)))
    return table


def _compact(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list) and all(isinstance(v, list) for v in value) and value:
        return "\n".join(json.dumps(v) for v in value)
    return value if isinstance(value, str) else json.dumps(value)


def drawer_for(game: Game) -> Callable[[dict[str, Any]], RenderableType]:
    """The game module's ``draw_board(view)`` if it has one, else ours, else generic."""
    module = importlib.import_module(type(game).__module__)
    own = getattr(module, "draw_board", None)
    if callable(own):
        def draw(view: dict[str, Any]) -> RenderableType:
            board = own(view)
            return Text(board) if isinstance(board, str) else board  # text, never markup

        return draw
    return LOCAL_DRAWERS.get(game.id, draw_generic)


def _group(parts: list[RenderableType]) -> RenderableType:
    return Group(*parts)


def summarise_actions(texts: Sequence[str], limit: int = LIST_ALL) -> str:
    """The legal actions for the prompt: all when few; else per kind (first word) a count
    and examples when there are few kinds; else a count and examples."""
    if len(texts) <= limit:
        return " · ".join(texts)
    more = "   (type `help` for the full list)"
    kinds: dict[str, list[str]] = {}
    for t in texts:
        kinds.setdefault(t.split(" ")[0], []).append(t)
    if len(kinds) > 6:
        return f"{' · '.join(texts[:3])} ... {texts[-1]} ({len(texts)} actions){more}"
    parts = []
    for kind, items in kinds.items():
        if len(items) <= 6:
            parts.append(" · ".join(items))
        else:
            parts.append(f"{' · '.join(items[:3])} ... {items[-1]} ({len(items)} `{kind}` actions)")
    return " · ".join(parts) + more


# --------------------------------------------------------------------------- the clock


def _mmss(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    return f"{s // 60}:{s % 60:02d}"


# --------------------------------------------------------------------------- the match


class TerminalMatch:
    """One person against bots.  ``read`` is the input function (tests pass their own)."""

    def __init__(
        self,
        game: Game,
        person: int,
        bots: dict[int, Bot],
        seed: int,
        budget: float = PERSON_BUDGET,
        console: Console | None = None,
        read: Callable[[str], str] | None = None,
        enforce_clock: bool = False,
        name: str = "You",
    ) -> None:
        self.game = game
        self.state: State = game.new_initial_state()
        self.person = person
        self.bots = bots
        self.seed = seed
        self.budget = budget
        self.console = console or Console(highlight=False)
        self.read = read or self.console.input
        self.chance = random.Random(seed)
        self.rngs = {seat: bot_rng(seed, seat) for seat in bots}
        self.shown = 0  # log lines of the person's view already printed
        self.draw = drawer_for(game)
        self.rule = game.clock_rule()
        self.per_move: float | None = None  # seconds for the move being asked (its phase)
        self.reserve: float | None = self.rule.reserve or None
        self.enforce_clock = enforce_clock
        self.names = [name if s == person else f"{bots[s].name} (bot)" for s in range(game.num_seats)]

    # ----------------------------------------------------------------- loop

    def run(self) -> State:
        c = self.console
        c.print(f"[bold]{escape(self.game.title)}[/] - you are P{self.person + 1} (seat {self.person}); seed {self.seed}")
        for s, bot in sorted(self.bots.items()):
            c.print(f"P{s + 1}: {bot.name}")
        c.print(f"Clock: {escape(self.rule.describe())}" + ("" if self.enforce_clock else " (shown, not enforced)"))
        c.print("Type an action in the game's notation; `help` lists every legal action, "
                "`board` redraws, `resign` gives up.\n")
        state = self.state
        while True:
            state.play_chance(self.chance)
            self.announce()
            if state.is_over():
                break
            movers = state.to_move()
            bot_seat = next((s for s in movers if s != self.person), None)
            if bot_seat is not None:
                self.bot_move(bot_seat)
            elif not self.person_move():
                break
        self.finish()
        return state

    def announce(self) -> None:
        log = self.state.view(self.person)["log"]
        for line in log[self.shown:]:
            self.console.print(f"[cyan]>[/] {escape(line)}")
        self.shown = len(log)

    def bot_move(self, seat: int) -> None:
        bot = self.bots[seat]
        state = self.state
        simultaneous = state.simultaneous()
        decision = decision_for(state, seat, self.rngs[seat], self.budget)
        with self.console.status(f"P{seat + 1} ({bot.name}) is thinking..."):
            action = bot.choose(decision)
        state.apply(seat, action)
        if simultaneous:
            self.console.print(f"[dim]P{seat + 1} has submitted its choice (secret until all are in).[/]")

    def person_move(self) -> bool:
        """Prompt until an action is accepted; False when the person quits (resigned)."""
        c = self.console
        state = self.state
        seat = self.person
        view = state.view(seat)
        c.print()
        c.print(self.draw(view))
        legal = state.legal_actions(seat)
        texts = [state.format_action(a) for a in legal]
        started = time.monotonic()
        self.per_move = self.rule.seconds(state.clock_phase(seat))
        while True:
            c.print(f"[bold]Legal:[/] {escape(summarise_actions(texts))}")
            if self.per_move is not None:
                clock = f"{_mmss(self.per_move)} for this move"
                if self.reserve is not None:
                    clock += f", reserve {_mmss(self.reserve)}"
                c.print(f"[dim]Clock: {clock}; {_mmss(time.monotonic() - started)} used so far[/]")
            try:
                text = self.read(f"P{seat + 1}> ").strip()
            except (EOFError, KeyboardInterrupt):
                c.print("\nInput closed: you resign.")
                state.apply(seat, ("resign",))
                self.announce()
                return False
            lowered = text.lower()
            if not text:
                continue
            if lowered in ("help", "?"):
                c.print(escape("\n".join(texts)))
                continue
            if lowered == "board":
                c.print(self.draw(state.view(seat)))
                continue
            if lowered == "timeout":
                c.print("[red]Refused:[/] `timeout` is the clock's to call, not yours.")
                continue
            try:
                action = state.parse(seat, text)
                if self.enforce_clock and self._out_of_time(time.monotonic() - started):
                    c.print("[red]Time is up:[/] the game's clock rule applies.")
                    state.apply(seat, TIMEOUT)
                else:
                    state.apply(seat, action)
            except ActionSyntaxError as exc:
                c.print(f"[red]Not understood:[/] {escape(str(exc))}")
                continue
            except IllegalActionError as exc:
                c.print(f"[red]Refused:[/] {escape(exc.reason)}")
                continue
            except BlackWhiteError as exc:
                c.print(f"[red]Refused:[/] {escape(str(exc))}")
                continue
            c.print(f"[dim]Took {_mmss(time.monotonic() - started)}.[/]")
            if state.is_over():
                return True
            if seat in state.pending:
                c.print("[dim]Submitted; waiting for the others.[/]")
            return not state.ended_by

    def _out_of_time(self, used: float) -> bool:
        """Charge the move against the clock; True when the reserve is gone."""
        assert self.per_move is not None
        over = used - self.per_move
        if over <= 0:
            return False
        if self.reserve is None:
            return True
        self.reserve -= over
        return self.reserve < 0

    def finish(self) -> None:
        c = self.console
        state = self.state
        self.announce()
        c.print()
        c.print(self.draw(state.view(self.person)))
        res = state.result()
        scores = ", ".join(f"P{i + 1} {s}" for i, s in enumerate(res.scores))
        if res.finished:
            who = "nobody" if res.winner is None else f"P{res.winner + 1} ({self.names[res.winner]})"
            reason = f" ({escape(res.reason)})" if res.reason else ""
            c.print(f"[bold]Game over.[/] Winner: {escape(who)}. Scores: {scores}.{reason}")
        else:
            c.print(f"[bold]Stopped.[/] Scores so far: {scores}.")
        if res.ranking is not None:
            c.print("Ranking: " + ", ".join(f"P{s + 1}" for s in res.ranking))

    def save(self, path: Path | None) -> Path:
        """Write the match record (every event stated, so it replays anywhere)."""
        if path is None:
            path = Path("records") / f"{self.game.id}-{time.strftime('%Y%m%d-%H%M%S')}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(to_record(self.state, seats=self.names), indent=1) + "\n", encoding="utf-8")
        return path


def seat_bots(num_seats: int, person: int, vs: Sequence[str]) -> dict[int, Bot]:
    """Bots for every seat but the person's, in seat order; the last named fills the rest."""
    names = [v for spec in vs for v in spec.split(",") if v.strip()] or ["ismcts"]
    others = [s for s in range(num_seats) if s != person]
    if len(names) > len(others):
        raise ValueError(f"{len(names)} bots named for {len(others)} other seat(s)")
    names += [names[-1]] * (len(others) - len(names))
    return {seat: make_bot_spec(spec) for seat, spec in zip(others, names)}


def _seat_number(text: str, num_seats: int) -> int:
    t = text.strip().upper()
    seat = int(t[1:]) - 1 if t.startswith("P") else int(t)
    if not 0 <= seat < num_seats:
        raise ValueError(f"seat {text} does not exist; seats are 0..{num_seats - 1} (P1..P{num_seats})")
    return seat


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to the CLI."""

    @app.command()
    def play(
        game: str = typer.Argument(..., help="Game id (see `blackwhite rules`)."),
        seat: str = typer.Option("0", "--seat", help="Your seat: 0..n-1, or P1..Pn."),
        vs: list[str] = typer.Option(
            [], "--vs", help="Bot(s) for the other seats in seat order (repeat or comma-separate); "
            "default ismcts. Settings as name:key=value."
        ),
        option: list[str] = typer.Option([], "--option", "-o", help="Game option key=value (repeatable)."),
        seed: Optional[int] = typer.Option(None, "--seed", help="Seed for chance events (default: random)."),
        budget: float = typer.Option(PERSON_BUDGET, "--budget", help="Seconds a search bot may think per decision."),
        record: Optional[Path] = typer.Option(None, "--record", help="Where to save the match record (default ./records/)."),
        clock: bool = typer.Option(False, "--clock", help="Enforce the game's clock (timeouts apply its rule)."),
        name: str = typer.Option("You", "--name", help="Your name in the record."),
    ) -> None:
        """Play a game in the terminal against bots."""
        err = Console(stderr=True, highlight=False)
        try:
            g = make_game(game, parse_options(option))
            person = _seat_number(seat, g.num_seats)
            bots = seat_bots(g.num_seats, person, vs)
        except (BlackWhiteError, ValueError, TypeError, KeyError) as exc:
            err.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(2) from None
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        match = TerminalMatch(g, person, bots, seed, budget, enforce_clock=clock, name=name)
        try:
            match.run()
        finally:
            path = match.save(record)
            match.console.print(Text(f"Record saved: {path}"))


def main() -> None:
    """``python -m blackwhite.terminal play GAME ...`` (the same command as ``blackwhite play``)."""
    app = typer.Typer(add_completion=False, no_args_is_help=True)

    @app.callback()
    def _root() -> None:
        """Play Black & White games in the terminal."""

    register(app)
    app()


if __name__ == "__main__":
    main()
