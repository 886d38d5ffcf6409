"""A season's ledger and its replay: the standings are a pure function of the entries.

A season's whole history is a list of entries, each ``{"seq", "kind", "data", "at",
"by"}``, appended and never edited (a correction is a new entry).  :func:`replay` folds
them, in order, into a :class:`Season`, checking each one against the season as the
entries before it left it: a transfer below zero, a token holder chosen as opponent, an
eliminated player seated again are refused by raising :class:`LedgerError`.  The store
appends an entry only if the whole ledger with it still replays, in one transaction per
season, so every process applies the same entries in the same order and a stored
ledger always replays to the standings everyone was shown.

This module is pure (no database, no clock, no server): the service, the export and
import, the simulation and the tests all use the same fold.

Voids: a ``void`` entry names a match; that match's ``match_created`` and
``match_finished`` entries and every entry they caused (``"cause": seq``) then count
for nothing, and the round is back where it was before the match was made, so the host
can make it again.  Only the season's newest match can be voided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping

#: the most garnets a player can hold (a bound on numbers, far above any season)
MAX_GARNETS = 1_000_000
#: the most players in a season's cast
MAX_CAST = 64
#: the fewest players in a cast: two finalists and one death match at least
MIN_CAST = 3
#: the most entries a season's ledger may hold (a bound on what a replay costs)
MAX_ENTRIES = 50_000
#: transfers one player may make in one round (so no cast member can fill the ledger)
MAX_TRANSFERS = 10
TRANSFER_VISIBILITY = ("public", "host")
STAGES = ("main", "death", "final")
Stage = Literal["main", "death", "final"]
#: what the season waits for next
Phase = Literal["main", "main_running", "choose", "death", "death_running", "draft", "final", "final_running", "over"]
KINDS = (
    "created", "round", "award", "adjust", "spend", "transfer", "token", "candidate", "opponent",
    "match_created", "match_finished", "garnets_moved", "eliminated", "final_game", "draft", "champion", "void",
)


class LedgerError(ValueError):
    """An entry that the season as it stands does not allow (nothing is appended)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Rules:
    """A season's rules, fixed when it is created."""

    #: the death match's loser's garnets go to its winner
    loser_garnets_to_winner: bool = True
    #: a Token of Life protects for the round it was won in only (else until the season ends)
    tokens_one_round: bool = True
    #: players left when the death matches stop and the final is drafted
    finalists: int = 2
    #: who may read each player's garnets: everyone who may read the season, or the hosts only
    transfers: str = "public"
    #: seconds the candidate has to choose an opponent (then only a host may)
    choose_seconds: float = 86_400.0

    def to_json(self) -> dict[str, Any]:
        return {"loser_garnets_to_winner": self.loser_garnets_to_winner, "tokens_one_round": self.tokens_one_round,
                "finalists": self.finalists, "transfers": self.transfers, "choose_seconds": self.choose_seconds}

    @classmethod
    def of(cls, raw: Any) -> "Rules":
        """Rules from JSON, every field checked; a field left out takes its default."""
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise LedgerError("bad_rules", "rules must be an object")
        known = set(cls().to_json())
        unknown = sorted(set(raw) - known)
        if unknown:
            raise LedgerError("bad_rules", f"unknown rule {unknown[0]!r}; rules: {', '.join(sorted(known))}")
        out = cls()
        for name in ("loser_garnets_to_winner", "tokens_one_round"):
            if name in raw and not isinstance(raw[name], bool):
                raise LedgerError("bad_rules", f"rule {name} is true or false, got {raw[name]!r}")
        finalists = raw.get("finalists", out.finalists)
        if isinstance(finalists, bool) or not isinstance(finalists, int) or finalists != 2:
            raise LedgerError("bad_rules", f"rule finalists is 2 (the finals are two-seat games), got {finalists!r}")
        transfers = raw.get("transfers", out.transfers)
        if transfers not in TRANSFER_VISIBILITY:
            raise LedgerError("bad_rules", f"rule transfers is one of {', '.join(TRANSFER_VISIBILITY)}, "
                                           f"got {transfers!r}")
        seconds = raw.get("choose_seconds", out.choose_seconds)
        if (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds)
                or not 0 < seconds <= 30 * 86_400):
            raise LedgerError("bad_rules", f"rule choose_seconds is a number of seconds in (0, 2592000], "
                                           f"got {seconds!r}")
        return cls(bool(raw.get("loser_garnets_to_winner", out.loser_garnets_to_winner)),
                   bool(raw.get("tokens_one_round", out.tokens_one_round)), finalists, str(transfers),
                   float(seconds))


