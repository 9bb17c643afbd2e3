"""Cold start: a new Python process, from its launch to the first search result.

For each embedder arm (``onnx`` = the default ``local`` embedder, ``torch`` =
``sentence-transformers``) a SQLite store of ``--messages`` synthetic turns is built once
(cached in ``bench/.cache``). Then ``--runs`` fresh processes per arm, interleaved arm by arm,
each run::

    from mnemo import Memory
    Memory(db, embedder=...).search(question, user_id="u", limit=10)

and print ``time.time()`` when the hits are back. Reported per arm: the median of
``t_result - t_launch`` (interpreter start, imports, model load, query embedding, search) and
the median of the part after ``import mnemo`` (model load + first search). ``--python`` runs the
children with another interpreter, e.g. a venv without torch.

    .venv/bin/python bench/cold_start.py
    .venv/bin/python bench/cold_start.py --arms onnx --python /tmp/venv-no-torch/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import common
import corpus
from mnemo import Memory

CHILD = """
import json, sys, time
t_start = time.time()
from mnemo import Memory
t_import = time.time()
with Memory(sys.argv[1], embedder=sys.argv[2]) as mem:
    hits = mem.search("Where did I go hiking last weekend?", user_id="u", limit=10)
t_result = time.time()
print(json.dumps({"start": t_start, "import": t_import, "result": t_result, "hits": len(hits)}))
"""

EMBEDDER = {"onnx": "local", "torch": "sentence-transformers"}


def build(arm: str, n: int, cache: Path) -> Path:
    """A cached store of ``n`` synthetic turns of user ``u`` made by ``arm``."""
    path = cache / f"cold-{arm}-{n}.db"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        turns = [
            {k: v for k, v in t.items() if k != "session_id"} for t in corpus.synthetic_turns(n)
        ]
        with Memory(str(tmp), embedder=EMBEDDER[arm]) as mem:
            for start in range(0, n, 100):
                mem.add_messages(turns[start : start + 100], user_id="u")
        tmp.rename(path)
    return path


def run_once(python: str, db: Path, arm: str) -> dict[str, float]:
    """Launch one child; seconds from launch to result, and from ``import mnemo`` to result."""
    env = {**os.environ, "PYTHONPATH": str(common.ROOT)}
    t_launch = time.time()
    out = subprocess.run(
        [python, "-c", CHILD, str(db), EMBEDDER[arm]],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if not got["hits"]:
        raise SystemExit(f"{arm}: the cold search found nothing")
    return {
        "launch_to_result_s": got["result"] - t_launch,
        "import_s": got["import"] - got["start"],
        "load_and_search_s": got["result"] - got["import"],
    }


def main(argv: list[str] | None = None) -> int:
    """Build the stores, run the children interleaved, print medians, optionally write JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arms", default="onnx,torch")
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=sys.executable, help="interpreter of the children")
    ap.add_argument("--cache-dir", default=str(common.CACHE_DIR))
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    dbs = {arm: build(arm, args.messages, Path(args.cache_dir)) for arm in arms}
    runs: dict[str, list[dict[str, float]]] = {arm: [] for arm in arms}
    for _ in range(args.runs):
        for arm in arms:
            runs[arm].append(run_once(args.python, dbs[arm], arm))
    summary = {
        arm: {k: float(np.median([r[k] for r in rs])) for k in rs[0]} for arm, rs in runs.items()
    }
    for arm, s in summary.items():
        common.console.print(
            f"{arm:5}  launch->result p50 {s['launch_to_result_s']:.2f} s  "
            f"(import {s['import_s']:.2f} s, load+search {s['load_and_search_s']:.2f} s)"
        )
    info = common.announce_machine()
    common.write_json(
        args.json,
        {
            "benchmark": "cold_start",
            "machine": info,
            "config": {k: v for k, v in vars(args).items() if k != "json"},
            "runs": runs,
            "summary": summary,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
