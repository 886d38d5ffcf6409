"""The research observations as first written, kept as the oracle of the fast ones.

Each game's ``observation_entries`` writes its floats straight at each block's offset
(:mod:`blackwhite.games.tensor_layout` appends them in order, one call a float, which
cost more than the view it encodes).  These classes keep the first, plainer versions:
blocks appended in layout order through :class:`Tensor` and :class:`BlockWriter`,
which check every index against its block and the total against the layout.
``tests/test_encoding_reference.py`` asserts the two give the same tensor on every
position of seeded random matches; change both together, or neither.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from blackwhite.games import domino_encoding as dm
from blackwhite.games import grouping_encoding as gr
from blackwhite.games import joust_encoding as jo
from blackwhite.games import swapping_encoding as sw
from blackwhite.games import yellow_encoding as ye
from blackwhite.games.tensor_layout import BlockWriter, Tensor


class SwappingReference(sw.SwappingEncoding):
    """swapping's observation as first written (blocks appended through the layout helpers)."""

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        n = self.tiles
        seat = view["seat"]
        a = 0 if seat is None else seat
        sides = (a, 1 - a)
        out = Tensor(self.observation_shape[0])
        out.flags((seat == 0, seat == 1, seat is None))
        out.one_hot(sw.PHASES.index(view["phase"]), 4)
        out.one_hot(view["game_no"] - 1, self.max_ties)
        past = view["past_games"]
        for g in range(self.max_ties - 1):
            for s in sides:
                out.value(past[g][s] / n if g < len(past) else 0.0)
        out.one_hot(view["play_round"], self.rounds + 1)
        out.one_hot(view["swap_step"], n + 1)
        totals = view["totals"]
        for k in range(self.rounds):
            for s in sides:
                out.value(totals[k][s] / n if k < len(totals) else 0.0)
        out.flag(view["show_colours"])
        for key in ("swappers", "to_move", "submitted"):
            out.flags(s in view[key] for s in sides)
        pending = view["my_pending"]
        if pending is None:
            out.one_hot(None, self.num_distinct_actions)
        else:
            out.one_hot(self.encode(sw._parse(pending)), self.num_distinct_actions)
        out.flag(view["finished"])
        out.flags(view["winner"] == s for s in sides)
        scores = view["scores"]
        out.flag(scores is not None)
        for s in sides:
            out.value(scores[s] / n if scores is not None else 0.0)
        if seat is None:
            rows = [view["rows"][0], view["rows"][1]]
            reveals = [view["reveals"][0], view["reveals"][1]]
            swaps = view["swaps"] or [None, None]
        else:
            own = [
                None if c is None else {"tile": c["tile"], "colour": None, "revealed": c["revealed"]}
                for c in view["my_row"]
            ]
            rows = [own, view["their_row"]]
            reveals = [view["my_reveals"], view["their_reveals"]]
            theirs = view["their_swaps"]
            swaps = [view["my_swaps"], theirs]
        for row in rows:
            for cell in row:
                if cell is None:  # an empty position: only its "empty" flag is set
                    out.flag(True)
                    out.skip(n + 3)
                    continue
                tile, col = cell["tile"], cell["colour"]
                if tile is not None:
                    col = "black" if tile % 2 == 0 else "white"
                out.flag(False)
                out.one_hot(tile, n)
                out.flags((col == "black", col == "white"))
                out.flag(cell["revealed"])
        for shown in reveals:
            for entry in shown[:n]:
                out.one_hot(entry["tile"], n)
            out.skip(n * (n - len(shown[:n])))
        for made in swaps:
            done = [] if made is None else made[:n]
            for pair in done:
                out.one_hot(None if pair is None else pair[0] - 1, n)
                out.one_hot(None if pair is None else pair[1] - 1, n)
            out.skip(2 * n * (n - len(done)))
        return out.entries()


