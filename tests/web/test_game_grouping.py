"""The grouping board (templates/games/grouping.html), rendered from real states.

The page may show only what ``State.view`` gives it: the secrecy twins of
tests/twins/grouping.py (two matches that differ in a hidden fact) must give the very
same HTML to the seat that cannot tell them apart.  Every legal action must be a
control of the board (a button with its notation, or a picker covering its family),
and every control must carry a label.  The helpers here are shared with the other
board tests of pages-b (grouping-final, joust, joust-final).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from blackwhite.engine import State, load, make_game
from blackwhite.web.render import render_board
from tests.random_play import random_walk

NAMES = ["Sally", "Maddie"]


class Controls(HTMLParser):
    """The board's controls and the text a reader sees (tags dropped)."""

    def __init__(self) -> None:
        super().__init__()
        self.actions: list[str] = []
        self.covers: set[str] = set()
        self.buttons: list[dict[str, str | None]] = []
        self.inputs: list[dict[str, str | None]] = []
        self.text: list[str] = []
        self.button_texts: list[str] = []
        self._label_depth = 0
        self._button: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("data-action") is not None:
            self.actions.append(a["data-action"] or "")
        if a.get("data-covers"):
            self.covers.update((a["data-covers"] or "").split())
        if tag == "button":
            self.buttons.append(a)
            self._button = []
        if tag == "input":
            a["_in_label"] = "1" if self._label_depth else None
            self.inputs.append(a)
        if tag == "label":
            self._label_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._label_depth -= 1
        if tag == "button" and self._button is not None:
            self.button_texts.append(re.sub(r"\s+", " ", " ".join(self._button)).strip())
            self._button = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._button is not None:
            self._button.append(data)

    def visible(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.text)).strip()


def parse(html: str) -> Controls:
    p = Controls()
    p.feed(html)
    p.close()
    return p


def legal_texts(state: State, seat: int | None) -> list[str]:
    """The contract's legal list: the seat's actions when the game awaits it."""
    if seat is None or state.is_over() or seat not in state.to_move():
        return []
    return [state.format_action(a) for a in state.legal_actions(seat)]


def board(state: State, seat: int | None, *, names: list[str] = NAMES, legal: bool = True) -> str:
    texts = legal_texts(state, seat) if legal else []
    return render_board(state.game.id, state.view(seat), seat=seat, legal=texts, names=names)


def assert_controls_ok(html: str, texts: list[str]) -> None:
    """Every legal action is one click away on the board (its own button, or a picker
    whose family covers it), every button names an action that is legal, and every
    control has a label."""
    c = parse(html)
    legal = set(texts)
    for t in texts:
        assert t in c.actions or any(t == cv or t.startswith(cv + " ") for cv in c.covers), t
    for a in c.actions:
        assert a in legal, f"button for {a!r}, which is not legal now"
    for b, shown in zip(c.buttons, c.button_texts, strict=True):
        assert b.get("type") == "button"
        label = b.get("aria-label") or ""
        assert label, b
        note = b.get("data-action")
        if note is not None:
            # the control shows its notation, and its spoken name starts with it too
            assert note in shown, (note, shown)
            assert label.lower().startswith(note.lower()) or label.startswith("Submit " + note), (note, label)
    for i in c.inputs:
        assert i.get("aria-label") or i.get("_in_label"), i


def random_states(game_id: str, options: dict[str, Any], seeds: range, prefer: tuple[str, ...] = ()) -> list[State]:
    """Every state of a few seeded random matches (chance drawn by the seed).  ``prefer``
    biases the random player to actions of those tags, so the matches last."""
    return [s.clone() for seed in seeds for s in random_walk(game_id, options, seed, prefer) if not s.is_chance()]


# ----------------------------------------------------------------- grouping


def test_every_state_renders_for_seats_and_spectators_with_its_controls() -> None:
    states = random_states("grouping", {"chips": 8}, range(2), prefer=("call", "fold", "group", "go"))
    phases = set()
    for state in states:
        for seat in (None, 0, 1):
            html = board(state, seat)
            assert_controls_ok(html, legal_texts(state, seat))
            phases.add(state.view(None)["phase"])
    assert {"group", "choose", "bet", "over"} <= phases


def _record_state(events: list[dict[str, Any]], **options: Any) -> State:
    return load({"format": "blackwhite-record/1", "game": "grouping", "options": options,
                 "seats": NAMES, "events": events})


