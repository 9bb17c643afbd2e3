"""Context bundles on LoCoMo dev: how much of each question's evidence a bundle carries.

For every question (categories 1-4) the bundle of each preset is built within the budget, and
``evidence recall`` is the share of the question's evidence turns present among the bundle's
items (mean over questions). Also reported: the tokens used and the time to build a bundle.
The conversations are ingested once; the presets differ only in retrieval and layout.

    python bench/context_recall.py --embedder hashing --budget 1500
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import ROOT, announce_machine, console, write_json
from mnemo import Memory
from mnemo.eval.locomo import ingest_locomo, load_locomo

PRESETS = ("default", "llmplatform", "agent-cli", "tiered", "llm-managed")


def evidence_recall(mem: Memory, dataset: Any, budget: int) -> dict[str, Any]:
    """Mean evidence recall, tokens and build time of the bundles of every question."""
    recalls, tokens, times = [], [], []
    for q in dataset.questions:
        t0 = time.perf_counter()
        bundle = mem.context(q.question, q.sample_id, None, budget)
        times.append(time.perf_counter() - t0)
        held = {i.metadata.get("dia_id") for i in bundle.hits() if i.kind == "message"}
        recalls.append(sum(e in held for e in q.evidence) / len(q.evidence))
        tokens.append(bundle.token_count)
    ms = np.asarray(times) * 1000
    return {
        "questions": len(recalls),
        "evidence_recall": round(float(np.mean(recalls)), 3),
        "tokens_mean": round(float(np.mean(tokens)), 1),
        "build_ms_p50": round(float(np.percentile(ms, 50)), 2),
        "build_ms_p95": round(float(np.percentile(ms, 95)), 2),
    }


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "locomo-dev.json"))
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--budget", type=int, nargs="+", default=[1500])
    parser.add_argument("--json", help="Write the results to this file.")
    args = parser.parse_args()
    dataset = load_locomo(args.data)
    db = str(Path(tempfile.mkdtemp(prefix="mnemo-ctx-")) / "locomo.db")
    with Memory(db, embedder=args.embedder) as mem:
        ingest_locomo(mem, dataset)
    rows: dict[str, Any] = {}
    for preset in PRESETS:
        with Memory(db, embedder=args.embedder, preset=preset) as mem:
            for budget in args.budget:
                res = evidence_recall(mem, dataset, budget)
                rows[f"{preset}@{budget}"] = res
                console.print(
                    f"{preset:12s} budget {budget:5d}: evidence recall {res['evidence_recall']:.3f}"
                    f"  tokens {res['tokens_mean']:7.1f}  build p50 {res['build_ms_p50']:6.2f} ms"
                    f"  p95 {res['build_ms_p95']:6.2f} ms"
                )
    info = announce_machine(mem.embedder)
    write_json(args.json, {"results": rows, "embedder": args.embedder, "machine": info})


if __name__ == "__main__":
    main()