class DominoReference(dm.DominoEncoding):
    """domino's observation as first written (blocks appended through the layout helpers)."""

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        seat = view["seat"]
        a = 0 if seat is None else seat
        sides = (a, 1 - a)
        k = self.max_placements
        out = Tensor(self.observation_shape[0])
        out.flags((seat == 0, seat == 1, seat is None))
        out.one_hot(dm.PHASES.index(view["phase"]), len(dm.PHASES))
        for key in ("dmo", "first", "turn", "last_placer"):
            out.flags(view[key] == s for s in sides)
        out.flag(view["finished"])
        out.flags(view["winner"] == s for s in sides)
        for s in sides:
            out.value(view["points"][s] / (dm.MAX_GAIN * k))
        d = len(self.dominoes)
        if seat is None:
            counts = view["unused_counts"]
            out.value(counts[0] / d)
            out.value(counts[1] / d)
            out.one_hot(None, d)
        else:
            out.value(len(view["my_unused"]) / d)
            out.value(view["their_unused_count"] / d)
            mine = {(x, y) for x, y in view["my_unused"]}
            out.flags(dm.DOMINOES[i] in mine for i in self.dominoes)
        board = view["board"]
        for g in self.cells:
            cell = board[dm.NAMES[g]]
            if cell is None:  # an empty cell: only its "empty" flag is set
                out.flag(True)
                out.skip(self.numbers + 7)
                continue
            out.flag(False)
            out.flags(cell["seat"] == s for s in sides)
            out.one_hot(cell["number"], self.numbers + 1)
            colour = cell["colour"]
            out.flags((colour == "black", colour == "white"))
            out.flag(cell["hidden"])
            out.value((cell["placement"] + 1) / k)
        made = view["placements"][:k]
        for pl in made:
            out.flag(True)
            out.flags(pl["seat"] == s for s in sides)
            out.flags(letter in pl["met"] for letter in "HVDB")
            out.value(pl["points"] / dm.MAX_GAIN)
        out.skip(8 * (k - len(made)))
        return out.entries()


class YellowReference(ye.YellowEncoding):
    """yellow's observation as first written (blocks appended through the layout helpers)."""

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        seat = view["seat"]
        a = 0 if seat is None else seat
        sides = (a, (a + 1) % 3, (a + 2) % 3)
        out = Tensor(self.observation_shape[0])
        out.flags((seat == 0, seat == 1, seat == 2, seat is None))
        out.one_hot(view["round"], self.rounds + 1)
        for s in sides:
            counts = [0] * ye.VALUES
            for v in view["inventories"][s]:
                counts[v] += 1
            for c in counts:
                out.value(float(c))
            out.one_hot(view["yellow"][s], ye.VALUES)
            out.one_hot(min(view["points"][s], self.target), self.target + 1)
            out.value(view["garnets"][s] / ye.MAX_GARNETS)
            out.one_hot(view["garnet_priority"].index(s), 3)
            out.flag(s in view["to_move"])
            out.flag(s in view["submitted"])
        last = view["last_plays"]
        for s in sides:
            out.one_hot(None if last is None else last[s], ye.VALUES)
        pending = view["my_pending"]
        out.one_hot(None if pending is None else self._pending_code(pending), self.num_distinct_actions)
        out.flag(view["finished"])
        ranking = view.get("ranking") if view["finished"] else None
        for s in sides:
            out.one_hot(None if ranking is None else ranking.index(s), 3)
        subs = view["submissions"]
        per_sub = 4 + ye.VALUES
        for k in range(self.rounds):
            if k >= len(subs):  # rounds not played yet: nothing to write
                out.skip(3 * per_sub)
                continue
            for s in sides:
                sub = subs[k][s]
                out.flag(sub is not None)
                if sub is None:
                    out.skip(per_sub - 1)
                    continue
                steps = "".join("b" if w == "boost" else "x" for w in sub["steps"])
                index = self._step_index.get(ye.canonical(steps))
                out.value(1.0 if index is None else (index + 1) / len(self.steps))
                out.value(steps.count("b") / max(self.boosts, 1))
                out.value(steps.count("x") / (self.boosts + 1))
                out.one_hot(sub["play"], ye.VALUES)
        return out.entries()