@dataclass
class PlayerState:
    """One cast member as the ledger leaves them."""

    player: str
    name: str
    garnets: int
    tokens: int = 0
    eliminated_round: int | None = None
    #: garnets in a running main match (not transferable until it ends)
    staked: int = 0
    #: the final's items this player drafted
    items: tuple[str, ...] = ()

    @property
    def alive(self) -> bool:
        return self.eliminated_round is None


@dataclass
class MatchState:
    """A season match as the ledger knows it."""

    match: str
    stage: Stage
    game: str
    round: int
    #: the players by seat
    seats: tuple[str, ...]
    external: bool
    created_seq: int
    finished: bool = False
    winner: str | None = None
    ranking: tuple[str, ...] | None = None
    #: garnets staked per player (a Black and Yellow run on the server)
    staked: dict[str, int] = field(default_factory=dict)


@dataclass
class Season:
    """What the ledger says now: players, the round, the phase, the matches."""

    name: str
    rules: Rules
    starting_garnets: int
    host: str
    players: dict[str, PlayerState]
    round: int = 1
    phase: Phase = "main"
    candidate: str | None = None
    candidate_deadline: float | None = None
    opponent: str | None = None
    matches: dict[str, MatchState] = field(default_factory=dict)
    #: match ids in the order they were made (voided ones left out)
    order: list[str] = field(default_factory=list)
    final_game: str | None = None
    #: the final's items not yet drafted (the first picker picks one, the other takes the rest)
    items_left: tuple[str, ...] = ()
    drafted: list[str] = field(default_factory=list)
    champion: str | None = None
    #: cast members who are players of the server (they log in and act for themselves)
    logins: dict[str, bool] = field(default_factory=dict)
    #: running totals, for the conservation check: starting + awarded - spent = held
    awarded: int = 0
    spent: int = 0
    #: seq of the last entry that counted
    seq: int = 0
    #: transfers each player made this round
    transfers: dict[str, int] = field(default_factory=dict)

    # ------------------------------------------------------------------ reading

    def alive(self) -> list[str]:
        return [p for p, s in self.players.items() if s.alive]

    def held(self) -> int:
        return sum(s.garnets for s in self.players.values())

    def running_match(self) -> MatchState | None:
        """The match the season waits on (made, not finished), if any."""
        for mid in reversed(self.order):
            m = self.matches[mid]
            if not m.finished:
                return m
        return None

    def eligible_opponents(self) -> list[str]:
        """Whom the candidate may choose: players still in without a token (if everyone
        else holds one, anyone still in)."""
        others = [p for p in self.alive() if p != self.candidate]
        free = [p for p in others if self.players[p].tokens == 0]
        return free or others

    def draft_order(self) -> list[str]:
        """The finalists in draft order: most garnets first; equal garnets, the one who
        was named earlier in the cast."""
        cast = list(self.players)
        return sorted(self.alive(), key=lambda p: (-self.players[p].garnets, cast.index(p)))

    def standings(self) -> list[dict[str, Any]]:
        """A row per player, best first: ``player``, ``name``, ``garnets``, ``tokens``,
        ``eliminated_round`` (None while in) and ``place`` from 1.  The champion is first,
        the other finalists next (by garnets), then the eliminated, the last eliminated
        first; players still in are ranked by garnets, then tokens, then cast order."""
        cast = list(self.players)

        def key(p: str) -> tuple[int, int, int, int, int, int]:
            s = self.players[p]
            return (0 if p == self.champion else 1, 0 if s.alive else 1, -(s.eliminated_round or 0),
                    -s.garnets, -s.tokens, cast.index(p))

        rows = []
        for place, p in enumerate(sorted(cast, key=key), start=1):
            s = self.players[p]
            rows.append({"player": p, "name": s.name, "garnets": s.garnets, "tokens": s.tokens,
                         "eliminated_round": s.eliminated_round, "place": place})
        return rows

    def summary(self) -> dict[str, Any]:
        """The season's state as JSON (what a page and the API show, before secrecy)."""
        running = self.running_match()
        return {
            "name": self.name, "rules": self.rules.to_json(), "starting_garnets": self.starting_garnets,
            "round": self.round, "phase": self.phase, "candidate": self.candidate,
            "candidate_deadline": self.candidate_deadline, "opponent": self.opponent,
            "eligible_opponents": self.eligible_opponents() if self.phase == "choose" else [],
            "running_match": running.match if running else None, "final_game": self.final_game,
            "items_left": list(self.items_left), "drafted": list(self.drafted), "draft_order": self.draft_order() if self.phase == "draft" else [],
            "champion": self.champion, "seq": self.seq,
        }


