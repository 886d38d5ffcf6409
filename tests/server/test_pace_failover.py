"""A failover at slow pace (#41 item 4): a process that dies in quiet hours hands its
match over with only the time its clock ran charged, over PostgreSQL, on an injected clock."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from sqlalchemy import text

from blackwhite.engine import Pace
from blackwhite.server.cluster import Cluster
from blackwhite.server.service import MatchService
from blackwhite.server.store import Store, make_engine, migrate

from .fake_time import FakeTime

#: Tuesday 13 January 2026, 21:00 in Paris (20:00 UTC): an hour before the night
EVENING = datetime(2026, 1, 13, 20, 0, tzinfo=timezone.utc).timestamp()
SLOW = Pace.from_json({"kind": "slow", "action_hours": 2, "reserve_hours": 1,
                       "quiet": {"from": "22:00", "to": "07:00", "tz": "Europe/Paris"}})


def test_a_process_dying_at_night_hands_over_without_charging_the_night(postgres_url: str) -> None:
    migrate(make_engine(postgres_url))
    now = FakeTime(EVENING)

    async def run() -> None:
        engines = [make_engine(postgres_url), make_engine(postgres_url)]
        first, second = (MatchService(Store(e), now=now, bot_workers=0, cluster=Cluster(e, None)) for e in engines)
        first.load()
        second.load()
        try:
            made = await first.create(None, "swapping", {}, [{"name": "Ann"}, {"name": "Bob"}], False,
                                      start="now", pace=SLOW)
            now.t += 2.5 * 3600  # 23:30 in Paris: the first process's last heartbeat, then it hangs
            await first.owning._cluster_tick()
            with engines[1].begin() as conn:  # its lease runs out
                conn.execute(text("UPDATE processes SET expires = 0 WHERE id = :id"), {"id": first.cluster.id})  # type: ignore[union-attr]
            now.t = EVENING + 12 * 3600  # 09:00 in Paris: the second process takes the match over
            await second.owning._cluster_tick()
            assert second.owns(made.id)
            readings = second.readings(second.get(made.id))
            # 21:00 to 22:00 ran; the night (and the second and a quarter of slack after the
            # last heartbeat, which fell in it) did not; nor did the morning before the takeover
            for seat in readings.seats:
                assert seat.awaited and seat.action_left + seat.reserve_left == 3 * 3600 - 3600
        finally:
            for service in (first, second):
                await service.close()
            for e in engines:
                e.dispose()

    asyncio.run(run())
