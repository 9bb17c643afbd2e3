"""PostgreSQL + pgvector beside SQLite, on one multi-user table, in the same run.

For each size N (``--sizes 100k,1m``) both stores get N synthetic messages spread over
``--users`` users (deterministic texts from ``corpus.py``; synthetic clustered unit vectors,
not the embedder, so building is fast). Then:

* **bulk import**: PostgreSQL binary ``COPY`` into ``messages`` (tsvector computed, GIN and
  b-tree indexes maintained), then the HNSW build, timed apart; SQLite ``add_messages``-style
  inserts through the store in batches of 10k (FTS5 triggers maintained);
* **vector query for one user** (random users, ``--queries`` of them, top 10):
  PostgreSQL store-side ``vector_search`` through the HNSW index (iterative scan; recall@10
  against the exact answer reported), the same query without the index (exact, via the user
  b-tree), and SQLite's design: the user's vectors loaded from the store plus an exact numpy
  product (cold), and the product alone once loaded (warm);
* **Memory.search** (the whole pipeline: lexical + in-process exact index; hashing query
  embedder) on both stores;
* **four processes writing at once** (``--writers``) for ``--write-seconds``: each calls
  ``Memory.add_messages`` with 10 turns for random users; turns/s and per-call p50/p95.

    .venv/bin/python bench/postgres.py --url postgresql://postgres@127.0.0.1:55432/postgres
    .venv/bin/python bench/postgres.py --sizes 100k --json bench/results/postgres.json

The PostgreSQL data goes into a schema ``bench_<N>`` (dropped afterwards unless ``--keep``);
the SQLite files into ``bench/.cache/``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np
from rich.table import Table

import common
import corpus
from common import console, fmt, now
from mnemo import Memory
from mnemo.index.vectors import single_blas_thread
from mnemo.storage.ports.search import VectorLoad
from mnemo.storage.postgres.store import PostgresStore
from mnemo.storage.scope import ReadScope
from mnemo.storage.sqlite.store import SQLiteStore
from postgres_build import (
    DIM,
    EMBEDDER,
    build_postgres,
    build_sqlite,
    drop_schema,
    query_vectors,
    schema_url,
)


# ---- searching ----------------------------------------------------------------------------
def pg_vector_queries(store: PostgresStore, users: list[str], qs: np.ndarray) -> dict[str, Any]:
    """HNSW store-side search and the exact query, timed; recall@10 of HNSW vs exact."""
    hnsw, exact, recall = [], [], []
    for user, q in zip(users, qs, strict=True):
        t0 = now()
        scope = ReadScope("default", user, kinds=("message",))
        got = store.search.vector_search(scope, EMBEDDER, q, 10)
        hnsw.append(now() - t0)
        t0 = now()
        with store.db.connection() as c:
            truth = c.execute(
                "SELECT rowid FROM messages WHERE tenant='default' AND user_id=%s"
                " AND embedder=%s ORDER BY embedding <=> %s LIMIT 10",
                (user, EMBEDDER, q),
            ).fetchall()
        exact.append(now() - t0)
        want = {r["rowid"] for r in truth}
        recall.append(len(want & {rid for (_, rid), _ in got}) / max(len(want), 1))
    return {
        "hnsw": common.stats_ms(hnsw),
        "exact_sql": common.stats_ms(exact),
        "hnsw_recall_at_10": float(np.mean(recall)),
        "per_user_plan": per_user_plan(store, users[0], qs[0]),
        **pg_global_queries(store, qs),
    }


def per_user_plan(store: PostgresStore, user: str, q: np.ndarray) -> str:
    """Which index the planner picks for one user's vector query (hnsw or the user b-tree)."""
    with store.db.connection() as c:
        plan = c.execute(
            f"EXPLAIN SELECT rowid FROM messages WHERE tenant='default' AND user_id=%s"
            f" AND embedder=%s ORDER BY embedding::vector({DIM}) <=> %s LIMIT 10",
            (user, EMBEDDER, q),
        ).fetchall()
    text = " ".join(str(r) for r in plan).lower()
    return "hnsw" if "hnsw" in text else "b-tree + exact sort"


def pg_global_queries(store: PostgresStore, qs: np.ndarray) -> dict[str, Any]:
    """Top 10 over the whole table (every user): HNSW vs an exact scan; recall@10."""
    hnsw, exact, recall = [], [], []
    with store.db.connection() as c:
        for q in qs[:50]:
            t0 = now()
            got = c.execute(
                f"SELECT rowid FROM messages WHERE embedder=%s"
                f" ORDER BY embedding::vector({DIM}) <=> %s LIMIT 10",
                (EMBEDDER, q),
            ).fetchall()
            hnsw.append(now() - t0)
            t0 = now()
            truth = c.execute(
                "SELECT rowid FROM messages WHERE embedder=%s ORDER BY embedding <=> %s LIMIT 10",
                (EMBEDDER, q),
            ).fetchall()
            exact.append(now() - t0)
            want = {r["rowid"] for r in truth}
            recall.append(len(want & {r["rowid"] for r in got}) / max(len(want), 1))
    return {
        "global_hnsw": common.stats_ms(hnsw),
        "global_exact_sql": common.stats_ms(exact),
        "global_hnsw_recall_at_10": float(np.mean(recall)),
    }


