"""The memory audit on the LoCoMo dev store: counts of findings per kind (and per rule),
per user, with a sample of each, before and after ``fix=True``.

Ingests every dev conversation (one user per conversation, one batch per session), drains
the background jobs (rule facts and the profile; no LLM), then audits every user, reports,
applies the safe fixes and audits again. Re-run it after the fact extraction changes to see
how the counts move.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/audit.py \\
        --data ../shared/data/locomo-dev.json --embedder hashing --json out/audit.json

``--db PATH`` keeps the store (and reuses it when it exists: no ingest then); ``--no-fix``
stops after the first report; ``--unguarded`` ingests with the fact tier's own guards off
(:data:`UNGUARDED`: no duplicate refused, no changed value reconciled), to see what the
audit finds in a store those guards never watched (an import, facts written by hand or by
another extractor); ``--observations`` also stores the dataset's own LLM-written facts
(``observation``) as facts, as an import would.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import common
from mnemo import Memory
from mnemo.eval.locomo import ingest_locomo, load_locomo
from mnemo.ops.audit.findings import FINDING_KINDS, AuditReport


def summary(report: AuditReport, seconds: float, sample: int) -> dict[str, Any]:
    """Counts per kind, per rule (a finding's detail without its values) and per user, the
    safe share, and ``sample`` findings of each kind (their texts)."""
    rules: Counter[str] = Counter()
    users: dict[str, Counter[str]] = {}
    for f in report.findings:
        rule = f.detail if f.kind in ("junk", "duplicate") else f.detail.split(":")[0]
        if f.kind == "duplicate":
            rule = rule.split(" ", 1)[1]  # "3 exact copies" -> "exact copies"
        rules[f"{f.kind}: {rule}"] += 1
        users.setdefault(f.user_id, Counter())[f.kind] += 1
    pick = random.Random(0)
    shown: dict[str, list[dict[str, Any]]] = {}
    for kind in FINDING_KINDS:
        of_kind = [f for f in report.findings if f.kind == kind]
        shown[kind] = [
            {"detail": f.detail, "contents": f.contents, "fix": f.fix.action, "safe": f.fix.safe}
            for f in pick.sample(of_kind, min(sample, len(of_kind)))
        ]
    return {
        "users": report.users,
        "facts": report.facts,
        "profile_values": report.profile_values,
        "counts": report.counts,
        "safe": Counter(f.kind for f in report.findings if f.fix.safe),
        "memories_named": len({i for f in report.findings for i in f.memory_ids}),
        "by_rule": dict(sorted(rules.items())),
        "by_user": {u: dict(c) for u, c in sorted(users.items())},
        "applied": report.applied,
        "seconds": round(seconds, 2),
        "sample": shown,
    }


#: The fact tier's own guards turned off (``--unguarded``): every rule fact stored as it is,
#: no copy refused, no changed value reconciled -- what a store written before those guards,
#: imported from elsewhere or written by hand may hold.
UNGUARDED = {"fact_reconcile": False, "fact_dedupe_threshold": 1.0}


def add_observations(mem: Memory, data: str) -> int:
    """Write the dataset's own ``observation`` facts (an LLM's, one list per session and
    speaker, named: "Caroline attended ...") as facts of each conversation's user, said at
    their session's time: a store of LLM facts, as an import or the LLM path would write.
    Returns how many."""
    started = {
        (c.sample_id, s.id): s.started_at
        for c in load_locomo(data).conversations
        for s in c.sessions
    }
    samples = json.loads(Path(data).read_text(encoding="utf-8"))
    n = 0
    for sample in samples:
        for key, speakers in sample["observation"].items():
            at = started.get((sample["sample_id"], key.removesuffix("_observation")))
            for said in speakers.values():
                for text, _ in said:
                    mem.add(text, user_id=sample["sample_id"], created_at=at, actor="import")
                    n += 1
    return n


def run(args: argparse.Namespace, db: str) -> dict[str, Any]:
    """Ingest (unless the store exists), drain, audit, fix, audit again. The audit runs with
    the default settings whatever the ingest's."""
    ingest_settings = UNGUARDED if args.unguarded else {}
    out: dict[str, Any] = {"embedder": args.embedder, "data": args.data, **ingest_settings}
    if not Path(db).exists():
        with Memory(db, embedder=args.embedder, **ingest_settings) as mem:
            dataset = load_locomo(args.data)
            start = time.perf_counter()
            stats = ingest_locomo(mem, dataset)
            out["turns"] = stats.turns
            out["jobs"] = mem.drain()
            if args.observations:
                out["observations"] = add_observations(mem, args.data)
            out["ingest_and_jobs_s"] = round(time.perf_counter() - start, 1)
    with Memory(db, embedder=args.embedder) as mem:
        out["machine"] = common.announce_machine(mem.embedder, stderr=True)
        start = time.perf_counter()
        report = mem.audit()
        out["before_fix"] = summary(report, time.perf_counter() - start, args.sample)
        if not args.no_fix:
            start = time.perf_counter()
            fixed = mem.audit(fix=True)
            took = round(time.perf_counter() - start, 2)
            out["fix"] = {"applied": fixed.applied, "seconds": took}
            after = mem.audit()
            out["after_fix"] = summary(after, 0.0, args.sample)
    return out


def main() -> None:
    """Run the measurement and print one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="../shared/data/locomo-dev.json")
    ap.add_argument("--embedder", default="hashing")
    ap.add_argument("--db", help="keep the store here (reused when it exists)")
    ap.add_argument("--sample", type=int, default=5, help="findings shown per kind")
    ap.add_argument("--no-fix", action="store_true", help="report only; apply nothing")
    ap.add_argument(
        "--observations", action="store_true", help="also store the dataset's LLM facts"
    )
    ap.add_argument(
        "--unguarded", action="store_true", help="ingest with the fact tier's guards off"
    )
    ap.add_argument("--json", help="also write the result to this file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = run(args, args.db or str(Path(tmp) / "audit.db"))
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
