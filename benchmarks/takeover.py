"""Benchmark of ownership that follows liveness (docs/server.md, "Several processes"):
how long a stuck owner keeps its matches, and what is lost.

Runs the scenario of ``tests/server/test_chaos.py`` ``--runs`` times, each on a fresh
throwaway PostgreSQL (durable commits, as a production server) with three ``blackwhite
serve`` processes behind Debian's nginx, with the server's default lease (``--lease``,
5 s): players act on matches of two people all along; the process owning the most
matches is stopped (SIGSTOP) for ``--stopped`` seconds with a request queued on it, then
woken; then another owner's lock connection is ended while it lives.  Printed per run:
the seconds from the stuck owner's lease expiry (and from its stop) until the last of its
matches was served by another process, from the cut until its matches were served
again, and the acknowledged actions, each checked in its match's record (lost: 0, or the
run fails).

    python benchmarks/takeover.py                   # 3 runs, 5 s lease, 15 s stop (about 2 minutes)
    python benchmarks/takeover.py --runs 1 --lease 2
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.server.client import free_port  # noqa: E402
from tests.server.conftest import PostgresServer, _pg_bin_dir, _run_as  # noqa: E402
from tests.server.test_chaos import describe, scenario  # noqa: E402
from tests.server.test_cluster import running_fleet  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs, each on a fresh PostgreSQL (3)")
    parser.add_argument("--lease", type=float, default=5.0, help="the servers' --lease in seconds (5, the default)")
    parser.add_argument("--stopped", type=float, default=15.0, help="seconds the owner stays stopped (15)")
    parser.add_argument("--matches", type=int, default=6, help="matches played all along (6)")
    args = parser.parse_args()
    bin_dir = _pg_bin_dir()
    if bin_dir is None:
        raise SystemExit("no PostgreSQL binaries (apt-get install postgresql)")
    reports = []
    for run in range(args.runs):
        base = Path(tempfile.mkdtemp(prefix="bw-takeover-"))
        base.chmod(0o755)
        pg = PostgresServer(bin_dir=bin_dir, base=base / "pg", port=free_port(), user=_run_as(), durable=True)
        (base / "pg").mkdir()
        (base / "pg").chmod(0o755)
        try:
            pg.start()
            fleet_dir = base / "fleet"
            fleet_dir.mkdir()
            with running_fleet(fleet_dir, pg.create_database(), ("--lease", str(args.lease))) as fleet:
                report = asyncio.run(scenario(fleet, lease=args.lease, stopped_for=args.stopped,
                                              matches=args.matches))
            reports.append(report)
            print(f"run {run + 1}: {describe(report)}", flush=True)
        finally:
            pg.stop()
            shutil.rmtree(base, ignore_errors=True)
    if len(reports) > 1:
        for key, what in (("after_expiry", "stuck owner, after its lease ran out"),
                          ("after_stop", "stuck owner, after the stop"), ("after_cut", "cut connection")):
            values = [r[key] for r in reports]
            print(f"{what}: median {statistics.median(values):.2f} s, max {max(values):.2f} s")
        print(f"acknowledged actions: {sum(r['acknowledged'] for r in reports)}, lost: "
              f"{sum(r['lost'] for r in reports)}")


if __name__ == "__main__":
    main()
