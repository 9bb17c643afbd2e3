"""Throughput of the conversation tiers' jobs (rules, no LLM) over one LoCoMo conversation.

The conversation is added as a chat app would add it, one user/assistant pair per
``add_messages`` call, with every conversation tier on (profile, episodes, session summaries,
rolling summary, eviction), one session per LoCoMo session. Then ``Memory.drain()`` runs the
queued jobs inline and is timed: jobs/s overall, and the time per job kind.

    python bench/jobs.py --embedder hashing [--sample 0] [--json out.json]
    python bench/jobs.py --embedder local
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import common  # noqa: E402
from mnemo import Memory  # noqa: E402
from mnemo.jobs.runner import Handler  # noqa: E402
from rules_extraction import DEFAULT_DATA  # noqa: E402

TIERS = {
    "profile_enabled": True,
    "episodes_enabled": True,
    "session_summary_enabled": True,
    "rolling_summary_enabled": True,
    "max_entries": 500,
}


def sessions(sample: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(session id, turns as messages) of a LoCoMo sample; speaker_a is the user."""
    conv, out = sample["conversation"], []
    n = 1
    while f"session_{n}_date_time" in conv:
        raw = conv.get(f"session_{n}") or []
        msgs = [
            {
                "role": "user" if t["speaker"] == conv["speaker_a"] else "assistant",
                "name": t["speaker"],
                "content": t["text"],
                "metadata": {"dia_id": t["dia_id"]},
            }
            for t in raw
        ]
        if msgs:
            out.append((f"session_{n}", msgs))
        n += 1
    return out


def timed(handlers: dict[str, Handler], spent: dict[str, float]) -> dict[str, Handler]:
    """Handlers that add their run time to ``spent[kind]``."""

    def wrap(kind: str, fn: Handler) -> Handler:
        def run(payload: dict[str, Any]) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(payload)
            finally:
                spent[kind] += time.perf_counter() - t0

        return run

    return {k: wrap(k, f) for k, f in handlers.items()}


def run(embedder: str, sample: dict[str, Any], folder: str) -> dict[str, Any]:
    """Ingest one conversation pair by pair, then time the drain of its jobs."""
    mem = Memory(str(Path(folder) / f"jobs-{embedder}.db"), embedder=embedder, **TIERS)
    t0, turns = time.perf_counter(), 0
    for session_id, msgs in sessions(sample):
        for i in range(0, len(msgs), 2):
            mem.add_messages(msgs[i : i + 2], "u1", session_id)
            turns += len(msgs[i : i + 2])
    ingest_s = time.perf_counter() - t0
    spent: dict[str, float] = defaultdict(float)
    mem.handlers.update(timed(dict(mem.handlers), spent))
    t0 = time.perf_counter()
    ran = mem.drain()
    drain_s = time.perf_counter() - t0
    kinds = Counter(j.kind for j in mem.store.jobs.list_jobs(limit=100_000))
    status = Counter(j.status for j in mem.store.jobs.list_jobs(limit=100_000))
    out = {
        "embedder": mem.embedder.id,
        "turns": turns,
        "ingest_s": round(ingest_s, 3),
        "jobs": ran,
        "drain_s": round(drain_s, 3),
        "jobs_per_s": round(ran / drain_s, 1),
        "turns_per_s": round(turns / drain_s, 1),
        "status": dict(status),
        "per_kind_ms": {k: round(1000 * spent[k] / kinds[k], 2) for k in sorted(kinds)},
        "memories": mem.stats().memories,
        "profile_facts": len(mem.profile("u1")),
        "machine": common.announce_machine(mem.embedder, stderr=True),
    }
    mem.close()
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run, print (and write JSON with ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--sample", type=int, default=0, help="index of the conversation")
    ap.add_argument("--embedder", default="hashing", help="hashing or local")
    ap.add_argument("--json", help="write the result to this file")
    args = ap.parse_args(argv)
    sample = json.loads(Path(args.data).read_text(encoding="utf-8"))[args.sample]
    with tempfile.TemporaryDirectory() as folder:
        out = {"sample_id": sample["sample_id"], **run(args.embedder, sample, folder)}
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
