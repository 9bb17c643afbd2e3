"""What a filter costs a search: ``Memory.search`` with vs without a filter, 100k memories.

One user holds N memories (``--n``, default 100k: the synthetic corpus's conversation-like
texts of ``corpus.synthetic_turns``), each with ``metadata = {"category": c, "n": i}`` (ten
categories) and one of ten tags. The store is built fast: batches of 5,000 memories written
through the store in one transaction each (``store.rows.apply_facts``: rows, tags, history and
full text, as ``Memory.add`` writes them one by one), embedded by the **hashing** embedder
(deterministic and cheap: the bench measures the filter, not the model; a real embedder adds
the same query-embedding time to both sides).

For ``--queries`` distinct questions (one warm-up excluded), interleaved query by query and in
a rotating order, three searches (``limit=10``, default settings):

* ``none``: no filter;
* ``metadata``: ``{"category": "c3"}`` (one metadata condition; 10% of the rows match);
* ``tag``: ``{"tags": "t7"}`` (one tag condition; 10% match).

Thread counts are pinned to 1 (OMP, OpenBLAS, MKL; numpy's BLAS) before numpy loads. Each
backend runs in a scratch store (a temporary SQLite file; a schema of
``--database-url``/``MNEMO_TEST_DATABASE_URL`` on PostgreSQL), dropped afterwards. Reported:
p50/p95 per variant, and each filtered variant's p50 and p95 over the unfiltered one.

    .venv/bin/python bench/filters.py --json docs/results/filters-100k.json
    .venv/bin/python bench/filters.py --n 20k --queries 50 --backends sqlite
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
from typing import Any  # noqa: E402

from rich.table import Table  # noqa: E402

import common  # noqa: E402
import corpus  # noqa: E402
from common import console, fmt, now  # noqa: E402
from mnemo import Memory  # noqa: E402
from mnemo.ids import MEMORY_PREFIX, new_id  # noqa: E402
from mnemo.schemas import format_time, utcnow  # noqa: E402
from mnemo.storage.base import FactBatch, NewMemory  # noqa: E402
from scratch_store import check_url, scratch_store  # noqa: E402

USER = "bench-filters"
BATCH = 5_000
LIMIT = 10
VARIANTS: dict[str, dict[str, Any] | None] = {
    "none": None,
    "metadata": {"category": "c3"},
    "tag": {"tags": "t7"},
}


def build(mem: Memory, n: int) -> float:
    """Write ``n`` memories of :data:`USER` in batches of :data:`BATCH`; returns seconds."""
    texts = [t["content"] for t in corpus.synthetic_turns(n)]
    t0 = now()
    stamp = format_time(utcnow())
    for start in range(0, n, BATCH):
        part = texts[start : start + BATCH]
        hashes, vectors = mem.embedding(part)
        adds = [
            NewMemory(
                id=new_id(MEMORY_PREFIX), tenant=mem.tenant, user_id=USER, session_id=None,
                kind="fact", content=text, tags=[f"t{i % 10}"],
                metadata={"category": f"c{i % 10}", "n": i}, importance=0.5, confidence=1.0,
                source_message_ids=[], created_at=stamp, content_hash=h,
                embedder=mem.embedder.id, embedding=v,
            )
            for i, text, h, v in zip(range(start, start + len(part)), part, hashes, vectors,
                                     strict=True)
        ]  # fmt: skip
        mem.store.rows.apply_facts(FactBatch(mem.tenant, USER, "bench", [], [], adds=adds))
        console.print(f"[dim]  built {start + len(part):,} / {n:,}[/dim]")
    return now() - t0


def measure(mem: Memory, queries: list[str]) -> dict[str, Any]:
    """Interleaved timings of every variant over ``queries`` (the first one warms up)."""
    samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
    short: dict[str, int] = {name: 0 for name in VARIANTS}
    names = list(VARIANTS)
    for q_i, query in enumerate(queries):
        order = names[q_i % len(names) :] + names[: q_i % len(names)]
        for name in order:
            t0 = now()
            hits = mem.search(query, user_id=USER, limit=LIMIT, filters=VARIANTS[name])
            took = now() - t0
            if q_i == 0:
                continue
            samples[name].append(took)
            short[name] += len(hits) < LIMIT
    stats = {name: common.stats_ms(s) for name, s in samples.items()}
    base = stats["none"]
    out: dict[str, Any] = {"variants": {}}
    for name, s in stats.items():
        out["variants"][name] = {
            **s,
            "filter": VARIANTS[name],
            "short_pages": short[name],
            "p50_ratio": s["p50"] / base["p50"],
            "p95_ratio": s["p95"] / base["p95"],
        }
    return out


def run_backend(kind: str, url: str | None, n: int, queries: list[str]) -> dict[str, Any]:
    """Build a scratch store of ``kind`` and measure it."""
    with scratch_store(url if kind == "postgres" else None, f"filters{n}") as scratch:
        target = {"url": scratch.db} if kind == "postgres" else {"path": scratch.db}
        console.print(f"[bold]{kind}[/bold]: {scratch.label}")
        with Memory(**target, embedder="hashing") as mem:
            built = build(mem, n)
            result = measure(mem, queries)
        return {"store": scratch.label, "build_s": built, **result}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print a table per backend and write ``--json``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=common.parse_size, default=100_000)
    p.add_argument("--queries", type=int, default=101)
    p.add_argument("--backends", default="sqlite,postgres")
    p.add_argument("--database-url", default=os.environ.get("MNEMO_TEST_DATABASE_URL"))
    p.add_argument("--json")
    args = p.parse_args(argv)
    url = check_url(args.database_url)
    queries = corpus.synthetic_queries(args.queries)
    random.Random(0).shuffle(queries)
    report: dict[str, Any] = {
        "bench": "filters",
        "n": args.n,
        "limit": LIMIT,
        "embedder": "hashing",
        "threads": 1,
        "machine": common.announce_machine(),
        "backends": {},
    }
    for kind in args.backends.split(","):
        if kind == "postgres" and not url:
            console.print("[yellow]postgres skipped: no --database-url[/yellow]")
            continue
        result = run_backend(kind, url, args.n, queries)
        report["backends"][kind] = result
        table = Table(title=f"{kind}: search at {common.label(args.n)} memories (ms)")
        for col in ("variant", "p50", "p95", "p50 x", "p95 x", "short pages"):
            table.add_column(col, justify="right")
        for name, s in result["variants"].items():
            table.add_row(
                name, fmt(s["p50"]), fmt(s["p95"]), fmt(s["p50_ratio"]), fmt(s["p95_ratio"]),
                str(s["short_pages"]),
            )  # fmt: skip
        console.print(table)
    common.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
