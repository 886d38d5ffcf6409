"""The player's page keeps secrets (#40): the secrecy twins (tests/twins/) run through it.

Two matches differing in a fact hidden from a seat must give that seat's player the
same entry on its page and the same page, byte for byte: an entry is built from the
seat's own view payload alone (``MatchService.view_payload`` with the seat's role, the
one filter of hidden information), and the state answers nothing else (a
:class:`~tests.twins.ViewOnly` state fails the test if anything reads past the views).
"""

from __future__ import annotations

from typing import Any

import pytest

from blackwhite.server.players import entry_from_payload
from blackwhite.server.service import MatchService, Role
from blackwhite.server.store import Store, make_engine
from blackwhite.web.render import display_names, render_page
from tests.twins import Twin, all_twins, replayed, seat_twins

from .matches import live_of_record

TWINS = seat_twins()
NOW = 1_000_000.0


@pytest.fixture(scope="module")
def service() -> MatchService:
    return MatchService(Store(make_engine("sqlite://")), now=lambda: NOW)


def page(service: MatchService, record: dict[str, Any], seat: int) -> tuple[dict[str, Any], str]:
    """The seat's entry on its player's page, and the page drawn with it."""
    # a seat's payload reads the game, the views and the number of seats only
    live, names = live_of_record(record, "the player's page", "num_seats", created=NOW - 60, clock_at=NOW - 5)
    live.look(step_opened=True, start=True)
    payload = service.view_payload(live, Role("seat", seat))
    entry = {"id": "M1", "game": record["game"], "seat": seat, "names": names, "created": NOW - 60,
             "page": "/play/M1", **entry_from_payload(payload, seat, NOW, None)}
    data = {"player": {"id": "p1", "name": "Sally"}, "matches": [entry], "seasons": [],
            "invitations": [entry] if entry["invited"] else [],
            "waiting": [{"id": "M1", "game": record["game"], "seat": seat,
                         "kind": "move" if entry["your_move"] else "join", "deadline": entry["deadline"],
                         "names": names, "page": "/play/M1"}] if entry["your_move"] or entry["invited"] else []}
    me = {"id": "p1", "name": "Sally", "email": None, "discord_id": None, "links": []}
    html = render_page("me.html", title="Sally", me=me, data=data, problem=None, from_link=False, now=NOW,
                       display_names=display_names, public_url=None, season_page=False)
    return entry, html


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_give_the_player_the_same_page(service: MatchService, game: str, twin: Twin) -> None:
    assert twin.seat is not None
    entry_a, html_a = page(service, twin.a, twin.seat)
    entry_b, html_b = page(service, twin.b, twin.seat)
    assert entry_a == entry_b, twin.name
    assert html_a == html_b, twin.name
    assert "M1" in html_a


def test_the_twins_differ_where_the_seat_may_look() -> None:
    """The comparison can fail: the twins' states do differ (else the test above proves nothing)."""
    differ = [t for _g, t in TWINS if replayed(t.a).view(None) != replayed(t.b).view(None)
              or any(replayed(t.a).view(s) != replayed(t.b).view(s) for s in range(replayed(t.a).num_seats))]
    assert differ, "no twin differs in any view: the twins test could not fail"


#: twins hidden from the public: what a host reads (without "the host sees every seat")
PUBLIC_TWINS = [(g, t) for g, t in all_twins() if t.seat is None]


@pytest.mark.parametrize("game,twin", PUBLIC_TWINS, ids=[f"{g}: {t.name}" for g, t in PUBLIC_TWINS])
def test_a_hosts_read_of_a_players_waiting_list_tells_no_seats_secret(service: MatchService, game: str,
                                                                      twin: Twin) -> None:
    """``GET /api/players/{id}/waiting`` (the bridge's ``/bw moves``) gives a host each seat's
    entry, built from the seat's own view: for two matches differing in a fact hidden from
    the public (and so from a host who does not see every seat), every seat's entry is the same."""
    for seat in range(replayed(twin.a).num_seats):
        assert page(service, twin.a, seat)[0] == page(service, twin.b, seat)[0], (twin.name, seat)