GA = "group A=0,1 B=2,3,4 C=5,6,7,8"
GB = "group A=7,8 B=4,5,6 C=0,1,2,3"
#: P1 deals 0,1 then B then C; P2 deals its C group first (0..3), then B, then A
DEAL0 = {"chance": "deal", "seat": 0, "tiles": [0, 1, 2, 3, 4, 5, 6, 7, 8]}
DEAL1 = {"chance": "deal", "seat": 1, "tiles": [3, 2, 1, 0, 6, 5, 4, 8, 7]}


def _betting_round_two() -> State:
    """Round 1: P1 raises, P2 calls: 0 against 3 shown to all.  Round 2: P2 (the
    winner) starts and raises 2."""
    ev = [{"seat": 0, "action": "go first"}, {"seat": 0, "action": GA}, {"seat": 1, "action": GB}, DEAL0, DEAL1,
          {"seat": 0, "action": "raise 1"}, {"seat": 1, "action": "call"},
          {"seat": 1, "action": "raise 2"}]
    return _record_state(ev)


def test_betting_board_shows_chips_bets_pot_and_the_turned_up_tiles() -> None:
    state = _betting_round_two()
    view = state.view(0)
    html = board(state, 0)
    text = parse(html).visible()
    # chips and bets of both seats, and the pot (both bets)
    assert f"Chips {view['chips'][0]}" in text and f"Chips {view['chips'][1]}" in text
    assert "Pot " + str(sum(view["bets"])) in text
    # the showdown of round 1 is history for everyone: 0 against 3
    for seat in (None, 0, 1):
        rows = parse(board(state, seat)).visible()
        assert "1.1.1" in rows and "showdown" in rows
    # own groups with numbers; round 2's tiles face down: "?" on their colour
    assert "Your groups" in text
    assert re.search(r"Yours \? white", text), text
    # call/fold and every raise are buttons showing their notation
    c = parse(html)
    assert "call" in c.actions and "fold" in c.actions
    assert [a for a in c.actions if a.startswith("raise")] == [t for t in legal_texts(state, 0) if t.startswith("raise")]
    assert_controls_ok(html, legal_texts(state, 0))


def test_spectator_sees_no_groups_and_no_face_down_number() -> None:
    state = _betting_round_two()
    html = board(state, None)
    text = parse(html).visible()
    assert "Your groups" not in text and "gb-controls" not in html
    # round 2's tiles are 1 (P1) and 2 (P2), both face down: the public page has "?"
    assert re.search(r"P1 Sally \? white P2 Maddie \? black", text), text
    assert parse(html).actions == []


def test_a_folder_sees_the_opponents_tile_and_nobody_else_does() -> None:
    state = _betting_round_two()
    state.apply_text(0, "fold")  # P1 folds round 2: P1 is shown P2's tile (2)
    p1 = parse(board(state, 0)).visible()
    assert "Tiles you were shown" in p1 and "tile was 2 black" in p1
    p2 = parse(board(state, 1)).visible()
    assert "Tiles you were shown" not in p2
    assert "Tiles you were shown" not in parse(board(state, None)).visible()


def test_grouping_builder_offers_exactly_the_legal_groupings() -> None:
    state = make_game("grouping", {}).new_initial_state()
    html = board(state, 0)
    m = re.search(r'data-legal="([^"]*)"', html)
    assert m is not None
    assert set(m.group(1).split("|")) == {t for t in legal_texts(state, 0) if t.startswith("group")}
    c = parse(html)
    submit = [a for a in c.actions if a.startswith("group")]
    assert submit == [GA]  # the default grouping, legal, ready to send
    # nine tiles, three group buttons each, each labelled, one pressed per tile
    picks = re.findall(r'data-tile="(\d)" data-group="([ABC])" aria-pressed="(true|false)"', html)
    assert len(picks) == 27
    assert sorted(int(t) for t, _, p in picks if p == "true") == list(range(9))
    assert_controls_ok(html, legal_texts(state, 0))
    # once submitted, the seat's page says so and offers no grouping any more
    state.apply_text(0, GB)
    html = board(state, 0)
    assert "group A=7,8 B=4,5,6 C=0,1,2,3" in parse(html).visible()
    assert "data-legal" not in html


def test_replay_and_other_seats_get_no_controls() -> None:
    state = _betting_round_two()
    for seat in (0, 1):
        html = board(state, seat, legal=False)
        assert parse(html).actions == [] and "gb-controls" not in html


