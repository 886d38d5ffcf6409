"""Check that a speed change changed no result: the engine's output, byte for byte,
against another revision.

A speed change must leave every rule and the record format alone.  This compares,
between the working tree and ``--against`` (a git revision, checked out into a
temporary directory with ``git archive``):

- ``blackwhite referee --json`` and ``blackwhite referee`` (text) over examples/*.json:
  exit code, stdout, stderr;
- ``--matches`` seeded random matches per game on the checked path (the record, every
  announcement, every seat's and the public view at the end);
- the research encoding's tensor of every seat's and the public view, and the codes
  of the actions the adapters offer, after every step of those matches;
- as many seeded random matches on the fast path, with the full list of legal actions
  at every decision (their order decides which action a seeded draw picks);
- seeded bot matches per game (``--bot-matches``): heuristic against ismcts at a fixed
  number of iterations (no clock, so the decisions are reproducible), every record
  byte for byte; and one seeded ``blackwhite arena`` run per game, its records and
  its summary's win counts (a budget of 1000 s, so the iteration cap, not the clock,
  ends every search).  A refactoring must leave every bot decision alone.

    python benchmarks/same_output.py --against main [--matches 150] [--bot-matches 6]

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
root, examples, n, nbots = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, root)
from blackwhite.engine import game_ids, make_game
from blackwhite.engine.play import random_step
out = {}
env = dict(os.environ, PYTHONPATH=root)
records = glob.glob(os.path.join(examples, "*.json")) + glob.glob(os.path.join(root, "tests", "data", "records", "*.json"))
for f in sorted(r for r in records if not r.endswith(".expected.json")):
    for mode in (["--json"], []):
        r = subprocess.run([sys.executable, "-m", "blackwhite", "referee", *mode, f], capture_output=True, text=True, env=env)
        out[f"referee {' '.join(mode)} {os.path.basename(f)}"] = hashlib.sha256(repr((r.returncode, r.stdout, r.stderr)).encode()).hexdigest()
from blackwhite.engine.encoding import encoding
for gid in game_ids():
    game = make_game(gid)
    enc = encoding(game)
    checked, fast, tensors = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    for seed in range(n):
        rng = random.Random(seed)
        s = game.new_initial_state()
        while not s.is_over():
            random_step(s, rng, fast=False)
            for x in [None, *range(s.num_seats)]:  # the research tensors and offers after every step
                tensors.update(repr(enc.observation(s.view(x))).encode())
                if x is not None and not s.is_chance():
                    tensors.update(repr([enc.encode(a) for a in enc.offered(s, x)]).encode())
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
    out[f"random matches {gid} (research tensors and offered codes)"] = tensors.hexdigest()
if nbots:
    import tempfile
    from blackwhite.bots import make_bot
    from blackwhite.bots.match import play_match
    for gid in game_ids():
        game = make_game(gid)
        h = hashlib.sha256()
        for seed in range(nbots):
            names = ["heuristic", "ismcts"] + ["heuristic"] * (game.num_seats - 2)
            names = names[seed % game.num_seats:] + names[:seed % game.num_seats]
            bots = [make_bot("ismcts", iterations=40) if b == "ismcts" else make_bot(b) for b in names]
            s = play_match(game, bots, seed)
            h.update(json.dumps(s.to_record(), sort_keys=True).encode())
        out[f"bot matches {gid} (heuristic vs ismcts:iterations=40)"] = h.hexdigest()
        with tempfile.TemporaryDirectory() as tmp:
            spec = ",".join(["heuristic", "ismcts:iterations=30", "random"][: game.num_seats])
            r = subprocess.run([sys.executable, "-m", "blackwhite", "arena", gid, "--bots", spec, "-n", "3",
                                "-w", "1", "--seed", "7", "--budget", "1000", "--out", tmp], capture_output=True, text=True, env=env)
            h = hashlib.sha256(str(r.returncode).encode())
            for name in sorted(glob.glob("**/*.json", root_dir=tmp, recursive=True)):
                data = json.load(open(os.path.join(tmp, name)))
                if name == "summary.json":  # its timings vary; its results must not
                    data = [data["table"], [[m["winner"], m["scores"], m["ranking"]] for m in data["matches"]]]
                h.update(name.encode() + json.dumps(data, sort_keys=True).encode())
            out[f"arena {gid} ({spec}, seed 7)"] = h.hexdigest()
json.dump(out, sys.stdout)
"""


def digests(root: Path, matches: int, bot_matches: int) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(ROOT / "examples"), str(matches), str(bot_matches)],
        capture_output=True, text=True, env=env,
    )
    if done.returncode:
        sys.exit(f"the digests of {root} failed:\n{done.stderr}")
    result: dict[str, str] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="main", help="git revision to compare with (default main)")
    parser.add_argument("--matches", type=int, default=150, help="seeded matches per game and path (default 150)")
    parser.add_argument("--bot-matches", type=int, default=6, help="seeded bot matches per game (default 6; 0: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        before = digests(Path(tmp), args.matches, args.bot_matches)
    after = digests(ROOT, args.matches, args.bot_matches)
    differ = 0
    for key in sorted(set(before) | set(after)):
        same = before.get(key) == after.get(key)
        differ += not same
        print(f"{'same' if same else 'DIFFERS':8} {key}")
    print(f"{len(after) - differ} same, {differ} differ (against {args.against}, {args.matches} matches per game and path)")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