def sqlite_global_numpy(store: SQLiteStore, qs: np.ndarray) -> dict[str, Any]:
    """SQLite's design over every row at once: all vectors in memory, exact numpy top 10."""
    blobs = [r[0] for r in store.db.get().execute("SELECT embedding FROM messages")]
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), DIM)
    times = []
    for q in qs[:50]:
        t0 = now()
        with single_blas_thread():  # as the pipeline runs it
            sims = matrix @ q
        top = np.argpartition(-sims, 10)[:10]
        _ = top[np.argsort(-sims[top])]
        times.append(now() - t0)
    return {"global_numpy": common.stats_ms(times)}


def sqlite_vector_queries(store: SQLiteStore, users: list[str], qs: np.ndarray) -> dict[str, Any]:
    """SQLite's design: load the user's vectors (cold) and an exact numpy top 10 (warm)."""
    cold, warm = [], []
    for user, q in zip(users, qs, strict=True):
        t0 = now()
        state = store.search.vector_state("default", user)
        rows = store.search.load_vectors(VectorLoad("default", user, EMBEDDER, None, state))
        t1 = now()
        with single_blas_thread():
            sims = rows.vectors @ q
        top = np.argpartition(-sims, min(10, len(sims) - 1))[:10]
        _ = top[np.argsort(-sims[top])]
        t2 = now()
        cold.append(t2 - t0)
        warm.append(t2 - t1)
    return {"load_and_numpy": common.stats_ms(cold), "numpy_only": common.stats_ms(warm)}


def memory_search(mem: Memory, users: list[str], queries: list[str]) -> dict[str, Any]:
    """``Memory.search`` p50/p95 over random users (first search per user loads vectors)."""
    mem.search("warm up", user_id=users[0])
    times = []
    for user, text in zip(users, queries, strict=True):
        t0 = now()
        mem.search(text, user_id=user, limit=10)
        times.append(now() - t0)
    return common.stats_ms(times)


# ---- concurrent writers -------------------------------------------------------------------
def writer(where: str, users: int, seconds: float, seed: int) -> None:
    """One writer process: add_messages of 10 turns for random users until time is up."""
    rng = np.random.default_rng(seed)
    mem = Memory(url=where, embedder="hashing") if where.startswith("postgres") else None
    mem = mem or Memory(where, embedder="hashing")
    texts = corpus.synthetic_turns(2000, seed=seed)
    lat, turns, deadline, k = [], 0, time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        batch = [
            {"role": t["role"], "content": f"{t['content']} (w{seed}.{k}.{j})"}
            for j, t in enumerate(texts[(k * 10) % 1990 : (k * 10) % 1990 + 10])
        ]
        user = f"user{int(rng.integers(users)):05d}"
        t0 = now()
        mem.add_messages(batch, user_id=user, session_id=f"w{seed}")
        lat.append(now() - t0)
        turns, k = turns + len(batch), k + 1
    mem.close()
    print(json.dumps({"turns": turns, "latencies": lat}))


def concurrent_writes(where: str, users: int, procs: int, seconds: float) -> dict[str, Any]:
    """``procs`` writer processes at once; total turns/s and per-call latency."""
    cmd = [sys.executable, __file__, "_writer", where, str(users), str(seconds)]
    env = {**os.environ, "PYTHONPATH": str(common.ROOT)}
    started = [
        subprocess.Popen([*cmd, str(i)], stdout=subprocess.PIPE, text=True, env=env)
        for i in range(procs)
    ]
    t0 = now()
    results = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in started]
    wall = now() - t0
    lat = [x for r in results for x in r["latencies"]]
    total = sum(r["turns"] for r in results)
    return {
        "processes": procs,
        "turns": total,
        "turns_per_s": total / wall,
        **{f"call_{k}": v for k, v in common.stats_ms(lat).items() if k in ("p50", "p95")},
    }


