"""Fact tier cost and yield with rules (no LLM) over the LoCoMo dev conversations, and a
paired comparison of two ``mnemo eval`` reports.

Yield: ingests every conversation (one ``add_messages`` per session, the baseline) and then
runs the queued ``turns.facts`` jobs with ``drain``; prints turns, facts kept, facts per user
turn, history events by kind, ms per turn for ingest and for facts, and a sample of facts.

    .venv/bin/python bench/facts.py --data ../shared/data/locomo-dev.json --embedder hashing

``--recall REPORT.json`` then runs the LoCoMo eval on that store, with the facts, profile and
episodes in it (``mnemo eval`` runs no write-path job), and writes its report.

Compare: ``--compare BEFORE.json AFTER.json`` reads two reports of ``mnemo eval ... --json``
over the same questions and prints, per metric, the mean difference (after - before) with a
95% paired bootstrap interval and the share of resamples where it is <= 0 and >= 0
(:func:`paired_bootstrap`), plus how many questions moved up and down.

    .venv/bin/python bench/facts.py --compare /tmp/base/locomo.json out/locomo.json
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import common
from mnemo import Memory
from mnemo.eval.locomo import evaluate_locomo, ingest_locomo, load_locomo
from mnemo.eval.report import IngestStats

METRICS = ("R@1", "R@5", "R@10", "All@5", "All@10", "NDCG@10", "AllSess@5")


def paired_bootstrap(
    before: list[float], after: list[float], rounds: int = 10_000, seed: int = 0
) -> dict[str, float]:
    """Mean of ``after - before`` over paired questions, with its bootstrap distribution.

    Questions are resampled with replacement ``rounds`` times; ``lo``/``hi`` are the 2.5th
    and 97.5th percentiles of the resampled mean difference, ``p_le0``/``p_ge0`` the shares
    of resamples where it is <= 0 / >= 0 (a one-sided p-value for a gain / a loss).
    """
    diff = np.asarray(after, float) - np.asarray(before, float)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), (rounds, len(diff)))].mean(axis=1)
    return {
        "diff": float(diff.mean()),
        "lo": float(np.percentile(means, 2.5)),
        "hi": float(np.percentile(means, 97.5)),
        "p_le0": float((means <= 0).mean()),
        "p_ge0": float((means >= 0).mean()),
        "up": int((diff > 0).sum()),
        "down": int((diff < 0).sum()),
    }


def compare(before_path: str, after_path: str) -> dict[str, Any]:
    """Per-metric paired bootstrap of two eval reports (questions matched by id)."""
    reports = [json.loads(Path(p).read_text(encoding="utf-8")) for p in (before_path, after_path)]
    rows = [{q["id"]: q["metrics"] for q in r["per_question"]} for r in reports]
    ids = [i for i in rows[0] if i in rows[1]]
    out: dict[str, Any] = {"questions": len(ids), "before": before_path, "after": after_path}
    for m in METRICS:
        if ids and m in rows[0][ids[0]]:
            out[m] = {
                "before": reports[0]["overall"][m],
                "after": reports[1]["overall"][m],
                **paired_bootstrap([rows[0][i][m] for i in ids], [rows[1][i][m] for i in ids]),
            }
    return out


def per_call(mem: Memory, dataset: Any, args: argparse.Namespace) -> IngestStats:
    """Ingest as a chat application does: one ``add_messages`` of ``--per-call`` turns at a time
    (2 = one exchange), so every call queues its own fact job."""
    n, turns, start = args.per_call, 0, time.perf_counter()
    for conv in dataset.conversations:
        for s in conv.sessions:
            messages = [t.message() for t in s.turns]
            for i in range(0, len(messages), n):
                mem.add_messages(messages[i : i + n], user_id=conv.sample_id, session_id=s.id)
            turns += len(messages)
    return IngestStats(turns=turns, seconds=time.perf_counter() - start)


def facts_yield(args: argparse.Namespace) -> dict[str, Any]:
    """Ingest, drain the fact jobs, and describe what the rules kept."""
    dataset = load_locomo(args.data)
    if args.conversations:
        dataset.conversations = dataset.conversations[: args.conversations]
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "facts.db")
        with Memory(db, embedder=args.embedder) as mem:
            stats = (
                ingest_locomo(mem, dataset) if not args.per_call else per_call(mem, dataset, args)
            )
            start = time.perf_counter()
            jobs = mem.drain()
            facts_s = time.perf_counter() - start
            if args.recall:  # recall with the write path's output (facts, profile...) stored
                report = evaluate_locomo(mem, dataset)
                Path(args.recall).write_text(report.model_dump_json(), encoding="utf-8")
            items = mem.list(limit=10_000, kind="fact")
            machine = common.announce_machine(mem.embedder, stderr=True)
            con = sqlite3.connect(db)
            events = dict(con.execute("SELECT event, count(*) FROM history GROUP BY event"))
            con.close()
    user_turns = sum(
        1 for c in dataset.conversations for s in c.sessions for t in s.turns
    )  # every LoCoMo speaker turn is a "user" turn
    sample = random.Random(0).sample([i.content for i in items], min(args.sample, len(items)))
    return {
        "embedder": args.embedder,
        "per_call": args.per_call or "session",
        "conversations": len(dataset.conversations),
        "turns": stats.turns,
        "jobs": jobs,
        "facts_live": len(items),
        "facts_per_turn": round(len(items) / max(user_turns, 1), 3),
        "history_events": events,
        "ingest_ms_per_turn": round(1000 * stats.seconds / max(stats.turns, 1), 2),
        "facts_ms_per_turn": round(1000 * facts_s / max(stats.turns, 1), 2),
        "sample": sample,
        "machine": machine,
    }


def main() -> None:
    """Run the measurement (or the comparison) and print one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="../shared/data/locomo-dev.json")
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--conversations", type=int, default=0, help="0 means all")
    ap.add_argument("--sample", type=int, default=12)
    ap.add_argument(
        "--recall",
        metavar="REPORT",
        help="after the drain, run the LoCoMo eval on the store and write its report here "
        "(compare two with --compare: recall with the facts and profile stored)",
    )
    ap.add_argument(
        "--per-call",
        type=int,
        default=0,
        help="turns per add_messages call (2 = one exchange, as a chat app); 0 = one per session",
    )
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="two eval reports")
    ap.add_argument("--json", help="also write the result to this file")
    args = ap.parse_args()
    out = compare(*args.compare) if args.compare else facts_yield(args)
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