def test_finished_match_names_the_winner() -> None:
    state = _betting_round_two()
    state.apply_text(0, "resign")
    for seat in (None, 0, 1):
        text = parse(board(state, seat)).visible()
        assert "Match over" in text
    assert "you win" in parse(board(state, 1)).visible()
    assert "Maddie wins" in parse(board(state, None)).visible()


# ----------------------------------------------------------------- in the browser


def track_answers(page: Any) -> list[str]:
    """Count the server's answers to this page's actions (``ack`` or ``error`` frames on
    its socket): a push of the opponent's move may arrive before the answer to ours, so
    a new version alone does not say our action was taken."""
    answers: list[str] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: Any) -> None:
            text = payload if isinstance(payload, str) else bytes(payload).decode("utf-8", "replace")
            try:
                kind = json.loads(text).get("type")
            except ValueError:
                return
            if kind in ("ack", "error"):
                answers.append(text)

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    page.bw_answers = answers
    return answers


def click_and_wait(page: Any, selector: str, *, press: str | None = None) -> None:
    """Click a control of the board (or press a key in it) and wait for the server's
    answer to this action, then check it was taken."""
    answers: list[str] = page.bw_answers
    before = len(answers)
    target = page.locator(selector).first
    if press:
        target.press(press)
    else:
        target.click()
    deadline = 300  # x 50 ms
    while len(answers) == before and deadline:
        page.wait_for_timeout(50)
        deadline -= 1
    assert len(answers) > before, f"{selector}: no answer from the server"
    assert '"ack"' in answers[-1], f"{selector}: {answers[-1]}"


def wait_my_turn_or(page: Any, done_js: str, timeout: float = 30_000) -> dict[str, Any]:
    """Wait until the page offers this seat a move (or ``done_js`` holds); the view."""
    page.wait_for_function(
        f"() => {{ const v = BW.payload().view; return document.body.dataset.myTurn === '1' || v.finished || ({done_js}); }}",
        timeout=timeout,
    )
    view: dict[str, Any] = page.evaluate("() => BW.payload().view")
    return view


def resign_through_the_page(page: Any) -> None:
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector("body[data-status='finished']")


def grouping_spectator_keeps_secrets(watch: Any, me: Any) -> None:
    """What the spectator's page must never show: the player's groups, a private note,
    a face-down number of the round under way."""
    text = watch.inner_text("body")
    assert "Your groups" not in text and watch.locator("#board .gb-controls").count() == 0
    mine = me.evaluate("() => BW.payload().view.my_groups")
    if mine:
        notation = "A=" + ",".join(map(str, mine["A"])) + " B=" + ",".join(map(str, mine["B"]))
        assert notation not in text  # "Your groups for set 1: A=..." is private to its seat
    view = watch.evaluate("() => BW.payload().view")
    current = watch.locator("#board .gb-current .gb-num").all_inner_texts()
    if view["phase"] == "bet" and not view["sudden_death"]:
        assert current == ["?", "?"], current


def open_match_with_a_spectator(server: Any, new_page: Any, game: str,
                                options: dict[str, Any]) -> tuple[dict[str, Any], Any, Any]:
    """Ann (P1) against a random bot: the created match, a spectator's phone page and
    Ann's page (its answers tracked), both connected."""
    from tests.web.conftest import PHONE, wait_connected

    made = server.create(game, [{"name": "Ann"}, {"bot": "random"}], options=options)
    watch = new_page(PHONE)
    watch.goto(made["pages"]["spectator"])
    wait_connected(watch)
    me = new_page()
    track_answers(me)
    me.goto(made["pages"]["seats"][0])
    wait_connected(me)
    return made, watch, me


def resign_and_wait_for_the_end(me: Any, watch: Any, view: dict[str, Any]) -> None:
    """Both pages pass the page checks; Ann resigns (unless the match is over) and the
    spectator's page shows the end."""
    from tests.web.conftest import check_page

    check_page(me)
    check_page(watch)
    if not view["finished"]:
        resign_through_the_page(me)
    watch.wait_for_selector("body[data-status='finished']")


