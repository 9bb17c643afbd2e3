"""Importing real conversations: LoCoMo turns/s by embedder arm, and where the time goes.

Every arm ingests the same LoCoMo file (dev: 5 conversations, 2,760 turns, image captions
included) into a fresh SQLite file, the way mnemo itself does it:

* ``onnx``: the default ``local`` embedder; a conversation's sessions go to
  ``Memory.add_batches`` together (what ``mnemo import --format locomo`` does);
* ``onnx-per-session``: the default embedder, one ``add_messages`` call per session (what an
  application calling the API per session gets);
* ``onnx-int8-64``: as ``onnx-per-session`` with the ONNX embedder as it was before this
  benchmark: the int8-weight model computing in float (``all-MiniLM-L6-v2-int8``) and 64-text
  batches (``embed_batch_tokens`` unbounded);
* ``torch``: the ``sentence-transformers`` embedder (torch extra) with its defaults, one call
  per session: the default embedder before ONNX;
* ``torch-1t``: the same pinned to one thread, float32 (torch tuned by hand).

Rounds rotate the arm order; reported per arm: the median of turns/s and its ratio to the
``torch`` arm of the same run. ``--hog`` runs every arm beside a busy loop on the last CPU.
``--profile`` adds one ``onnx`` run under cProfile and splits its time into buckets: the model
(onnxruntime), tokenising, key texts (fact rules + chunking), vector-reuse lookups, validation
and the store's writes (inserts, FTS triggers, job rows; its commits shown apart). cProfile
slows Python code more than native code, so the Python buckets are upper bounds.

Thread counts are explicit: ``--onnx-threads`` (default: the library's own, min(4, CPUs)) for
ONNX batches; torch keeps its default unless the arm pins it.

    OMP_NUM_THREADS=1 .venv/bin/python bench/import_locomo.py --rounds 3 --profile
    OMP_NUM_THREADS=1 .venv/bin/python bench/import_locomo.py --arms onnx,torch --hog
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.table import Table

import common
from mnemo import Memory, TurnBatch
from mnemo.eval.locomo import LocomoDataset, load_locomo

ARMS: dict[str, dict[str, Any]] = {
    "onnx": {"embedder": "local"},
    "onnx-per-session": {"embedder": "local"},
    "onnx-int8-64": {
        "embedder": "local",
        "embedder_model": "all-MiniLM-L6-v2-int8",
        "embed_batch_tokens": 1_000_000,
    },
    "torch": {"embedder": "sentence-transformers"},
    "torch-1t": {
        "embedder": "sentence-transformers",
        "embed_threads": 1,
        "embed_precision": "float32",
    },
}
BASELINE = "torch"


def batches(data: LocomoDataset) -> list[list[TurnBatch]]:
    """Per conversation, one TurnBatch per non-empty session."""
    return [
        [
            TurnBatch([t.message() for t in s.turns], c.sample_id, s.id)
            for s in c.sessions
            if s.turns
        ]
        for c in data.conversations
    ]


def ingest(mem: Memory, convs: list[list[TurnBatch]], together: bool) -> int:
    """Write every session; ``together`` = a conversation's sessions in one add_batches call."""
    turns = 0
    for conv in convs:
        if together:
            mem.add_batches(conv)
        else:
            for b in conv:
                mem.add_messages(b.messages, b.user_id, b.session_id)
        turns += sum(len(b.messages) for b in conv)
    return turns


def settings_of(arm: str, args: argparse.Namespace) -> dict[str, Any]:
    """Memory settings of ``arm``: its table entry, ONNX batch threads when pinned."""
    out = dict(ARMS[arm])
    if out["embedder"] == "local" and args.onnx_threads:
        out["embed_threads"] = args.onnx_threads
    return out


def run_arm(arm: str, args: argparse.Namespace, convs: list[list[TurnBatch]], work: Path) -> float:
    """Seconds to import every conversation into a fresh store with ``arm``'s settings."""
    db = work / f"{arm}.db"
    with Memory(str(db), **settings_of(arm, args)) as mem:
        mem.embedder.embed(["warm up the batch session", "and its second text"])  # model load
        t0 = time.perf_counter()
        ingest(mem, convs, together=arm == "onnx")
        seconds = time.perf_counter() - t0
    for f in work.glob(f"{arm}.db*"):
        f.unlink()
    return seconds


