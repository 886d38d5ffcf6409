"""The original Black and White of The Genius: the rules (the rules page is rules.md).

Two seats hold the tiles 0-8 (even black, odd white).  Each round the leader plays a
tile face down and both seats see its colour; the other seat answers face down and
both see that colour; the higher number wins the round, and only who won (or a tie)
is announced, never the numbers.  The winner leads the next round (after a tie, the
same leader).  After nine rounds, more rounds won wins the game.

Written against blackwhite's public game API only (``blackwhite.engine``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Mapping, TypedDict

from blackwhite.engine import (
    Action,
    ActionSyntaxError,
    ClockRule,
    CoreView,
    Game,
    IllegalActionError,
    OptionError,
    OptionInfo,
    State,
    TileView,
    colour,
    face_down,
    face_up,
    is_int,
)

TILES = 9
#: the action tag: ``("play", 4)`` is written ``play 4`` (or just ``4``)
PLAY = "play"

Phase = Literal["lead", "answer", "over"]


class RoundView(TypedDict):
    """One finished round as a seat saw it: who led, each seat's tile (face up only for
    the seat's own tile), and who won it (``None``: a tie)."""

    round: int
    leader: int
    tiles: list[TileView]
    winner: int | None


class ClassicPart(TypedDict):
    """The game's own part of a view (``_view``)."""

    game_no: int
    round: int
    phase: Phase
    leader: int | None
    #: rounds won in the current game, per seat
    wins: list[int]
    #: tiles each seat still holds, by colour (public: every colour was shown)
    left: list[dict[str, int]]
    #: the seat's own tiles not yet played, face up (``None`` in the public view)
    my_tiles: list[TileView] | None
    #: the tile led this round, face down for everyone but the leader
    led: TileView | None
    #: this game's finished rounds
    rounds: list[RoundView]
    #: earlier games of the match that were drawn, as "4-4"
    drawn_games: list[str]


class ClassicView(CoreView, ClassicPart):
    """What ``view(seat)`` returns: the core's part and the game's."""


class Classic(Game):
    """The game with its options (the rules page lists them)."""

    id = "classic"
    title = "Black and White (The Genius, original)"
    num_seats = 2
    #: what an action does, in the players' words: the pages label each tile's button
    #: with it and word the prompt from it ("Your move: choose a tile to play face down.")
    action_help: ClassVar[dict[str, str]] = {PLAY: "choose a tile to play face down"}
    option_defaults: ClassVar[dict[str, Any]] = {"first": 0, "early_end": False, "replays": 2}
    #: a shorter match (no replay, ended once decided), and other options worth playing
    small_options: ClassVar[Mapping[str, Any]] = {"early_end": True, "replays": 0}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = ({"first": 1, "dmo": 1}, {"early_end": True})
    option_info: ClassVar[dict[str, OptionInfo]] = {
        "first": OptionInfo("First leader", "The seat that leads the first round of every game.",
                            "choice", choices=((0, "P1"), (1, "P2"))),
        "early_end": OptionInfo(
            "End once decided",
            "End a game as soon as one seat has won more rounds than the other can still reach.",
            "bool",
        ),
        "replays": OptionInfo(
            "Replays of a drawn game",
            "How many times a drawn game is played again before the death-match advantage "
            "wins it (0: the advantage wins a drawn game at once).",
            "number", minimum=0, maximum=5,
        ),
    }
    #: a minute a tile, and three minutes of reserve for the whole match; a seat out of
    #: time has its lowest tile played for it
    clock = ClockRule({"lead": 60.0, "answer": 60.0}, reserve=180.0,
                      on_timeout="the seat's lowest tile is played for it")

    def validate_options(self, options: dict[str, Any]) -> None:
        if options["first"] not in (0, 1) or not is_int(options["first"]):
            raise OptionError(f"option first must be 0 or 1, got {options['first']!r}")
        if not isinstance(options["early_end"], bool):
            raise OptionError(f"option early_end must be true or false, got {options['early_end']!r}")
        replays = options["replays"]
        if not is_int(replays) or not 0 <= replays <= 5:
            raise OptionError(f"option replays must be a whole number 0..5, got {replays!r}")

    def new_initial_state(self) -> ClassicState:
        return ClassicState(self)

    def max_length(self) -> int:
        """Every game is at most nine rounds of two tiles."""
        replays: int = self.options["replays"]
        return 2 * TILES * (1 + replays)

    def action_space(self) -> list[Action]:
        """Every action any seat may ever take: one per tile."""
        return [(PLAY, t) for t in range(TILES)]


