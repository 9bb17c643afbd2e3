"""Cold start per local embedder model: a new process opens an existing store and searches once.

For each ``--arm MODEL=DB`` (an ``embedder_model`` and a SQLite store written with it, e.g. by
``mnemo eval locomo --db``), launches ``--runs`` children in rotation, each importing mnemo,
opening the store with ``embedder=local, embedder_model=MODEL`` and running one search for
``--user``; reports the median seconds from launch to result. The model cache must be warm
(``MNEMO_EMBED_CACHE_DIR`` is passed through), so this measures loading, not building.

    OMP_NUM_THREADS=1 python bench/embedder_cold_start.py --user conv-26 \
        --arm all-MiniLM-L6-v2-q8=/tmp/locomo-minilm.db \
        --arm nomic-embed-text-v1.5=/tmp/locomo-nomic.db --runs 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import common

CHILD = """
import json, sys, time
t0 = time.time()
from mnemo import Memory
with Memory(sys.argv[1], embedder="local", embedder_model=sys.argv[2]) as mem:
    hits = mem.search("What did she do with the kids last weekend?", user_id=sys.argv[3])
print(json.dumps({"start": t0, "result": time.time(), "hits": len(hits)}))
"""


def run_once(db: str, model: str, user: str) -> float:
    """Seconds from launching a child to its first search result."""
    launch = time.time()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, db, model, user],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        env=dict(os.environ),
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if not got["hits"]:
        raise SystemExit(f"{model}: the cold search found nothing")
    return float(got["result"] - launch)


def main() -> int:
    """Run the children in rotation; print and optionally write the medians."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arm", action="append", required=True, metavar="MODEL=DB")
    ap.add_argument("--user", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    arms = dict(a.split("=", 1) for a in args.arm)
    samples: dict[str, list[float]] = {m: [] for m in arms}
    for _ in range(args.runs):
        for model, db in arms.items():
            samples[model].append(run_once(db, model, args.user))
    report: dict[str, Any] = {
        m: {"median_s": round(statistics.median(s), 3), "runs_s": [round(x, 3) for x in s]}
        for m, s in samples.items()
    }
    report["machine"] = common.announce_machine(stderr=True)
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
