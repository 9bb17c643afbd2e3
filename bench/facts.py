"""Fact tier cost and yield with rules (no LLM) over the LoCoMo dev conversations.

Ingests every conversation (one ``add_messages`` per session, the baseline) and then runs the
queued ``turns.facts`` jobs with ``drain``; prints turns, facts kept, facts per user turn,
history events by kind, ms per turn for ingest and for facts, and a sample of facts.

    .venv/bin/python bench/facts.py --data ../shared/data/locomo-dev.json --embedder hashing
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from mnemo import Memory
from mnemo.eval.locomo import ingest_locomo, load_locomo


def main() -> None:
    """Run the measurement and print one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="../shared/data/locomo-dev.json")
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--conversations", type=int, default=0, help="0 means all")
    ap.add_argument("--sample", type=int, default=12)
    args = ap.parse_args()
    dataset = load_locomo(args.data)
    if args.conversations:
        dataset.conversations = dataset.conversations[: args.conversations]
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "facts.db")
        with Memory(db, embedder=args.embedder) as mem:
            stats = ingest_locomo(mem, dataset)
            start = time.perf_counter()
            jobs = mem.drain()
            facts_s = time.perf_counter() - start
            items = mem.list(limit=10_000, kind="fact")
            con = sqlite3.connect(db)
            events = dict(con.execute("SELECT event, count(*) FROM history GROUP BY event"))
            con.close()
    user_turns = sum(
        1 for c in dataset.conversations for s in c.sessions for t in s.turns
    )  # every LoCoMo speaker turn is a "user" turn
    sample = random.Random(0).sample([i.content for i in items], min(args.sample, len(items)))
    print(
        json.dumps(
            {
                "embedder": args.embedder,
                "conversations": len(dataset.conversations),
                "turns": stats.turns,
                "jobs": jobs,
                "facts_live": len(items),
                "facts_per_turn": round(len(items) / max(user_turns, 1), 3),
                "history_events": events,
                "ingest_ms_per_turn": round(1000 * stats.seconds / max(stats.turns, 1), 2),
                "facts_ms_per_turn": round(1000 * facts_s / max(stats.turns, 1), 2),
                "sample": sample,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