def _player(season: Season, data: Mapping[str, Any], key: str = "player", alive: bool = False) -> str:
    p = data.get(key)
    if not isinstance(p, str) or p not in season.players:
        raise LedgerError("not_in_cast", f"{key} {p!r} is not in the season's cast")
    if alive and not season.players[p].alive:
        raise LedgerError("eliminated", f"{season.players[p].name} was eliminated in round "
                                        f"{season.players[p].eliminated_round}")
    return p


def _amount(data: Mapping[str, Any], key: str = "garnets", signed: bool = False) -> int:
    n = data.get(key)
    if isinstance(n, bool) or not isinstance(n, int) or abs(n) > MAX_GARNETS or (n <= 0 and not signed) or n == 0:
        sign = "a non-zero whole number" if signed else "a whole number above 0"
        raise LedgerError("bad_garnets", f"{key} must be {sign} of at most {MAX_GARNETS}, got {n!r}")
    return n


def _new_round(season: Season) -> None:
    """The next round: tokens lapse if they last one round; the main match is awaited."""
    season.round += 1
    season.transfers.clear()
    season.candidate = season.opponent = None
    season.candidate_deadline = None
    if season.rules.tokens_one_round:
        for s in season.players.values():
            s.tokens = 0
    season.phase = "draft" if len(season.alive()) <= season.rules.finalists else "main"


def _create(data: Mapping[str, Any]) -> Season:
    name = data.get("name")
    if not isinstance(name, str) or not 0 < len(name) <= 100:
        raise LedgerError("bad_season", "a season's name is 1 to 100 characters")
    start = data.get("garnets", 0)
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= MAX_GARNETS:
        raise LedgerError("bad_garnets", f"starting garnets are a whole number 0..{MAX_GARNETS}, got {start!r}")
    cast = data.get("cast")
    if not isinstance(cast, list) or not MIN_CAST <= len(cast) <= MAX_CAST:
        raise LedgerError("bad_cast", f"a cast is a list of {MIN_CAST} to {MAX_CAST} players")
    players: dict[str, PlayerState] = {}
    for member in cast:
        if not isinstance(member, Mapping) or not isinstance(member.get("player"), str) \
                or not isinstance(member.get("name"), str) or not member["player"] or not member["name"]:
            raise LedgerError("bad_cast", "each cast member is {\"player\": id, \"name\": display name}")
        if member["player"] in players:
            raise LedgerError("bad_cast", f"player {member['player']!r} is in the cast twice")
        players[member["player"]] = PlayerState(member["player"], member["name"], start)
    rules = Rules.of(data.get("rules"))
    host = data.get("host")
    logins = {str(m["player"]): bool(m.get("login")) for m in cast}
    return Season(name, rules, start, str(host or ""), players, logins=logins)


def _need(season: Season, *phases: str) -> None:
    if season.phase not in phases:
        raise LedgerError("wrong_phase", f"the season is at {season.phase!r} (round {season.round}); "
                                         f"this needs {' or '.join(repr(p) for p in phases)}")