# ---- the run ------------------------------------------------------------------------------
def run_size(args: argparse.Namespace, n: int) -> dict[str, Any]:
    """Everything for one size, PostgreSQL and SQLite side by side."""
    schema = f"bench_{common.label(n)}"
    url = schema_url(args.url, schema)
    sqlite_path = common.CACHE_DIR / f"postgres-bench-{common.label(n)}.db"
    sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(42)
    users = [f"user{int(u):05d}" for u in rng.integers(0, args.users, args.queries)]
    qs, texts = query_vectors(args.queries), corpus.synthetic_queries(args.queries)
    out: dict[str, Any] = {"n": n, "users": args.users}
    console.print(f"[bold]{common.label(n)}[/]: building PostgreSQL (COPY + HNSW) ...")
    pg, out["pg_import"] = build_postgres(url, n, args.users)
    console.print("building SQLite (add_messages in 10k batches) ...")
    lite, out["sqlite_import"] = build_sqlite(sqlite_path, n, args.users)
    console.print("vector queries ...")
    out["pg_vector"] = pg_vector_queries(pg, users, qs)
    out["sqlite_vector"] = sqlite_vector_queries(lite, users, qs) | sqlite_global_numpy(lite, qs)
    console.print("Memory.search ...")
    with Memory(url=url, embedder="hashing") as mem:
        out["pg_search"] = memory_search(mem, users, texts)
    with Memory(str(sqlite_path), embedder="hashing") as mem:
        out["sqlite_search"] = memory_search(mem, users, texts)
    pg.close()
    lite.close()
    if args.writers:
        console.print(f"{args.writers} concurrent writers ...")
        out["pg_writes"] = concurrent_writes(url, args.users, args.writers, args.write_seconds)
        out["sqlite_writes"] = concurrent_writes(
            str(sqlite_path), args.users, args.writers, args.write_seconds
        )
    if not args.keep:
        drop_schema(args.url, schema)
    return out


def report(results: list[dict[str, Any]]) -> Table:
    """One row per measurement, PostgreSQL beside SQLite."""
    table = Table(title="PostgreSQL + pgvector vs SQLite (same run)")
    for col in ("N", "measure", "PostgreSQL", "SQLite"):
        table.add_column(col, justify="right" if col != "measure" else "left")
    for r in results:
        n = common.label(r["n"])
        pi, si = r["pg_import"], r["sqlite_import"]
        table.add_row(n, "bulk import rows/s", fmt(pi["rows_per_s"], 0), fmt(si["rows_per_s"], 0))
        table.add_row(n, "HNSW build s (after COPY)", fmt(pi["hnsw_s"], 1), "-")
        pv, sv = r["pg_vector"], r["sqlite_vector"]
        for key, label in (("p50", "p50"), ("p95", "p95")):
            table.add_row(
                n,
                f"one user's top-10 {label} ms (PG vector_search / SQLite load+numpy)",
                fmt(pv["hnsw"][key]),
                fmt(sv["load_and_numpy"][key]),
            )
            table.add_row(
                n,
                f"one user's top-10 {label} ms (PG exact SQL / SQLite numpy warm)",
                fmt(pv["exact_sql"][key]),
                fmt(sv["numpy_only"][key]),
            )
        table.add_row(
            n, "one user: vector_search recall@10 vs exact", fmt(pv["hnsw_recall_at_10"], 3), "-"
        )
        table.add_row(n, "one user: planner's index for vector_search", pv["per_user_plan"], "-")
        for key in ("p50", "p95"):
            table.add_row(
                n,
                f"top-10 over all users {key} ms (PG HNSW / numpy over all rows)",
                fmt(pv["global_hnsw"][key]),
                fmt(sv["global_numpy"][key]),
            )
            table.add_row(
                n,
                f"top-10 over all users {key} ms (PG exact scan)",
                fmt(pv["global_exact_sql"][key]),
                "-",
            )
        table.add_row(
            n, "all users: HNSW recall@10 vs exact", fmt(pv["global_hnsw_recall_at_10"], 3), "-"
        )
        for key in ("p50", "p95"):
            table.add_row(
                n,
                f"Memory.search {key} ms",
                fmt(r["pg_search"][key]),
                fmt(r["sqlite_search"][key]),
            )
        if "pg_writes" in r:
            pw, sw = r["pg_writes"], r["sqlite_writes"]
            table.add_row(
                n,
                f"{pw['processes']} writers: turns/s",
                fmt(pw["turns_per_s"], 0),
                fmt(sw["turns_per_s"], 0),
            )
            for key in ("call_p50", "call_p95"):
                table.add_row(
                    n,
                    f"{pw['processes']} writers: add_messages {key} ms",
                    fmt(pw[key]),
                    fmt(sw[key]),
                )
    return table


def main() -> None:
    """Parse arguments, run every size, print and save."""
    if len(sys.argv) > 1 and sys.argv[1] == "_writer":
        writer(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", default=os.environ.get("MNEMO_TEST_DATABASE_URL"))
    p.add_argument("--sizes", default="100k")
    p.add_argument("--users", type=int, default=1000)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--writers", type=int, default=4)
    p.add_argument("--write-seconds", type=float, default=15.0)
    p.add_argument("--keep", action="store_true", help="Keep the PostgreSQL schema.")
    p.add_argument("--json", help="Also write the results here.")
    args = p.parse_args()
    if not args.url:
        p.error("--url (or MNEMO_TEST_DATABASE_URL) is required: bash ../shared/ci/pgvector.sh")
    results = [run_size(args, common.parse_size(x)) for x in args.sizes.split(",")]
    console.print(report(results))
    info = common.announce_machine()
    common.write_json(args.json, {"machine": info, "results": results})


if __name__ == "__main__":
    main()