class ClassicState(State[ClassicView]):
    """A position: the tiles each seat holds, the round under way and the ones done."""

    game: Classic

    def __init__(self, game: Classic) -> None:
        super().__init__(game)
        self.game_no = 1
        self.drawn_games: list[str] = []
        self._new_game()

    def _new_game(self) -> None:
        self.hands: list[list[int]] = [list(range(TILES)), list(range(TILES))]
        self.wins = [0, 0]
        self.leader = self.game.options["first"]
        self.led: int | None = None  # the tile led this round
        #: (leader, leader's tile, other's tile, winner) of each finished round
        self.done: list[tuple[int, int, int, int | None]] = []
        self.over = False

    def _copy_state(self, new: State[Any]) -> None:
        assert isinstance(new, ClassicState)
        new.hands = [self.hands[0][:], self.hands[1][:]]
        new.wins = self.wins[:]
        new.done = self.done[:]
        new.drawn_games = self.drawn_games[:]

    # ----------------------------------------------------------- whose step

    def awaited(self) -> tuple[int, ...]:
        if self.over:
            return ()
        return (self.leader,) if self.led is None else (1 - self.leader,)

    def clock_phase(self, seat: int) -> str:
        return "lead" if self.led is None else "answer"

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_move():
            return []
        return [(PLAY, t) for t in self.hands[seat]]

    def check(self, seat: int, action: Action) -> None:
        tile = action[1]
        if tile not in self.hands[seat]:
            raise IllegalActionError(
                self.format_action(action),
                f"P{seat + 1} has already played tile {tile}; tiles left: "
                + ", ".join(map(str, self.hands[seat])),
            )

    def timeout_action(self, seat: int) -> Action | None:
        return (PLAY, min(self.hands[seat]))

    # ----------------------------------------------------------- notation

    def parse_action(self, seat: int, text: str) -> Action:
        words = text.strip().lower().split()
        if words and words[0] == PLAY:
            words = words[1:]
        if len(words) != 1 or not words[0].isdigit():
            raise ActionSyntaxError(text, "write the tile to play, e.g. 'play 4' or '4'")
        tile = int(words[0])
        if not 0 <= tile < TILES:
            raise ActionSyntaxError(text, f"tiles are numbered 0 to {TILES - 1}")
        return (PLAY, tile)

    def format_action(self, action: Action) -> str:
        tag, tile = action
        if tag != PLAY or not is_int(tile):
            raise ValueError(f"not an action of classic: {action!r}")
        return f"{PLAY} {tile}"

    # ----------------------------------------------------------- play

    def _do(self, seat: int, action: Action) -> None:
        tile = action[1]
        self.hands[seat].remove(tile)
        if self.track:
            self.note(seat, f"You play {tile}.")
        if self.led is None:
            self.led = tile
            if self.track:
                self.note(None, f"P{seat + 1} leads a {colour(tile)} tile.")
            return
        leader, led = self.leader, self.led
        self.led = None
        winner = None if led == tile else (leader if led > tile else seat)
        self.done.append((leader, led, tile, winner))
        if self.track:
            self.note(None, f"P{seat + 1} answers with a {colour(tile)} tile.")
        if winner is None:
            if self.track:
                self.note(None, f"Round {len(self.done)} is a tie.")
        else:
            self.wins[winner] += 1
            self.leader = winner
            if self.track:
                self.note(None, f"P{winner + 1} wins round {len(self.done)}.")
        self._end_of_round()

    def _end_of_round(self) -> None:
        left = TILES - len(self.done)
        w0, w1 = self.wins
        decided = self.game.options["early_end"] and (w0 > w1 + left or w1 > w0 + left)
        if left and not decided:
            return
        if w0 != w1:
            self.over = True
            if self.track:
                self.note(None, f"P{(0 if w0 > w1 else 1) + 1} wins the game {max(w0, w1)}-{min(w0, w1)}.")
            return
        self.drawn_games.append(f"{w0}-{w1}")
        if len(self.drawn_games) > self.game.options["replays"]:
            self.over = True
            if self.track:
                self.note(None, f"Game {self.game_no} is drawn {w0}-{w1}: the death-match advantage "
                                f"(P{self.game.dmo + 1}) wins.")
            return
        if self.track:
            self.note(None, f"Game {self.game_no} is drawn {w0}-{w1}: it is played again.")
        self.game_no += 1
        self._new_game()

    # ----------------------------------------------------------- result

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> tuple[int, ...]:
        return (self.wins[0], self.wins[1])

    def winner(self) -> int | None:
        w0, w1 = self.wins
        if w0 == w1:
            return self.game.dmo
        return 0 if w0 > w1 else 1

    # ----------------------------------------------------------- what a seat knows

    def _view(self, seat: int | None) -> ClassicPart:
        def shown(owner: int, tile: int) -> TileView:
            return face_up(tile) if owner == seat else face_down(colour(tile))

        rounds: list[RoundView] = [
            {"round": i + 1, "leader": leader,
             "tiles": [shown(0, led if leader == 0 else answer), shown(1, led if leader == 1 else answer)],
             "winner": winner}
            for i, (leader, led, answer, winner) in enumerate(self.done)
        ]
        left = []
        for hand in self.hands:
            black = sum(1 for t in hand if t % 2 == 0)
            left.append({"black": black, "white": len(hand) - black})
        phase: Phase = "over" if self.over else ("lead" if self.led is None else "answer")
        return {
            "game_no": self.game_no,
            "round": len(self.done) + (0 if self.over else 1),
            "phase": phase,
            "leader": None if self.over else self.leader,
            "wins": self.wins[:],
            "left": left,
            "my_tiles": [face_up(t) for t in sorted(self.hands[seat])] if seat is not None else None,
            "led": None if self.led is None else shown(self.leader, self.led),
            "rounds": rounds,
            "drawn_games": self.drawn_games[:],
        }
