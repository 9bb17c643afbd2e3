"""Search latency of ``Memory.search`` for one user holding N messages, beside bare numpy.

For each size N (``--sizes 1k,10k,100k``) a SQLite database holding N distinct conversation-like
turns of one user is built once with ``Memory.add_messages`` and cached under
``bench/.cache/`` (keyed by corpus, size and embedder). Then, for ``--queries`` distinct
questions (the first, warm-up query excluded), interleaved query by query:

* **mnemo**: ``Memory.search(query, user_id, limit=10)``, default settings (hybrid BM25 +
  dense, RRF), query embedding included (every query is new, so the query cache never hits);
* **baseline**: the same query embedded with the same embedder, then a bare numpy cosine
  top-10 over the same N vectors (``matrix @ q``, ``argpartition``, sort of the 10);
  its two parts are also reported alone (``embed`` and ``numpy``).

The ratio mnemo / baseline is the number to track: both sides ran on the same machine in the
same minute. A second pass over other fresh queries (``--breakdown``) times each stage of
``Memory.search`` by wrapping the store and pipeline methods.

    .venv/bin/python bench/search_latency.py                      # local embedder, 1k 10k 100k
    .venv/bin/python bench/search_latency.py --embedder hashing --sizes 1k,10k
    .venv/bin/python bench/search_latency.py --json bench/results/search.json
    .venv/bin/python bench/search_latency.py --sizes 10k --set session_weight=0   # a setting

``--set KEY=VALUE`` (repeatable) opens the mnemo arm's Memory with that setting (the value read
as JSON when it parses, else as text); the stores are the same.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import shutil
import sqlite3
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

import common
import corpus
from common import console, fmt, now
from mnemo import Memory
from mnemo.embedders import Embedder

USER = "bench-user"
TARGET_SIZE, TARGET_P50_MS = 10_000, 25.0
BUILD_BATCH = 256


# ---- building (and caching) the databases --------------------------------------------------
def db_path(cache: Path, corpus_name: str, n: int, embedder: Embedder) -> Path:
    """Where the database for (corpus, n, embedder) is cached."""
    emb = embedder.id.replace(":", "-").replace("/", "-")
    return cache / f"search-{corpus_name}-v{corpus.CORPUS_VERSION}-{common.label(n)}-{emb}.db"


def _meta_path(db: Path) -> Path:
    return db.with_suffix(".json")


def cached(db: Path, n: int, embedder: Embedder) -> dict[str, Any] | None:
    """The build record of a complete cached database, or None."""
    meta = _meta_path(db)
    if not (db.is_file() and meta.is_file()):
        return None
    record = json.loads(meta.read_text())
    if record.get("messages") != n or record.get("embedder") != embedder.id:
        return None
    return record


def build(db: Path, corpus_name: str, n: int, embedder: Embedder) -> dict[str, Any]:
    """Fill a fresh database with ``n`` turns of one user through ``Memory.add_messages``."""
    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.with_name(db.name + ".partial")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    turns = corpus.turns(corpus_name, n)
    batches: list[tuple[str, list[dict[str, Any]]]] = []
    for t in turns:
        t = dict(t)
        session = t.pop("session_id")
        if not batches or batches[-1][0] != session or len(batches[-1][1]) >= BUILD_BATCH:
            batches.append((session, []))
        batches[-1][1].append(t)
    columns = (
        TextColumn("[bold]building {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    t0 = now()
    with Memory(str(tmp), embedder=embedder) as mem, Progress(*columns, console=console) as bar:
        task = bar.add_task(f"{common.label(n)} ({embedder.id})", total=n, rate="")
        done, marks = 0, [t0]  # marks: the clock at every tenth of the build

        def advance(k: int) -> None:
            nonlocal done
            done += k
            bar.update(task, advance=k, rate=f"{done / max(now() - t0, 1e-9):,.0f} turns/s")
            while len(marks) <= 10 and done >= n * len(marks) / 10:
                marks.append(now())

        for session, batch in batches:
            mem.add_messages(batch, user_id=USER, session_id=session, progress=advance)
    seconds = now() - t0
    for stale in (Path(f"{db}-wal"), Path(f"{db}-shm")):  # never replay an old file's WAL
        stale.unlink(missing_ok=True)
    tmp.replace(db)
    record = {
        "messages": n,
        "embedder": embedder.id,
        "corpus": corpus_name,
        "corpus_version": corpus.CORPUS_VERSION,
        "build_seconds": seconds,
        "build_turns_per_s": n / seconds,
        # turns/s over each tenth of the build: a fall means storage slows as the file grows
        "build_turns_per_s_by_tenth": [
            round(n / 10 / (b - a), 1) for a, b in itertools.pairwise(marks)
        ],
        "batch": BUILD_BATCH,
        "built": common.machine()["date"],
    }
    _meta_path(db).write_text(json.dumps(record, indent=2) + "\n")
    return record


def ensure_db(
    cache: Path, corpus_name: str, n: int, embedder: Embedder, rebuild: bool
) -> tuple[Path, dict[str, Any]]:
    """The cached database for (corpus, n, embedder), built when missing."""
    db = db_path(cache, corpus_name, n, embedder)
    record = None if rebuild else cached(db, n, embedder)
    if record is None:
        record = build(db, corpus_name, n, embedder)
    else:
        console.print(f"[dim]using cached {db.name} (built in {record['build_seconds']:.0f} s)")
    return db, record


def load_matrix(db: Path) -> np.ndarray:
    """The user's N stored vectors as one contiguous float32 matrix (the baseline's data)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        blobs = [
            r[0]
            for r in con.execute(
                "SELECT embedding FROM messages WHERE user_id=? ORDER BY rowid", (USER,)
            )
        ]
    finally:
        con.close()
    dim = len(blobs[0]) // 4
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim).copy()