BUCKETS: list[tuple[str, Callable[[str, str], bool]]] = [
    ("model (onnxruntime run)", lambda f, n: "onnxruntime" in n and "run" in n),
    ("tokenising", lambda f, n: "encode_batch" in n),
    ("key texts: fact rules", lambda f, n: f.endswith("fact_rules.py") and n == "extract_facts"),
    ("key texts: chunking", lambda f, n: f.endswith("keys.py") and n == "chunk_text"),
    (
        "vector-reuse lookups",
        lambda f, n: f.endswith("store.py") and n in ("embeddings_for", "key_vectors_for"),
    ),
    ("validation", lambda f, n: f.endswith("validation.py") and n == "messages"),
    (
        "store writes (inserts, FTS, jobs)",
        lambda f, n: f.endswith("store.py") and n == "add_messages",
    ),
    (
        "  of which commits",
        lambda f, n: "sqlite3.Connection" in n and ("commit" in n or "__exit__" in n),
    ),
]


def profile(args: argparse.Namespace, convs: list[list[TurnBatch]], work: Path) -> dict[str, float]:
    """Seconds per bucket of one ``onnx`` import under cProfile (cumulative time of the first
    matching function of each bucket; ``other`` is the rest)."""
    db = work / "profile.db"
    with Memory(str(db), **settings_of("onnx", args)) as mem:
        mem.embedder.embed(["warm up the batch session", "and its second text"])
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.runcall(ingest, mem, convs, True)
        total = time.perf_counter() - t0
    stats: dict[Any, Any] = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    out: dict[str, float] = {}
    for name, match in BUCKETS:
        out[name] = sum(ct for (f, _, n), (_, _, _, ct, _) in stats.items() if match(f, n))
    counted = sum(v for k, v in out.items() if not k.startswith("  "))
    out["other (python glue, ids, rows)"] = max(0.0, total - counted)
    out["total (under cProfile)"] = total
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the arms, print the table, write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(common.ROOT.parent / "shared/data/locomo-dev.json"))
    ap.add_argument(
        "--arms", default=",".join(ARMS), help="comma-separated, from: " + ", ".join(ARMS)
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--onnx-threads", type=int, default=None, help="ONNX batch threads")
    ap.add_argument("--hog", action="store_true", help="beside a busy loop on the last CPU")
    ap.add_argument("--profile", action="store_true", help="add a cProfile breakdown")
    ap.add_argument("--json", default=None, help="write results here")
    args = ap.parse_args(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = [a for a in arms if a not in ARMS]
    if unknown:
        ap.error(f"unknown arms: {', '.join(unknown)}")
    data = load_locomo(args.data)
    convs = batches(data)
    n_turns = sum(len(b.messages) for c in convs for b in c)
    work = Path(tempfile.mkdtemp(prefix="mnemo-import-"))
    seconds: dict[str, list[float]] = {a: [] for a in arms}
    cpus = (
        sorted(common.os.sched_getaffinity(0)) if hasattr(common.os, "sched_getaffinity") else [0]
    )
    try:
        for r in range(args.rounds):
            order = arms[r % len(arms) :] + arms[: r % len(arms)]
            for arm in order:
                if args.hog:
                    with common.Hog(3600, cpus[-1]):
                        s = run_arm(arm, args, convs, work)
                else:
                    s = run_arm(arm, args, convs, work)
                seconds[arm].append(s)
                common.console.print(f"round {r + 1} {arm}: {n_turns / s:.1f} turns/s ({s:.1f} s)")
        breakdown = profile(args, convs, work) if args.profile else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rate = {a: n_turns / statistics.median(v) for a, v in seconds.items()}
    table = Table(
        title=f"import of {n_turns} LoCoMo turns{' beside a CPU hog' if args.hog else ''}"
    )
    for col in ("arm", "turns/s (median)", f"vs {BASELINE}", "runs (s)"):
        table.add_column(col)
    for a in arms:
        ratio = f"{rate[a] / rate[BASELINE]:.2f}x" if BASELINE in rate else "-"
        table.add_row(a, f"{rate[a]:.1f}", ratio, ", ".join(f"{s:.1f}" for s in seconds[a]))
    common.console.print(table)
    if breakdown:
        bt = Table(title="where an onnx import's time goes (cProfile)")
        bt.add_column("bucket")
        bt.add_column("s")
        bt.add_column("share")
        for k, v in breakdown.items():
            bt.add_row(k, f"{v:.2f}", f"{v / breakdown['total (under cProfile)']:.0%}")
        common.console.print(bt)
    info = common.announce_machine()
    common.write_json(
        args.json,
        {
            "machine": info,
            "data": args.data,
            "turns": n_turns,
            "hog": args.hog,
            "onnx_threads": args.onnx_threads,
            "arms": {a: settings_of(a, args) for a in arms},
            "seconds": seconds,
            "turns_per_s": rate,
            "baseline": BASELINE,
            "profile_s": breakdown,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
