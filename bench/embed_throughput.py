"""Batch embedding throughput on real turns: torch path vs ONNX path, interleaved.

Texts are the first ``--texts`` turns of the shared LongMemEval dev file (long assistant
answers: the worst case for ingest) or of LoCoMo dev (short chat turns). Each round embeds all
of them with each arm (``embedder.embed``, batches of 64 sorted by length), arm order alternating;
reported per arm: median texts/s over rounds, and each arm's ratio to the first. ``--arm
LABEL=MODEL`` (repeatable) compares bundled ``local`` models instead of the torch and ONNX
paths; every arm also embeds ``--queries`` short queries one at a time (the first twelve words
of the texts), reported as the median ms per query.

    .venv/bin/python bench/embed_throughput.py --data longmemeval --texts 400
    .venv/bin/python bench/embed_throughput.py --data locomo --threads 1
    .venv/bin/python bench/embed_throughput.py --data locomo --threads 1 \
        --arm minilm=all-MiniLM-L6-v2-q8 --arm e5=multilingual-e5-small
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

import common
from mnemo.config.settings import Settings
from mnemo.embedders import create_embedder

DATA = {
    "longmemeval": "/work/shared/data/longmemeval-s-dev.json",
    "locomo": "/work/shared/data/locomo-dev.json",
}
ARMS = {"torch": "sentence-transformers", "onnx": "local"}


def load_texts(which: str, n: int) -> list[str]:
    """The first ``n`` distinct turn texts of the chosen dev file."""
    with open(DATA[which], encoding="utf-8") as fh:
        data: Any = json.load(fh)
    texts: list[str] = []
    if which == "longmemeval":
        for q in data:
            for session in q["haystack_sessions"]:
                texts += [t["content"] for t in session]
    else:
        for conv in data:
            for value in conv["conversation"].values():
                if isinstance(value, list):
                    texts += [t["text"] for t in value]
    return list(dict.fromkeys(texts))[:n]


def main(argv: list[str] | None = None) -> int:
    """Embed the texts with each arm in rounds; print texts/s and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", choices=sorted(DATA), default="longmemeval")
    ap.add_argument("--texts", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="batch threads of both arms")
    ap.add_argument("--arm", action="append", metavar="LABEL=MODEL", help="a local model arm")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    texts = load_texts(args.data, args.texts)
    if args.arm:
        pairs = [a.split("=", 1) for a in args.arm]
        arms = {
            label: create_embedder(
                Settings(embedder="local", embedder_model=model, embed_threads=args.threads)
            )
            for label, model in pairs
        }
    else:
        arms = {
            arm: create_embedder(Settings(embedder=name, embed_threads=args.threads))
            for arm, name in ARMS.items()
        }
    for emb in arms.values():
        emb.embed(texts[:64])  # load and warm up
    rates: dict[str, list[float]] = {arm: [] for arm in arms}
    for r in range(args.rounds):
        for arm in list(arms) if r % 2 == 0 else list(arms)[::-1]:
            t0 = common.now()
            arms[arm].embed(texts)
            rates[arm].append(len(texts) / (common.now() - t0))
    queries = [" ".join(t.split()[:12]) for t in texts[: args.queries]]
    query_ms: dict[str, list[float]] = {arm: [] for arm in arms}
    for i, q in enumerate(queries):
        for arm in list(arms) if i % 2 == 0 else list(arms)[::-1]:
            t0 = common.now()
            arms[arm].embed_query(q)
            query_ms[arm].append((common.now() - t0) * 1000)
    med = {arm: float(np.median(v)) for arm, v in rates.items()}
    q_med = {arm: float(np.median(v)) for arm, v in query_ms.items()}
    first = next(iter(med))
    chars = float(np.mean([len(t) for t in texts]))
    common.console.print(
        f"{args.data}: {len(texts)} texts (mean {chars:.0f} chars), {args.threads} threads: "
        + ", ".join(
            f"{a} {v:.1f} texts/s ({v / med[first]:.2f}x), query {q_med[a]:.1f} ms"
            for a, v in med.items()
        )
    )
    info = common.announce_machine()
    common.write_json(
        args.json,
        {
            "benchmark": "embed_throughput",
            "machine": info,
            "config": {k: v for k, v in vars(args).items() if k != "json"},
            "rates": rates,
            "median": med,
            "query_ms_median": q_med,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
