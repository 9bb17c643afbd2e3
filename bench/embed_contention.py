"""Embedding under CPU contention: the torch path and the ONNX path, quiet and beside a CPU hog.

For each embedder arm (``torch`` = ``sentence-transformers`` on torch, ``onnx`` = the default
``local`` embedder) a SQLite store of ``--messages`` synthetic turns is built once (cached in
``bench/.cache``). Then, in rounds, each arm is measured in two conditions:

* **quiet**: nothing else started by this script;
* **hog**: a busy-loop child process (``while time() < deadline: pass``), pinned to the last
  usable CPU, bounded in time by its own deadline and killed when the phase ends.

Measured per arm and condition: ``query`` = ``Memory.search`` of a fresh question (query
embedding + hybrid search, p50 over ``--queries``), ``embed`` = the query embedding alone
(p50), and ``ingest`` = ``Memory.add_messages`` of ``--ingest-turns`` new turns in calls of
100 (turns/s). The number to read is the ratio ``hog / quiet`` of each arm (for ingest
``quiet / hog``, so > 1 means slower), and the ratio ``torch / onnx`` in each condition; all
of them come from the same run, rounds interleaved, so a noisy neighbour touches every cell.

Thread counts are pinned and reported: torch uses ``--torch-threads`` (default: the usable CPUs,
torch's own default), ONNX uses ``--onnx-query-threads`` (default 1) for a query and
``--onnx-threads`` for batches (default ``min(4, usable CPUs)``), without spinning.

    .venv/bin/python bench/embed_contention.py
    .venv/bin/python bench/embed_contention.py --arms onnx --queries 100 --json out.json
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

import common
import corpus
from mnemo import Memory


def settings_for(arm: str, args: argparse.Namespace) -> dict[str, Any]:
    """Memory keyword settings of one arm, thread counts pinned."""
    if arm == "torch":
        return {
            "embedder": "sentence-transformers",
            "embed_threads": args.torch_threads,
            "embed_precision": args.torch_precision,
        }
    out: dict[str, Any] = {
        "embedder": "local",
        "embed_threads": args.onnx_threads,
        "embed_query_threads": args.onnx_query_threads,
    }
    if arm == "onnx-int8":  # the int8-weight model computing in float (default before q8)
        out["embedder_model"] = "all-MiniLM-L6-v2-int8"
    return out


def build_store(arm: str, args: argparse.Namespace, turns: list[dict[str, Any]]) -> Path:
    """A cached SQLite file holding ``turns`` for user ``u`` embedded by ``arm``."""
    path = Path(args.cache_dir) / f"contention-{arm}-{len(turns)}.db"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with Memory(str(tmp), **settings_for(arm, args)) as mem:
        for start in range(0, len(turns), 100):
            mem.add_messages(turns[start : start + 100], user_id="u")
    tmp.rename(path)
    return path


def warm_up(mem: Memory, turns: list[dict[str, Any]]) -> None:
    """Load the model and run every shape once (torch compiles kernels on first use)."""
    for i in range(20):
        mem.search(f"warm-up question {i} about my week?", user_id="u")
    mem.add_messages(turns[:100], user_id="warm-up")


def measure(
    mem: Memory, queries: list[str], ingest: list[dict[str, Any]], user: str
) -> dict[str, float]:
    """p50 of search and of the query embedding (ms), and ingest turns/s."""
    embed_s, search_s = [], []
    for q in queries:
        t0 = common.now()
        mem.embedder.embed([q])
        embed_s.append(common.now() - t0)
    for q in queries:
        t0 = common.now()
        mem.search(q + " ?", user_id="u", limit=10)  # not the embed pass's text: cache misses
        search_s.append(common.now() - t0)
    t0 = common.now()
    for start in range(0, len(ingest), 100):
        mem.add_messages(ingest[start : start + 100], user_id=user)
    ingest_s = common.now() - t0
    return {
        "embed_p50_ms": float(np.median(embed_s) * 1000),
        "search_p50_ms": float(np.median(search_s) * 1000),
        "ingest_turns_per_s": len(ingest) / ingest_s,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the rounds, print the table and the ratios, optionally write JSON."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arms", default="torch,onnx", help="comma-separated: torch, onnx, onnx-int8")
    ap.add_argument("--messages", type=int, default=2000, help="turns in each store")
    ap.add_argument("--queries", type=int, default=60, help="queries per cell and round")
    ap.add_argument("--ingest-turns", type=int, default=200, help="new turns per cell and round")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--torch-threads", type=int, default=usable or 1)
    ap.add_argument("--torch-precision", default="auto", help="auto (bf16 where native), float32")
    ap.add_argument("--onnx-threads", type=int, default=None)
    ap.add_argument("--onnx-query-threads", type=int, default=1)
    ap.add_argument("--hog-seconds", type=float, default=120.0, help="hard bound of one hog")
    ap.add_argument("--cache-dir", default=str(common.CACHE_DIR))
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    if args.onnx_threads is None:
        from mnemo.embedders.onnx import default_batch_threads

        args.onnx_threads = default_batch_threads()
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [-1]
    n_cells = args.rounds * 2  # (round, condition); both arms get the same texts per cell
    turns = [
        {k: v for k, v in t.items() if k != "session_id"}
        for t in corpus.synthetic_turns(args.messages + n_cells * args.ingest_turns)
    ]
    base, fresh = turns[: args.messages], turns[args.messages :]
    queries = corpus.synthetic_queries(n_cells * args.queries + 1)
    Path(args.cache_dir).mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="contention-", dir=args.cache_dir))
    mems: dict[str, Memory] = {}
    cells: dict[tuple[str, str], list[dict[str, float]]] = {}
    try:
        for arm in arms:
            common.console.print(f"building / loading the {arm} store ...")
            src = build_store(arm, args, base)
            dst = workdir / src.name
            shutil.copy(src, dst)
            mems[arm] = Memory(str(dst), **settings_for(arm, args))
            warm_up(mems[arm], fresh[: args.ingest_turns])
        k = 0
        for r in range(args.rounds):
            for cond in ("quiet", "hog") if r % 2 == 0 else ("hog", "quiet"):
                qs = queries[1 + k * args.queries : 1 + (k + 1) * args.queries]
                ing = fresh[k * args.ingest_turns : (k + 1) * args.ingest_turns]
                for arm in arms if r % 2 == 0 else arms[::-1]:
                    if cond == "hog":
                        with common.Hog(args.hog_seconds, cpus[-1]):
                            res = measure(mems[arm], qs, ing, f"ingest-{k}")
                    else:
                        res = measure(mems[arm], qs, ing, f"ingest-{k}")
                    cells.setdefault((arm, cond), []).append(res)
                    common.console.print(f"round {r} {cond:5} {arm:5} {res}")
                k += 1
    finally:
        for mem in mems.values():
            mem.close()
        shutil.rmtree(workdir, ignore_errors=True)
    summary = summarise(cells, arms)
    print_summary(summary, arms)
    info = common.announce_machine()
    common.write_json(
        args.json,
        {
            "benchmark": "embed_contention",
            "machine": info,
            "config": {k: v for k, v in vars(args).items() if k != "json"},
            "cells": {f"{a}/{c}": v for (a, c), v in cells.items()},
            "summary": summary,
        },
    )
    return 0


METRICS = ("embed_p50_ms", "search_p50_ms", "ingest_turns_per_s")


def summarise(
    cells: dict[tuple[str, str], list[dict[str, float]]], arms: list[str]
) -> dict[str, Any]:
    """Median over rounds of each metric, the hog/quiet slowdown and the torch/onnx speed-up.

    slowdown = hog / quiet for times and quiet / hog for turns/s (> 1 is slower);
    speed-up = torch / onnx for times and onnx / torch for turns/s (> 1 is ONNX faster).
    """
    med = {
        (a, c, m): float(np.median([x[m] for x in cells[(a, c)]]))
        for (a, c) in cells
        for m in METRICS
    }
    out: dict[str, Any] = {"median": {f"{a}/{c}/{m}": v for (a, c, m), v in med.items()}}
    slow: dict[str, float] = {}
    for a in arms:
        for m in METRICS:
            q, h = med[(a, "quiet", m)], med[(a, "hog", m)]
            slow[f"{a}/{m}"] = q / h if m.endswith("per_s") else h / q
    out["slowdown_hog_vs_quiet"] = slow
    if {"torch", "onnx"} <= set(arms):
        speed: dict[str, float] = {}
        for c in ("quiet", "hog"):
            for m in METRICS:
                t, o = med[("torch", c, m)], med[("onnx", c, m)]
                speed[f"{c}/{m}"] = o / t if m.endswith("per_s") else t / o
        out["speedup_onnx_vs_torch"] = speed
    return out


def print_summary(summary: dict[str, Any], arms: list[str]) -> None:
    """One table: per arm and condition the medians, then the ratios."""
    from rich.table import Table

    table = Table(title="embedding under contention (median over rounds)")
    for col in ("arm", "condition", "embed p50 ms", "search p50 ms", "ingest turns/s"):
        table.add_column(col, justify="right")
    med = summary["median"]
    for a in arms:
        for c in ("quiet", "hog"):
            table.add_row(a, c, *(f"{med[f'{a}/{c}/{m}']:.1f}" for m in METRICS))
        sl = summary["slowdown_hog_vs_quiet"]
        table.add_row(a, "hog/quiet", *(f"{sl[f'{a}/{m}']:.2f}x" for m in METRICS))
    if "speedup_onnx_vs_torch" in summary:
        sp = summary["speedup_onnx_vs_torch"]
        for c in ("quiet", "hog"):
            table.add_row("torch/onnx", c, *(f"{sp[f'{c}/{m}']:.2f}x" for m in METRICS))
    common.console.print(table)


if __name__ == "__main__":
    sys.exit(main())