class GroupingReference(gr.GroupingEncoding):
    """grouping's observation as first written (blocks appended through the layout helpers)."""

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        w = self.blocks.writer()
        put = w.put
        seat = view["seat"]
        put("seat", 2 if seat is None else seat)
        put("phase", gr.PHASES.index(view["phase"]))
        if view["finished"]:
            put("finished", 0)
        if view["winner"] is not None:
            put("winner", view["winner"])
        numbers = (view["set"], view["groups_set"], view["rounds_played"], view["ante"],
                   view.get("proposals_left", 0))
        for i, x in enumerate(numbers):
            put("numbers", i, x)
        put("deal", view["deal"] - 1)
        if view["round"] is not None:
            put("round", view["round"] - 1)
        if view["sudden_death"]:
            put("sudden", 0)
        for s in (0, 1):
            put("chips", s, view["chips"][s])
            put("bets", s, view["bets"][s])
            if view["acted"][s]:
                put("acted", s)
        put("chooser", view["chooser"])
        if view["first_choice"] is not None:
            put("first_choice", 0 if view["first_choice"] == "first" else 1)
        for key in ("starter", "to_act"):
            if view[key] is not None:
                put(key, view[key])
        for s in view["to_move"]:
            put("to_move", s)
        for s in view["submitted"]:
            put("submitted", s)
        if view["see_own_tile"]:
            put("see_own_tile", 0)
        if view["proposal"] is not None:
            put("proposal", view["proposal"]["by"])
            put("proposal", 2, view["proposal"]["ante"])
        if seat is not None:
            self._own(view, put)
        self._items(view, seat, put)
        self._deals(view, seat, put)
        self._rounds(view, seat, put)
        return w.entries()

    def _deals(self, view: Mapping[str, Any], seat: int | None, put: Callable[..., None]) -> None:
        """What the view says of every dealt position of the groups in force."""
        for d, deal in enumerate(view["deals"]):
            if seat is None:
                by_seat = deal["seats"]
            else:
                by_seat = [deal["theirs"], deal["theirs"]]
                by_seat[seat] = deal["mine"]
            for s in (0, 1):
                for p, entry in enumerate(by_seat[s]):
                    base = ((d * 2 + s) * gr.TILES + p) * gr.POS_FEATURES
                    put("deals", base)
                    put("deals", base + (1 if entry["colour"] == "black" else 2))
                    if entry["tile"] is not None:
                        put("deals", base + 3 + entry["tile"])
                    if entry["eight"] is not None:
                        put("deals", base + 3 + gr.TILES + (0 if entry["eight"] else 1))
                    if entry["revealed"]:
                        put("deals", base + 5 + gr.TILES)

    def _rounds(self, view: Mapping[str, Any], seat: int | None, put: Callable[..., None]) -> None:
        """The settled rounds of the set whose groups are in force and of the set before
        it (what everyone was told, and the tiles this seat saw by folding or peeking)."""
        gset = view["groups_set"]
        seen = {(e["set"], e["deal"], e["round"]): e["tile"] for e in view["seen"]} if seat is not None else {}
        per_set = self.DEALS * gr.TILES
        for r in view["rounds"]:
            back = gset - r["set"]
            if not 0 <= back <= 1:
                continue
            slot = back * per_set + (r["deal"] - 1) * gr.TILES + (r["round"] - 1)
            base = slot * gr.ROUND_FEATURES
            put("rounds", base)
            at = base + 1
            for s in (0, 1):
                put("rounds", at + 2 * s + (0 if r["colours"][s] == "black" else 1))
            at += 4
            put("rounds", at + gr.HOWS.index(r["how"]))
            at += 3
            if r["folder"] is not None:
                put("rounds", at + r["folder"])
            at += 2
            if r["tiles"] is not None:
                for s in (0, 1):
                    put("rounds", at + gr.TILES * s + r["tiles"][s])
            at += 2 * gr.TILES
            if r["winner"] is not None:
                put("rounds", at + r["winner"])
            at += 2
            for s in (0, 1):
                put("rounds", at + s, r["bets"][s])
            at += 2
            put("rounds", at, r["ante"])
            put("rounds", at + 1, r["penalty"])
            at += 2
            for s in (0, 1):
                put("rounds", at + s, r["chips"][s])
            at += 2
            if r["starter"] is not None:
                put("rounds", at + r["starter"])
            at += 2
            tile = seen.get((r["set"], r["deal"], r["round"]))
            if tile is not None:
                put("rounds", at + tile)