# ---- the measured operations ---------------------------------------------------------------
def numpy_top(matrix: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k rows most similar to q, best first (the bare baseline)."""
    sims = matrix @ q
    top = np.argpartition(-sims, k - 1)[:k]
    return top[np.argsort(-sims[top])]


def measure(
    mem: Memory, embedder: Embedder, matrix: np.ndarray, queries: list[str], limit: int
) -> dict[str, list[float]]:
    """Per-query seconds of each arm, interleaved; arm order rotates from query to query."""
    out: dict[str, list[float]] = defaultdict(list)
    empty = 0

    def run_search(q: str) -> None:
        nonlocal empty
        t0 = now()
        hits = mem.search(q, user_id=USER, limit=limit)
        out["search"].append(now() - t0)
        empty += not hits

    def run_baseline(q: str) -> None:
        t0 = now()
        vec = embedder.embed([q])[0]
        t1 = now()
        numpy_top(matrix, vec, limit)
        t2 = now()
        out["baseline"].append(t2 - t0)
        out["embed"].append(t1 - t0)
        out["numpy"].append(t2 - t1)

    arms = [run_search, run_baseline]
    for i, q in enumerate(queries):
        for arm in arms[i % 2 :] + arms[: i % 2]:
            arm(q)
    if empty:
        console.print(f"[yellow]{empty} searches returned no hit")
    return out


def breakdown(db: Path, embedder: Embedder, queries: list[str], limit: int) -> dict[str, float]:
    """Mean milliseconds per search spent in each stage, from wrapped store/pipeline methods."""
    spent: dict[str, float] = defaultdict(float)

    def wrap(obj: Any, name: str, stage: str) -> None:
        fn: Callable[..., Any] | None = getattr(obj, name, None)
        if fn is None:  # the pipeline changed shape: leave that stage in "other"
            return

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = now()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[stage] += now() - t0

        setattr(obj, name, timed)

    with Memory(str(db), embedder=embedder, **SETTINGS) as mem:
        mem.search(queries[0], user_id=USER, limit=limit)  # warm-up: loads the index
        wrap(mem.pipeline.queries, "vector", "query embedding")
        wrap(mem.store.search, "lexical", "lexical (FTS5 bm25)")
        wrap(mem.store.search, "vector_state", "index freshness check")
        wrap(mem.store.search, "load_vectors", "index load")
        wrap(mem.pipeline.retrievers, "_dense", "dense top-k")
        wrap(mem.store.search, "fetch", "fetch hit rows")
        total = 0.0
        for q in queries[1:]:
            t0 = now()
            mem.search(q, user_id=USER, limit=limit)
            total += now() - t0
    count = len(queries) - 1
    out = {stage: 1000 * s / count for stage, s in spent.items()}
    out["other (validation, fusion, hits)"] = 1000 * total / count - sum(out.values())
    out["total"] = 1000 * total / count
    return out


#: Settings the mnemo arm opens its Memory with (``--set``).
SETTINGS: dict[str, Any] = {}


def parse_settings(pairs: list[str]) -> dict[str, Any]:
    """``["k=v", ...]`` as settings, each value read as JSON when it parses."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def run_size(
    n: int, args: argparse.Namespace, embedder: Embedder, queries: list[str]
) -> dict[str, Any]:
    """Build or reuse the database of size n and measure it."""
    db, record = ensure_db(Path(args.cache_dir), args.corpus, n, embedder, args.rebuild)
    main_q = queries[: args.queries + 1]
    rss0 = common.rss_mb()
    with Memory(str(db), embedder=embedder, **SETTINGS) as mem:
        t0 = now()
        mem.search(main_q[0], user_id=USER, limit=args.limit)  # warm-up, excluded
        cold = now() - t0
        rss_index = common.rss_mb() - rss0
        matrix = load_matrix(db)
        numpy_top(matrix, embedder.embed([main_q[0]])[0], args.limit)  # warm-up, excluded
        samples = measure(mem, embedder, matrix, main_q[1:], args.limit)
    result: dict[str, Any] = {
        "messages": n,
        "db": db.name,
        "build": record,
        "cold_first_search_ms": 1000 * cold,
        "rss_growth_first_search_mb": rss_index,
        "queries": len(main_q) - 1,
        **{f"{arm}_ms": common.stats_ms(s) for arm, s in samples.items()},
    }
    s, b = result["search_ms"], result["baseline_ms"]
    result["ratio_p50"] = s["p50"] / b["p50"]
    result["ratio_p95"] = s["p95"] / b["p95"]
    paired = np.array(samples["search"]) / np.array(samples["baseline"])
    result["ratio_paired_median"] = float(np.median(paired))
    result["samples_ms"] = {arm: [round(1000 * x, 4) for x in v] for arm, v in samples.items()}
    if args.breakdown:
        extra = queries[args.queries + 1 :]
        result["breakdown_ms"] = breakdown(db, embedder, extra, args.limit)
    del matrix
    console.print(
        f"{common.label(n)}: mnemo p50 {s['p50']:.2f} ms, baseline p50 {b['p50']:.2f} ms "
        f"({result['ratio_p50']:.2f}x), embed p50 {result['embed_ms']['p50']:.2f} ms"
    )
    return result


