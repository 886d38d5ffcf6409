"""Check that a speed change changed no result: the engine's output, byte for byte,
against another revision.

A speed change must leave every rule and the record format alone.  This compares,
between the working tree and ``--against`` (a git revision, checked out into a
temporary directory with ``git archive``):

- ``blackwhite referee --json`` and ``blackwhite referee`` (text) over examples/*.json:
  exit code, stdout, stderr;
- ``--matches`` seeded random matches per game on the checked path (the record, every
  announcement, every seat's and the public view at the end);
- as many seeded random matches on the fast path, with the full list of legal actions
  at every decision (their order decides which action a seeded draw picks).

    python benchmarks/same_output.py --against main [--matches 150]

Prints one line per item and exits 1 if anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: run in a child process with the tree under test first on sys.path
CHILD = r"""
import glob, hashlib, json, os, random, subprocess, sys
root, examples, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
from blackwhite.engine import game_ids, make_game
from blackwhite.engine.play import random_step
out = {}
env = dict(os.environ, PYTHONPATH=root)
for f in sorted(glob.glob(os.path.join(examples, "*.json"))):
    for mode in (["--json"], []):
        r = subprocess.run([sys.executable, "-m", "blackwhite", "referee", *mode, f], capture_output=True, text=True, env=env)
        out[f"referee {' '.join(mode)} {os.path.basename(f)}"] = hashlib.sha256(repr((r.returncode, r.stdout, r.stderr)).encode()).hexdigest()
for gid in game_ids():
    game = make_game(gid)
    checked, fast = hashlib.sha256(), hashlib.sha256()
    for seed in range(n):
        rng = random.Random(seed)
        s = game.new_initial_state()
        while not s.is_over():
            random_step(s, rng, fast=False)
        checked.update(json.dumps(s.to_record(), sort_keys=True).encode())
        checked.update(json.dumps([x.text for x in s.log]).encode())
        views = [s.view(x) for x in [None, *range(s.num_seats)]]
        checked.update(json.dumps(views, sort_keys=True, default=repr).encode())
        rng = random.Random(seed + 10**6)
        s = game.new_initial_state()
        s.track = False
        while not s.is_over():
            if not s.is_chance():
                fast.update(repr(s.legal_actions(s.to_move()[0])).encode())
            random_step(s, rng, fast=True)
        fast.update(repr(s.result()).encode())
    out[f"random matches {gid} (checked path)"] = checked.hexdigest()
    out[f"random matches {gid} (fast path, legal lists)"] = fast.hexdigest()
json.dump(out, sys.stdout)
"""


def digests(root: Path, matches: int) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(ROOT / "examples"), str(matches)],
        capture_output=True, text=True, env=env, check=True,
    )
    result: dict[str, str] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="main", help="git revision to compare with (default main)")
    parser.add_argument("--matches", type=int, default=150, help="seeded matches per game and path (default 150)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        before = digests(Path(tmp), args.matches)
    after = digests(ROOT, args.matches)
    differ = 0
    for key in sorted(set(before) | set(after)):
        same = before.get(key) == after.get(key)
        differ += not same
        print(f"{'same' if same else 'DIFFERS':8} {key}")
    print(f"{len(after) - differ} same, {differ} differ (against {args.against}, {args.matches} matches per game and path)")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