class JoustReference(jo.JoustEncoding):
    """joust's observation as first written (blocks appended through the layout helpers)."""

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        """The flat tensor of ``view`` (layout on the rules page)."""
        w = self.blocks.writer()
        seat = view["seat"]
        w.put("seat", 2 if seat is None else seat)
        w.put("phase", jo.PHASES.index(view["phase"]))
        w.put("set", self._set_index(view["set"]))
        w.put("favoured", view["favoured"])
        for s in (0, 1):
            w.put("chips", s, float(view["chips"][s]))
            w.put("points", s, float(view["points"][s]))
            w.put("tiles_in_hand", s, float(view["tiles_in_hand"][s]))
        for s in view["to_move"]:
            w.put("to_move", s)
        for s in view["submitted"]:
            w.put("submitted", s)
        if view["finished"]:
            w.put("finished", 0)
        if view["winner"] is not None:
            w.put("winner", view["winner"])
        if view["concealed"]:
            w.put("concealed", 0)
        self._items(w, view["items"], seat)
        self._auction(w, view["auction"])
        self._joust(w, view["joust"])
        if view["keep"] is not None:
            for v in view["keep"]["leftovers"]:
                w.put("keep", self._vi(v))
        self._pending(w, view["my_pending"])
        prices = {(a["set"], a["group"], a["label"]): a["price"] for a in view["auctions"]}
        for lot in view["lots"]:
            self._lot(w, lot, prices)
        for tile in view["my_tiles"]:
            k = tile["set"] - 1
            if tile["group"] == "leftover":
                slot = 3 * self.G
            else:
                slot = 3 * (tile["group"] - 1) + jo.LABELS.index(tile["label"])
            base = (k * (3 * self.G + 1) + slot) * self.mine_row
            w.put("my_tiles", base + self._vi(tile["value"]))
            w.put("my_tiles", base + self.V + jo.STATUSES.index(tile["status"]))
        plays = view["plays"]
        if len(plays) > self.max_plays:
            raise ValueError(f"{len(plays)} plays in a view; at most {self.max_plays} fit these options")
        for i, p in enumerate(plays):
            self._play(w, i * self.play_row, p)
        for i, j in enumerate(view["jousts"][: self.max_jousts]):
            base = i * self.joust_row
            w.put("jousts", base)
            w.put("jousts", base + 1 + self._set_index(j["phase"]))
            for s in (0, 1):
                w.put("jousts", base + 2 + self.S + s, float(j["totals"][s]))
                w.put("jousts", base + 4 + self.S + s, float(j["gains"][s]))
        return w.entries()

    def _lot(self, w: BlockWriter, lot: Mapping[str, Any], prices: Mapping[tuple[int, int, str], int]) -> None:
        k = lot["set"]
        base = (k - 1) * self.set_row
        w.put("lots", base)
        groups_at = base + 1
        tiles_at = groups_at + self.G * self.group_row
        left_at = tiles_at + 3 * self.G * self.tile_row
        for grp in lot["groups"]:
            g = grp["group"] - 1
            at = groups_at + g * self.group_row
            if grp["first"] is not None:
                w.put("lots", at + jo.LABELS.index(grp["first"]))
            for pos, label in enumerate(grp["order"]):
                w.put("lots", at + 3 + 3 * jo.LABELS.index(label) + pos)
            for r, tile in enumerate(grp["tiles"]):
                t_at = tiles_at + (3 * g + r) * self.tile_row
                w.put("lots", t_at + jo.COLOURS.index(tile["colour"]))
                if tile["owner"] is not None:
                    w.put("lots", t_at + 2 + tile["owner"])
                if tile["value"] is not None:
                    w.put("lots", t_at + 4 + self._vi(tile["value"]))
                price = prices.get((k, g + 1, tile["label"]))
                if price is not None:
                    w.put("lots", t_at + 4 + self.V, float(price))
        for i, left in enumerate(lot["leftovers"]):
            at = left_at + i * self.left_row
            if left["owner"] is not None:
                w.put("lots", at + left["owner"])
            if left["value"] is not None:
                w.put("lots", at + 2 + self._vi(left["value"]))

    def _play(self, w: BlockWriter, base: int, p: Mapping[str, Any]) -> None:
        """present, joust number, phase (S+1), seat (2), set (S), announced group (G,
        leftover, hidden), colour (2), value (V), own tile's origin group (G+1)."""
        S, G, V = self.S, self.G, self.V
        w.put("plays", base)
        w.put("plays", base + 1, float(p["joust"]))
        at = base + 2
        w.put("plays", at + self._set_index(p["phase"]))
        at += S + 1
        w.put("plays", at + p["seat"])
        at += 2
        w.put("plays", at + p["set"] - 1)
        at += S
        group = p["group"]
        w.put("plays", at + (G + 1 if group is None else self._group_index(group)))
        at += G + 2
        w.put("plays", at + jo.COLOURS.index(p["colour"]))
        at += 2
        if p["value"] is not None:
            w.put("plays", at + self._vi(p["value"]))
        at += V
        origin = p.get("from")
        if origin is not None:
            w.put("plays", at + self._group_index(origin.split(".")[1]))


#: the reference class of each game's encoding class
REFERENCES: dict[type, type] = {
    sw.SwappingEncoding: SwappingReference,
    dm.DominoEncoding: DominoReference,
    ye.YellowEncoding: YellowReference,
    gr.GroupingEncoding: GroupingReference,
    jo.JoustEncoding: JoustReference,
}


def reference(enc: Any) -> Any:
    """The reference encoding of ``enc``'s game: its class (grouping-final's, say) with
    the first observation code in front of it."""
    for base, ref in REFERENCES.items():
        if isinstance(enc, base):
            cls = type(f"{type(enc).__name__}Reference", (ref, type(enc)), {})
            return cls(enc.game)
    raise LookupError(f"no reference observation for {type(enc).__name__}")