# ---- output --------------------------------------------------------------------------------
def print_results(results: list[dict[str, Any]], info: dict[str, Any]) -> None:
    """The rich tables of a run."""
    t = Table(
        title=f"Memory.search latency, ms ({info['embedder']}, "
        f"{info['cpus_usable']} CPUs, numpy BLAS threads {common.numpy_blas_threads(info)}, "
        f"{info['date']})"
    )
    for col in (
        "N",
        "mnemo p50",
        "mnemo p95",
        "baseline p50",
        "baseline p95",
        "ratio p50",
        "ratio p95",
        "embed p50",
        "numpy p50",
        "cold 1st search",
    ):
        t.add_column(col, justify="right")
    for r in results:
        s, b = r["search_ms"], r["baseline_ms"]
        t.add_row(
            common.label(r["messages"]),
            fmt(s["p50"]),
            fmt(s["p95"]),
            fmt(b["p50"]),
            fmt(b["p95"]),
            f"{r['ratio_p50']:.2f}x",
            f"{r['ratio_p95']:.2f}x",
            fmt(r["embed_ms"]["p50"]),
            fmt(r["numpy_ms"]["p50"], 3),
            fmt(r["cold_first_search_ms"], 0),
        )
    console.print(t)
    console.print(
        "[dim]baseline = same query embedding + bare numpy cosine top-10 over the "
        "same vectors; ratio = mnemo / baseline (same run, interleaved)."
    )
    for r in results:
        if r["messages"] == TARGET_SIZE:
            p50 = r["search_ms"]["p50"]
            ok = p50 <= TARGET_P50_MS
            console.print(
                f"target: {common.label(TARGET_SIZE)} p50 <= {TARGET_P50_MS:.0f} ms "
                f"-> {p50:.2f} ms [{'green' if ok else 'red'}]"
                f"{'PASS' if ok else 'FAIL'}"
            )
    with_bd = [r for r in results if "breakdown_ms" in r]
    if with_bd:
        stages = list(with_bd[0]["breakdown_ms"])
        bt = Table(title="Where Memory.search spends its time (mean ms per search, 2nd pass)")
        bt.add_column("stage")
        for r in with_bd:
            bt.add_column(common.label(r["messages"]), justify="right")
        for stage in stages:
            bt.add_row(stage, *[fmt(r["breakdown_ms"].get(stage), 3) for r in with_bd])
        console.print(bt)
    builds = Table(title=f"Cached database builds (Memory.add_messages, batches of {BUILD_BATCH})")
    for col in ("N", "built", "seconds", "turns/s"):
        builds.add_column(col, justify="right")
    for r in results:
        b = r["build"]
        builds.add_row(
            common.label(r["messages"]),
            str(b.get("built", "-")),
            fmt(b["build_seconds"], 1),
            fmt(b["build_turns_per_s"], 0),
        )
    console.print(builds)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes", default="1k,10k,100k", help="comma-separated N (default %(default)s)"
    )
    ap.add_argument("--embedder", default="local", help="local (default) or hashing")
    ap.add_argument("--queries", type=int, default=200, help="measured queries per size")
    ap.add_argument("--limit", type=int, default=10, help="hits per search (default 10)")
    ap.add_argument(
        "--corpus",
        choices=["synthetic", "locomo"],
        default="synthetic",
        help="synthetic (default) or locomo (reads the shared LoCoMo dev file)",
    )
    ap.add_argument(
        "--breakdown",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="second pass timing each stage of Memory.search (default on)",
    )
    ap.add_argument("--breakdown-queries", type=int, default=100)
    ap.add_argument(
        "--blas-threads",
        type=int,
        default=None,
        help="limit numpy's BLAS threads (threadpoolctl) for the whole run; default: untouched",
    )
    ap.add_argument("--cache-dir", default=str(common.CACHE_DIR))
    ap.add_argument("--rebuild", action="store_true", help="rebuild cached databases")
    ap.add_argument("--clear-cache", action="store_true", help="delete bench/.cache first")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)
    SETTINGS.update(parse_settings(args.set))
    if args.clear_cache:
        shutil.rmtree(args.cache_dir, ignore_errors=True)
    sizes = [common.parse_size(s) for s in args.sizes.split(",") if s.strip()]
    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.blas_threads, user_api="blas")
    embedder = common.make_embedder(args.embedder)
    console.print(f"loading {embedder.id} ...")
    load_s = common.warm_up(embedder)
    info = common.announce_machine(embedder)
    console.print(f"[dim]embedder ready in {load_s:.1f} s; {info['cpus_usable']} CPUs")
    queries = corpus.queries(args.corpus, args.queries + 1 + args.breakdown_queries + 1)
    if len(set(queries)) != len(queries):
        raise SystemExit("queries are not distinct")
    results = [run_size(n, args, embedder, queries) for n in sizes]
    print_results(results, info)
    common.write_json(
        args.json,
        {
            "benchmark": "search_latency",
            "machine": info,
            "config": {k: v for k, v in vars(args).items() if k not in ("json",)},
            "embedder_load_s": load_s,
            "results": results,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
