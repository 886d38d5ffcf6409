"""A person plays a game in the terminal against bots (``blackwhite play``).

Everything drawn for the person comes from their seat's view (``State.view``), the
same filter bots get, so the terminal can show no more than the seat knows.  Chance
events are drawn from ``random.Random(seed)``; the seed is printed so a match can
be played again, and the match record is saved at the end.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ..bots import Bot, decision_for, make_bot_spec
from ..bots.match import bot_rng
from ..engine import (
    TIMEOUT,
    ActionSyntaxError,
    BlackWhiteError,
    Game,
    IllegalActionError,
    State,
    to_record,
)
from .draw import drawer_for

#: ``ismcts`` thinks this long per decision when playing a person
PERSON_BUDGET = 1.0
#: at most this many actions are listed in full at the prompt; longer lists are summarised
LIST_ALL = 24
#: what ``help`` at the prompt adds after the legal actions
HELP_COMMANDS = (
    "Commands: help (this list), board (draw the board again), resign (give up the match). "
    "Ctrl-C or Ctrl-D asks whether to resign; closing the input stops the match unfinished."
)


#: ``help`` lists every legal action up to this many; beyond, one line per kind
HELP_ALL = 60


def help_text(texts: Sequence[str], prefix: str = "") -> str:
    """What ``help`` prints: every legal action when there are few (or when ``help
    PREFIX`` narrows them to few), else one line per kind (first word) with its count
    and an example: a domino turn has some 900 placements, which no one reads."""
    chosen = [t for t in texts if t.lower().startswith(prefix.lower())] if prefix else list(texts)
    if prefix and not chosen:
        return f"No legal action starts with {prefix!r}; type help for them all."
    if len(chosen) <= HELP_ALL:
        return "\n".join(chosen)
    kinds: dict[str, list[str]] = {}
    for t in chosen:
        kinds.setdefault(t.split(" ")[0], []).append(t)
    lines = [f"{len(chosen)} legal actions{f' starting with {prefix!r}' if prefix else ''}, by kind:"]
    for kind, items in kinds.items():
        lines.append(f"  {kind}: {len(items)}, e.g. {items[0]}" if len(items) > 1 else f"  {items[0]}")
    example = next(iter(kinds))
    lines.append(f"Type help and the start of an action to list those only, e.g. help {example}")
    return "\n".join(lines)


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
        self.moves = 0  # actions the person has made (resignation included)
        self.stopped = False  # the person left without finishing (input closed)

    # ----------------------------------------------------------------- loop

    def run(self) -> State:
        c = self.console
        c.print(f"[bold]{escape(self.game.title)}[/] - you are P{self.person + 1} (seat {self.person}); seed {self.seed}")
        for s, bot in sorted(self.bots.items()):
            c.print(f"P{s + 1}: {bot.name}")
        c.print(f"Clock: {escape(self.rule.describe())}" + ("" if self.enforce_clock else " (shown, not enforced)"))
        c.print("Type an action in the game's notation; `help` lists every legal action and the "
                "commands, `board` redraws, `resign` gives up.\n")
        state = self.state
        while True:
            state.play_chance(self.chance)
            self.announce()
            if state.is_over():
                break
            movers = state.to_move()
            bot_seat = next((s for s in movers if s != self.person), None)
            if bot_seat is None:
                if not self.person_move():
                    break
                continue
            try:
                self.bot_move(bot_seat)
            except KeyboardInterrupt:  # Ctrl-C while a bot thinks: the same question
                answer = self._confirm_resign()
                if answer is None:
                    c.print("The match stops here, unfinished (you did not resign).")
                    self.stopped = True
                    break
                if answer:
                    state.apply(self.person, ("resign",))
                    self.moves += 1
        self.finish()
        return state

    def worth_saving(self) -> bool:
        """A record is kept once the person has made a move (or the match is over):
        closing the input at the first prompt leaves no empty record behind."""
        return self.moves > 0 or self.state.is_over()

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
                answer = self._confirm_resign()
                if answer is None:
                    c.print("Input closed: the match stops here, unfinished (you did not resign).")
                    self.stopped = True
                    return False
                if not answer:
                    continue
                text = "resign"
            lowered = text.lower()
            if not text:
                continue
            if lowered in ("help", "?") or lowered.startswith("help "):
                c.print(escape(help_text(texts, text[5:].strip() if lowered.startswith("help ") else "")))
                c.print(HELP_COMMANDS)
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
            self.moves += 1
            c.print(f"[dim]Took {_mmss(time.monotonic() - started)}.[/]")
            if state.is_over():
                return True
            if seat in state.pending:
                c.print("[dim]Submitted; waiting for the others.[/]")
            return not state.ended_by

    def _confirm_resign(self) -> bool | None:
        """After Ctrl-C or Ctrl-D: ask before resigning.  True to resign, False to play
        on, None when the input is closed (or interrupted again): stop without resigning."""
        self.console.print()
        try:
            answer = self.read("Resign this match? (y/N) ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            return None
        return answer in ("y", "yes")

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
            c.print(f"[bold]Stopped, unfinished.[/] Scores so far: {scores}.")
        if res.ranking is not None:
            c.print("Ranking: " + ", ".join(f"P{s + 1}" for s in res.ranking))

    def save(self, path: Path | None) -> Path | None:
        """Write the match record (every event stated, so it replays anywhere) to
        ``path`` (a file, a folder, or None: ./records/).  When that cannot be written
        the record goes to the temporary folder, and failing that to the screen, so a
        played match is never lost.  Returns where it went (None: the screen)."""
        text = json.dumps(to_record(self.state, seats=self.names), indent=1) + "\n"
        target = record_path(path, self.game.id, self.seed)
        fallback = Path(tempfile.gettempdir()) / target.name
        for where in (target, fallback):
            try:
                where.parent.mkdir(parents=True, exist_ok=True)
                where.write_text(text, encoding="utf-8")
                return where
            except OSError as exc:
                self.console.print(Text(f"Cannot write the record to {where}: {exc.strerror or exc}"))
        self.console.print(Text("The match record, to keep by hand:\n" + text))
        return None


def record_path(given: Path | None, game: str, seed: int, now: float | None = None) -> Path:
    """Where a match record goes: ``given`` itself, or a new file in ``given`` when it
    is a folder (``./records/`` when None), named ``GAME-TIME-SEED.json`` and numbered
    when that name is taken, so no earlier record is overwritten."""
    if given is not None and not given.is_dir():
        return given
    folder = given if given is not None else Path("records")
    stem = f"{game}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}-{seed}"
    path = folder / f"{stem}.json"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}.json"
        n += 1
    return path


def check_record_path(given: Path | None) -> None:
    """Refuse, before the match starts, a ``--record`` that cannot be written: a file in a
    folder that does not exist, or a place without write permission (ValueError)."""
    if given is None:
        return
    folder = given if given.is_dir() else given.parent
    if not folder.is_dir():
        raise ValueError(f"--record {given}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (given.is_file() and not os.access(given, os.W_OK)):
        raise ValueError(f"--record {given}: no permission to write there")


def seat_bots(num_seats: int, person: int, vs: Sequence[str]) -> dict[int, Bot]:
    """Bots for every seat but the person's, in seat order; the last named fills the rest."""
    names = [v for spec in vs for v in spec.split(",") if v.strip()] or ["ismcts"]
    others = [s for s in range(num_seats) if s != person]
    if len(names) > len(others):
        raise ValueError(f"{len(names)} bots named for {len(others)} other seat(s)")
    names += [names[-1]] * (len(others) - len(names))
    return {seat: make_bot_spec(spec) for seat, spec in zip(others, names)}
