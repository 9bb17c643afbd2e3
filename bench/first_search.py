"""A user's first search in a warm process: the search that loads the user's vector index and
reads what the ranking needs of the user's turns (their kinds, the speaker aliases).

One SQLite store per source tree holds several users of ``--turns`` turns each, from the dev
splits in ``../shared/data``: LoCoMo conversations (short turns by two named speakers) and
LongMemEval haystacks (long turns; their speakers named "Alex" and "Sam" so the aliases read
them too). Each round starts one child process per tree (trees alternate their order round by
round) that opens the store, searches a small warm-up user (imports, regular expressions and
the query path warm), then times the first search of every user, then a second one of each.
Reported per tree: the median over rounds of each user's first search, and of the second.

    OMP_NUM_THREADS=1 .venv/bin/python bench/first_search.py                 # this tree
    OMP_NUM_THREADS=1 .venv/bin/python bench/first_search.py \
        --tree base=/tmp/mnemo-965577b --tree new=. --rounds 7

A tree is a checkout of mnemo (``git worktree add /tmp/mnemo-965577b 965577b``); its store is
built by its own code, once, in ``bench/.cache``. ``--profile`` prints cProfile's top functions
of the first searches of one child of the first tree instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import common

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
CACHE = HERE / ".cache"
QUERIES = [
    "What did Sam say about the trip last summer?",
    "When did Alex start the new job?",
    "What is Caroline's favourite book?",
]

#: Runs in the child: build a store (argv: build, path, data dir, turns, embedder) or time the
#: first searches (argv: time, path, embedder, profile?).
CHILD = r"""
import json, sys, time
from pathlib import Path
from mnemo import Memory

def build(path, data, turns, embedder):
    users = {}
    locomo = json.loads((Path(data) / "locomo-dev.json").read_text())
    for sample in locomo[:2]:
        conv, out = sample["conversation"], []
        keys = sorted((k for k in conv if k.startswith("session_") and isinstance(conv[k], list)),
                      key=lambda k: int(k.split("_")[1]))
        for k in keys:
            for t in conv[k]:
                text = t["text"]
                if t.get("blip_caption"):
                    text += f" [image: {t['blip_caption']}]"
                role = "user" if t["speaker"] == conv["speaker_a"] else "assistant"
                out.append({"role": role, "name": t["speaker"], "content": text, "session": k})
        users["locomo-" + sample["sample_id"]] = out[:turns]
    lme = json.loads((Path(data) / "longmemeval-s-dev.json").read_text())
    for q in lme[:2]:
        out = []
        for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"]):
            for t in session:
                name = "Alex" if t["role"] == "user" else "Sam"
                turn = {"role": t["role"], "name": name, "content": t["content"]}
                out.append({**turn, "session": sid})
        users["lme-" + q["question_id"]] = out[:turns]
    warm = {"role": "user", "name": "Alex", "content": "Hey Sam! I like tea."}
    users["warm"] = [{**warm, "session": "w"}]
    with Memory(path, embedder=embedder) as mem:
        for user, out in users.items():
            sessions = {}
            for t in out:
                sessions.setdefault(t.pop("session"), []).append(t)
            for sid, ts in sessions.items():
                mem.add_messages(ts, user_id=user, session_id=sid)
    print(json.dumps(sorted(users)))

def timed(path, embedder, users, queries, profile):
    with Memory(path, embedder=embedder) as mem:
        mem.search("warm up", user_id="warm")
        first, second = {}, {}
        prof = None
        if profile:
            import cProfile
            prof = cProfile.Profile()
            prof.enable()
        for i, user in enumerate(users):
            t0 = time.perf_counter()
            mem.search(queries[i % len(queries)], user_id=user)
            first[user] = 1e3 * (time.perf_counter() - t0)
        if prof is not None:
            prof.disable()
            import pstats
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
        for i, user in enumerate(users):
            t0 = time.perf_counter()
            mem.search(queries[(i + 1) % len(queries)], user_id=user)
            second[user] = 1e3 * (time.perf_counter() - t0)
    print(json.dumps({"first": first, "second": second}))

if sys.argv[1] == "build":
    build(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
else:
    users = json.loads(sys.argv[4])
    timed(sys.argv[2], sys.argv[3], users, json.loads(sys.argv[5]), sys.argv[6] == "1")
"""


def child(tree: Path, *args: str) -> Any:
    """Run :data:`CHILD` with ``tree``'s mnemo first on the path; its JSON answer."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        env=env,
        cwd=tree,  # `python -c` puts the working directory first on the path
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"child in {tree} failed:\n{out.stderr[-3000:]}")
    if out.stderr and "--profile" in sys.argv:
        print(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def commit(tree: Path) -> str:
    """The short commit of ``tree`` (a dirty tree is marked with +)."""
    run = subprocess.run(
        ["git", "-C", str(tree), "describe", "--always", "--dirty=+"],
        capture_output=True,
        text=True,
        check=False,
    )
    return run.stdout.strip() or "unknown"


def store(tree: Path, turns: int, embedder: str) -> tuple[Path, list[str]]:
    """The store of ``tree`` (built once per commit) and its users."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"first-search-{commit(tree)}-{turns}-{embedder}.db"
    listing = path.with_suffix(".users.json")
    if not path.exists() or not listing.exists():
        for stale in (path, listing):
            stale.unlink(missing_ok=True)
        users = child(tree, "build", str(path), str(DATA), str(turns), embedder)
        listing.write_text(json.dumps(users))
    return path, [u for u in json.loads(listing.read_text()) if u != "warm"]


def main() -> None:
    """Build the stores, time the rounds, print medians per tree and user."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=[], help="LABEL=PATH (repeatable)")
    ap.add_argument("--turns", type=int, default=250, help="turns per user")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--embedder", default="hashing", help="hashing (default) or local")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree) or {"this": str(HERE.parent)}
    stores = {label: store(Path(p), args.turns, args.embedder) for label, p in trees.items()}
    if args.profile:
        label, (path, users) = next(iter(stores.items()))
        child(
            Path(trees[label]),
            "time",
            str(path),
            args.embedder,
            json.dumps(users),
            json.dumps(QUERIES),
            "1",
        )
        return
    results: dict[str, list[dict[str, dict[str, float]]]] = {label: [] for label in trees}
    labels = list(trees)
    for r in range(args.rounds):
        for label in labels if r % 2 == 0 else labels[::-1]:
            path, users = stores[label]
            results[label].append(
                child(
                    Path(trees[label]),
                    "time",
                    str(path),
                    args.embedder,
                    json.dumps(users),
                    json.dumps(QUERIES),
                    "0",
                )
            )
    print(f"median over {args.rounds} rounds, ms ({args.turns} turns per user, {args.embedder})")
    common.announce_machine()
    for label in labels:
        runs = results[label]
        users = list(runs[0]["first"])
        cells = []
        for user in users:
            first = statistics.median(run["first"][user] for run in runs)
            second = statistics.median(run["second"][user] for run in runs)
            cells.append(f"{user} {first:.0f}/{second:.0f}")
        print(f"{label} ({commit(Path(trees[label]))}): first/second  " + "  ".join(cells))


if __name__ == "__main__":
    main()