def _apply(season: Season, entry: Mapping[str, Any]) -> None:
    """Apply one (not voided) entry to ``season`` or raise :class:`LedgerError`."""
    kind, data, at = entry["kind"], entry.get("data") or {}, float(entry.get("at") or 0.0)
    if season.phase == "over" and kind not in ("award", "adjust", "transfer"):
        raise LedgerError("season_over", "the season is over")
    if kind == "round":
        # only ever written by the fold's own consequences (after a death match)
        raise LedgerError("bad_entry", "a round begins by itself after a death match")
    elif kind == "award":
        p = _player(season, data)
        n = _amount(data)
        season.players[p].garnets += n
        season.awarded += n
    elif kind == "adjust":  # a host's correction: garnets given or taken back
        p = _player(season, data)
        n = _amount(data, signed=True)
        s = season.players[p]
        if s.garnets - s.staked + n < 0:
            raise LedgerError("not_enough_garnets", f"{s.name} has {s.garnets - s.staked} garnets free; "
                                                     f"cannot take {-n}")
        s.garnets += n
        season.awarded += n
    elif kind == "spend":
        p = _player(season, data)
        n = _amount(data)
        s = season.players[p]
        if n > s.garnets:
            raise LedgerError("not_enough_garnets", f"{s.name} holds {s.garnets} garnets; cannot spend {n}")
        s.garnets -= n
        season.spent += n
    elif kind == "transfer":
        src, dst = _player(season, data, "from"), _player(season, data, "to", alive=True)
        if src == dst:
            raise LedgerError("bad_transfer", "a transfer goes to another player")
        n = _amount(data)
        s = season.players[src]
        if n > s.garnets - s.staked:
            raise LedgerError("not_enough_garnets", f"{s.name} has {s.garnets - s.staked} garnets to give; "
                                                     f"cannot give {n}")
        if season.transfers.get(src, 0) >= MAX_TRANSFERS:
            raise LedgerError("too_many_transfers", f"{s.name} has made {MAX_TRANSFERS} transfers this round, "
                                                     "the most a round allows")
        season.transfers[src] = season.transfers.get(src, 0) + 1
        s.garnets -= n
        season.players[dst].garnets += n
    elif kind == "garnets_moved":  # the death match's loser's garnets, by the rules
        src, dst = _player(season, data, "from"), _player(season, data, "to")
        n = _amount(data)
        if n > season.players[src].garnets:
            raise LedgerError("not_enough_garnets", "more garnets moved than the loser held")
        season.players[src].garnets -= n
        season.players[dst].garnets += n
    elif kind == "token":
        p = _player(season, data, alive=True)
        season.players[p].tokens += 1
    elif kind == "candidate":
        _need(season, "main")
        p = _player(season, data, alive=True)
        if season.players[p].tokens and any(season.players[q].tokens == 0 for q in season.alive()):
            raise LedgerError("token_holder", f"{season.players[p].name} holds a Token of Life")
        season.candidate = p
        season.candidate_deadline = at + season.rules.choose_seconds
        season.phase = "choose"
    elif kind == "opponent":
        _need(season, "choose")
        p = _player(season, data, alive=True)
        by = data.get("by")
        if by not in ("candidate", "host", "result"):
            raise LedgerError("bad_entry", "an opponent is chosen by the candidate, a host or a result")
        if by == "candidate" and season.candidate_deadline is not None and at > season.candidate_deadline:
            raise LedgerError("too_late", "the candidate's time to choose has run out; a host chooses now")
        if p not in season.eligible_opponents():
            raise LedgerError("not_eligible", f"{season.players[p].name} cannot be chosen: "
                                              + ("a Token of Life protects them" if season.players[p].tokens
                                                 else "that is the candidate"))
        season.opponent = p
        season.phase = "death"
    elif kind == "match_created":
        _match_created(season, entry, data)
    elif kind == "match_finished":
        _match_finished(season, data)
    elif kind == "eliminated":
        p = _player(season, data, alive=True)
        season.players[p].eliminated_round = season.round
        season.players[p].tokens = 0
    elif kind == "final_game":
        _need(season, "draft")
        game, items = data.get("game"), data.get("items")
        if not isinstance(game, str) or not isinstance(items, list) or len(items) < 2 \
                or not all(isinstance(i, str) for i in items) or len(set(items)) != len(items):
            raise LedgerError("bad_final", "a final is a game with two or more distinct items")
        if season.drafted:
            raise LedgerError("wrong_phase", "the draft has begun: the final's game is set")
        season.final_game, season.items_left = game, tuple(items)
    elif kind == "draft":
        _draft(season, data)
    elif kind == "champion":
        _need(season, "final_running")
        p = _player(season, data, alive=True)
        season.champion = p
        season.phase = "over"
    elif kind == "created":
        raise LedgerError("bad_entry", "a season is created once, by its first entry")
    else:
        raise LedgerError("bad_entry", f"unknown entry kind {kind!r}")