def play_grouping_in_the_browser(server: Any, new_page: Any, game: str, options: dict[str, Any],
                                 rounds: int) -> dict[str, Any]:
    """Ann (P1, through her page) against a random bot for ``rounds`` rounds, a
    spectator's phone page open throughout; then Ann resigns and the spectator's page
    is checked against the match record's hidden tiles.  The last public view."""
    from tests.web.conftest import check_page, wait_connected
    from tests.web.shots import shoot

    made, watch, me = open_match_with_a_spectator(server, new_page, game, options)
    checked = shot = raised = False
    while True:
        view = wait_my_turn_or(me, f"v.rounds_played >= {rounds}")
        grouping_spectator_keeps_secrets(watch, me)
        # every legal action is on the board: "Other actions" lists none
        assert me.locator("#other button").count() == 0
        if view["finished"] or view["rounds_played"] >= rounds:
            break
        board = me.locator("#board")
        if board.locator(".gb-builder").count():
            if view["set"] == 1:
                # build A=1,8 B=2,3,4 C=0,5,6,7 by clicking tiles into groups
                me.click("#board .gb-gbtn[data-tile='8'][data-group='A']")
                me.click("#board .gb-gbtn[data-tile='0'][data-group='C']")
                submit = board.locator("[data-role='submit']")
                assert submit.inner_text() == "group A=1,8 B=2,3,4 C=0,5,6,7"
                if not checked:
                    check_page(me)
                    checked = True
                    # the socket drops and comes back: the board is drawn again from the
                    # server's push, and the grouping being built is still there
                    me.evaluate("() => BW.drop()")
                    me.wait_for_selector("body[data-conn='conn-off']")
                    wait_connected(me)
                    assert board.locator("[data-role='submit']").inner_text() == "group A=1,8 B=2,3,4 C=0,5,6,7"
            click_and_wait(me, "#board [data-role='submit']")
        elif board.locator("[data-action='go first']").count():
            click_and_wait(me, "#board [data-action='go first']")
        elif board.locator("[data-action='peek']").count():
            click_and_wait(me, "#board [data-action='peek']")
        elif board.locator("[data-action='raise 1']").count() and not raised:
            raised = True
            click_and_wait(me, "#board [data-action='raise 1']")
        elif board.locator("[data-action='call']").count():
            if view["rounds_played"] >= 1 and not shot:
                shoot(me, game)
                check_page(watch)
                shot = True
            click_and_wait(me, "#board [data-action='call']")
        else:
            click_and_wait(me, "#board [data-action]")
    assert view["finished"] or view["rounds_played"] >= rounds
    # the whole rounds are in everyone's history
    # (the spectator's page may be a push behind Ann's: wait for it, then check)
    played = f"Rounds played ({view['rounds_played']})"
    watch.wait_for_function("(t) => document.querySelector('#board').innerText.includes(t)", arg=played)
    assert played in watch.inner_text("#board")
    resign_and_wait_for_the_end(me, watch, view)
    # the record now holds every secret: the spectator's first deal shows a number
    # only where the round turned it up, and "?" for every tile dealt face down
    record = server.record(made["id"], made["tokens"]["spectator"])
    deals = [e for e in record["events"] if e.get("chance") == "deal"]
    public = watch.evaluate("() => BW.payload().view")
    if public["set"] == 1 and public["deal"] == 1:
        rows = watch.locator("#board .gb-deal").first.locator(".gb-row")
        for seat in (0, 1):
            tiles = next(e["tiles"] for e in deals if e["seat"] == seat)
            shown = rows.nth(seat).locator(".gb-num").all_inner_texts()
            for pos, number in enumerate(shown):
                turned_up = any(r["round"] == pos + 1 and r["deal"] == 1 and r["set"] == 1 and r["tiles"]
                                for r in public["rounds"])
                assert number == (str(tiles[pos]) if turned_up else "?"), (seat, pos, number, tiles)
    return public


def test_a_player_plays_rounds_against_a_bot_with_a_spectator_watching(live_server: Any, new_page: Any) -> None:
    play_grouping_in_the_browser(live_server, new_page, "grouping", {}, rounds=3)


@pytest.mark.parametrize("game", ["grouping", "grouping-final", "joust", "joust-final"])
def test_replay_of_the_example_draws_the_board_to_the_end(live_server: Any, phone: Any, game: str) -> None:
    """The replay page (no legal actions, any audience) draws these boards at 375 px,
    with no script error, from the first step to the finished match."""
    from pathlib import Path

    from tests.web.conftest import check_page

    root = Path(__file__).resolve().parents[2]
    phone.goto(live_server.base_url + "/replay")
    phone.set_input_files("#record-file", str(root / "examples" / f"{game}.json"))
    phone.wait_for_selector("body[data-step='0']")
    phone.keyboard.press("End")
    phone.wait_for_function("() => Number(document.body.dataset.step) > 5")
    boards = phone.inner_text("#boards")
    assert "Match over" in boards
    assert phone.locator("#boards [data-action]").count() == 0  # a replay offers no move
    check_page(phone)