def _draft(season: Season, data: Mapping[str, Any]) -> None:
    _need(season, "draft")
    if season.final_game is None:
        raise LedgerError("wrong_phase", "a host sets the final's game before the draft")
    order = season.draft_order()
    turn = order[len(season.drafted)] if len(season.drafted) < len(order) else None
    p = _player(season, data, alive=True)
    if p != turn:
        raise LedgerError("not_your_turn", f"it is {season.players[turn].name}'s pick" if turn else "the draft is over")
    items = data.get("items")
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items) or len(set(items)) != len(items):
        raise LedgerError("bad_items", "a pick is a list of distinct item names")
    last = len(season.drafted) == len(order) - 1
    if last:
        if sorted(items) != sorted(season.items_left):
            raise LedgerError("bad_items", f"the last finalist takes the rest: {', '.join(season.items_left)}")
    elif len(items) != 1 or items[0] not in season.items_left:
        raise LedgerError("bad_items", f"pick one item of {', '.join(season.items_left)}")
    season.players[p].items = tuple(items)
    season.items_left = tuple(i for i in season.items_left if i not in items)
    season.drafted.append(p)
    if last:
        season.phase = "final"


def _match_created(season: Season, entry: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    mid, stage, game = data.get("match"), data.get("stage"), data.get("game")
    if not isinstance(mid, str) or not mid or mid in season.matches:
        raise LedgerError("bad_match", f"match id {mid!r} is missing or already in the season")
    if stage not in STAGES or not isinstance(game, str) or not game:
        raise LedgerError("bad_match", "a match has a stage (main, death, final) and a game")
    seats = data.get("seats")
    if not isinstance(seats, list) or not seats:
        raise LedgerError("bad_match", "a match's seats are a list of players")
    players = [_player(season, {"player": p}, alive=True) for p in seats]
    if len(set(players)) != len(players):
        raise LedgerError("bad_match", "a player is seated twice")
    external = bool(data.get("external", False))
    staked: dict[str, int] = {}
    if stage == "main":
        _need(season, "main")
        if season.running_match() is not None:
            raise LedgerError("wrong_phase", "the round's main match is already under way")
        raw = data.get("garnets") or {}
        if not isinstance(raw, Mapping):
            raise LedgerError("bad_match", "garnets staked are {player: number}")
        for p, n in raw.items():
            _player(season, {"player": p})
            if isinstance(n, bool) or not isinstance(n, int) or n < 0 or p not in players:
                raise LedgerError("bad_match", "garnets staked are whole numbers for seated players")
            s = season.players[p]
            if n > s.garnets - s.staked:
                raise LedgerError("not_enough_garnets", f"{s.name} holds {s.garnets - s.staked} free garnets")
            if n:
                staked[p] = n
                s.staked += n
        season.phase = "main_running"
    elif stage == "death":
        _need(season, "death")
        if sorted(players) != sorted([season.candidate or "", season.opponent or ""]):
            raise LedgerError("bad_match", "a death match seats the candidate and the chosen opponent")
        season.phase = "death_running"
    else:
        _need(season, "final")
        if sorted(players) != sorted(season.alive()):
            raise LedgerError("bad_match", "the final seats the finalists")
        if game != season.final_game:
            raise LedgerError("bad_match", f"the final is {season.final_game}, as drafted")
        season.phase = "final_running"
    season.matches[mid] = MatchState(mid, stage, game, season.round, tuple(players), external,
                                     int(entry.get("seq") or 0), staked=staked)
    season.order.append(mid)


def _match_finished(season: Season, data: Mapping[str, Any]) -> None:
    mid = data.get("match")
    m = season.matches.get(mid) if isinstance(mid, str) else None
    if m is None or m.finished:
        raise LedgerError("bad_match", f"match {mid!r} is not a running match of the season")
    ranking = data.get("ranking")
    if not isinstance(ranking, list) or sorted(ranking) != sorted(m.seats):
        raise LedgerError("bad_result", "a result ranks every seated player, best first")
    m.finished, m.ranking, m.winner = True, tuple(ranking), ranking[0]
    for p, n in m.staked.items():
        season.players[p].staked -= n
    if m.stage == "main":
        season.phase = "main"  # the result's token and candidate entries follow
    elif m.stage == "death":
        season.phase = "death_running"  # the elimination and the next round follow
    else:
        season.phase = "final_running"


def _consequence(season: Season, entry: Mapping[str, Any]) -> None:
    """Entries a result caused (``cause``): applied like any other, plus ``round``."""
    if entry["kind"] in ("match_created", "match_finished", "void"):
        raise LedgerError("bad_entry", f"a {entry['kind']} entry is caused by nothing")
    if entry["kind"] == "round":
        _need(season, "death_running")
        _new_round(season)
    else:
        _apply(season, entry)


def voided(entries: Iterable[Mapping[str, Any]]) -> dict[int, set[int]]:
    """Per ``void`` entry (by seq), the seqs it makes count for nothing: the named match's
    ``match_created`` and ``match_finished`` entries and whatever they caused."""
    entries = list(entries)
    out: dict[int, set[int]] = {}
    for entry in entries:
        if entry["kind"] != "void":
            continue
        mid = (entry.get("data") or {}).get("match")
        gone: set[int] = set()
        for other in entries:
            if other["seq"] >= entry["seq"]:
                break
            data = other.get("data") or {}
            if other["kind"] in ("match_created", "match_finished") and data.get("match") == mid:
                gone.add(int(other["seq"]))
            elif other.get("cause") in gone:
                gone.add(int(other["seq"]))
        out[int(entry["seq"])] = gone
    return out


def replay(entries: Iterable[Mapping[str, Any]]) -> Season:
    """Fold a ledger into its season, checking every entry (:class:`LedgerError` names
    the first that does not fit, by its seq)."""
    entries = list(entries)
    if not entries:
        raise LedgerError("bad_ledger", "a ledger begins with its season's creation")
    if len(entries) > MAX_ENTRIES:
        raise LedgerError("too_many_entries", f"a season's ledger holds at most {MAX_ENTRIES} entries")
    for i, entry in enumerate(entries, start=1):
        if not isinstance(entry, Mapping) or entry.get("seq") != i or entry.get("kind") not in KINDS \
                or not isinstance(entry.get("data", {}), Mapping) \
                or not isinstance(entry.get("cause"), (int, type(None))) or isinstance(entry.get("cause"), bool) \
                or not isinstance(entry.get("at", 0), (int, float)) or isinstance(entry.get("at", 0), bool):
            raise LedgerError("bad_ledger", f"entry {i} is not an entry numbered {i} of a known kind")
        cause = entry.get("cause")
        if cause is not None and not 0 < cause < i:
            raise LedgerError("bad_ledger", f"entry {i} names a cause that is not an earlier entry")
    first = entries[0]
    if first["kind"] != "created":
        raise LedgerError("bad_ledger", "a ledger begins with its season's creation")
    try:
        season = _create(first.get("data") or {})
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        if isinstance(exc, LedgerError):
            raise
        raise LedgerError("bad_season", f"entry 1 (created) is malformed: {type(exc).__name__}") from None
    season.seq = 1
    voids = voided(entries)
    gone: set[int] = set()
    for seq, of in voids.items():  # each void names the newest match still counted (checked before the fold)
        made = [e["seq"] for e in entries[:seq - 1] if e["kind"] == "match_created" and e["seq"] not in gone]
        if not of or max(made, default=0) > min(of):
            mid = (entries[seq - 1].get("data") or {}).get("match")
            raise LedgerError("bad_void", f"entry {seq} (void): match {mid!r} cannot be voided: "
                                          + ("a later match was made since" if of else "no such match"))
        gone |= of
    seen_voids: set[str] = set()
    for entry in entries[1:]:
        seq = int(entry["seq"])
        try:
            if entry["kind"] == "void":
                _void(season, entry, voids[seq], seen_voids)
            elif seq in gone:
                pass
            elif entry.get("cause") is not None:
                _consequence(season, entry)
            else:
                _apply(season, entry)
        except LedgerError as exc:
            raise LedgerError(exc.code, f"entry {seq} ({entry['kind']}): {exc.message}") from None
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # a hand-made or hostile ledger
            raise LedgerError("bad_entry", f"entry {seq} ({entry['kind']}) is malformed: {type(exc).__name__}") \
                from None
        season.seq = seq
    return season


def _void(season: Season, entry: Mapping[str, Any], gone: set[int], seen: set[str]) -> None:
    """Check a void as the fold reaches it: it names a match of the season, once, and
    the season's newest (no match was made after it).  The voided entries were skipped,
    so the season is as it was before the match was made."""
    mid = (entry.get("data") or {}).get("match")
    if not isinstance(mid, str) or not gone or mid in seen:
        raise LedgerError("bad_void", f"no match {mid!r} to void in the season")
    first = min(gone)
    if any(m.created_seq > first for m in season.matches.values()):
        raise LedgerError("bad_void", f"match {mid} cannot be voided: a later match was made since")
    seen.add(mid)
    if season.phase == "over":
        raise LedgerError("season_over", "the season is over")


def conservation(season: Season) -> bool:
    """starting + awarded - spent = held."""
    return season.starting_garnets * len(season.players) + season.awarded - season.spent == season.held()


# ---------------------------------------------------------------------- building entries
# What a result writes, built from the season as the ledger has it at the moment of the
# append (under the season's lock): ``seq`` is the seq the first entry built will get.


def entry(kind: str, data: dict[str, Any], cause: int | None = None) -> dict[str, Any]:
    """An entry to append (its seq, moment and author are filled in by the store)."""
    out: dict[str, Any] = {"kind": kind, "data": data}
    if cause is not None:
        out["cause"] = cause
    return out


def result_entries(season: Season, seq: int, match_id: str, ranking: list[str],
                   spent: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """A season match's result and what follows from it by the rules:

    - main match run on the server (Black and Yellow): garnets spent, a Token of Life to
      the winner, the last becomes the candidate and the middle one their opponent (who
      holds the death match's advantage);
    - death match: the loser's garnets to the winner (if the rules say so), the loser
      eliminated, the next round;
    - final: the winner is the season's champion.
    """
    m = season.matches.get(match_id)
    if m is None or m.finished:
        raise LedgerError("bad_match", f"match {match_id!r} is not a running match of the season")
    out = [entry("match_finished", {"match": match_id, "ranking": list(ranking)})]
    cause = seq
    if m.stage == "main":
        for p, n in sorted((spent or {}).items()):
            if n:
                out.append(entry("spend", {"player": p, "garnets": n, "match": match_id}, cause))
        out.append(entry("token", {"player": ranking[0]}, cause))
        if len(ranking) >= 3:
            # the last is the candidate and the middle one the opponent, unless a Token of Life
            # (one that lasts the season) protects one of them: then the other is the candidate
            # and chooses an opponent as after any main match
            tokens = {p: season.players[p].tokens + (p == ranking[0]) for p in season.alive()}
            bare = [p for p in reversed(ranking[1:]) if tokens[p] == 0]
            candidate = bare[0] if bare else ranking[-1]
            out.append(entry("candidate", {"player": candidate}, cause))
            other = [p for p in ranking[1:] if p != candidate][-1]
            if tokens[other] == 0:
                out.append(entry("opponent", {"player": other, "by": "result"}, cause))
    elif m.stage == "death":
        winner, loser = ranking[0], ranking[-1]
        held = season.players[loser].garnets
        if season.rules.loser_garnets_to_winner and held:
            out.append(entry("garnets_moved", {"from": loser, "to": winner, "garnets": held, "match": match_id},
                             cause))
        out.append(entry("eliminated", {"player": loser, "match": match_id}, cause))
        out.append(entry("round", {"round": season.round + 1}, cause))
    else:
        out.append(entry("champion", {"player": ranking[0], "match": match_id}, cause))
    return out


def recorded_main(season: Season, seq: int, match_id: str, game: str, seats: list[str], tokens: list[str],
                  candidate: str, awards: Mapping[str, int], note: str = "") -> list[dict[str, Any]]:
    """A main match played elsewhere, as its host enters it: who played, who won a Token
    of Life, the garnets each won, and the Elimination Candidate."""
    if candidate in tokens:
        raise LedgerError("token_holder", "the candidate cannot also win a Token of Life")
    for p in [*tokens, candidate, *seats]:
        _player(season, {"player": p}, alive=True)
    if not tokens or len(set(tokens)) != len(tokens) or any(p not in seats for p in [*tokens, candidate]):
        raise LedgerError("bad_result", "the token winners (one or more, each once) and the candidate are "
                                        "players of the match")
    if any(not isinstance(n, int) or isinstance(n, bool) or n < 0 or p not in seats for p, n in awards.items()):
        raise LedgerError("bad_result", "garnets won are whole numbers for players of the match")
    awards = {p: n for p, n in awards.items() if n}
    created = entry("match_created", {"match": match_id, "stage": "main", "game": game, "seats": seats,
                                      "external": True, "note": note})
    finished = entry("match_finished", {"match": match_id, "ranking": [*tokens, *[p for p in seats if p not in tokens]]})
    cause = seq + 1
    out = [created, finished]
    for p, n in sorted(awards.items()):
        out.append(entry("award", {"player": p, "garnets": n, "match": match_id}, cause))
    for p in tokens:
        out.append(entry("token", {"player": p}, cause))
    out.append(entry("candidate", {"player": candidate}, cause))
    return out
