"""MnemoStore against LangGraph's own stores on LoCoMo turns put as store items.

Every turn of the dev LoCoMo split becomes one item, ``namespace = ("locomo", <conversation>)``,
``key = <dia_id>``, ``value = {"text": "<speaker>: <turn>", "session": ..., "date": ...}``, put
with one ``batch()`` of ``PutOp`` per conversation, in three stores:

* ``inmemory``: LangGraph's ``InMemoryStore`` (the baseline of every ratio);
* ``sqlite``: LangGraph's ``SqliteStore`` on a temporary file, vector search by sqlite-vec;
* ``mnemo``: ``MnemoStore`` on a temporary SQLite file (and ``mnemo-postgres`` on a scratch
  schema of ``--database-url`` / ``MNEMO_TEST_DATABASE_URL`` when one is given).

All three embed with the **same model**: mnemo's bundled default (all-MiniLM-L6-v2, int8
ONNX), given to LangGraph's stores as an embedding function and to MnemoStore as
``index={"dims": 384, "embed": "mnemo", "fields": ["text"]}``; so what differs is the search:
cosine top-k for LangGraph's stores, mnemo's hybrid search (BM25 + dense + its ranking
signals) for MnemoStore. Each answerable question is asked in its conversation's namespace
with ``limit=10``; recall is the share of its evidence turns among the 10 keys returned (R@10)
and whether all of them are (All@10), overall and per category.

Speed: items/s of the puts (embedding included), and search p50/p95 (query embedding
included), the stores interleaved question by question in a rotating order after one warm-up
search each. Threads are pinned to 1 (OMP, OpenBLAS, MKL, the model's own) before numpy loads.

    .venv/bin/python bench/langgraph_store.py --json docs/results/langgraph-store-locomo-dev.json
    .venv/bin/python bench/langgraph_store.py --conversations 1 --stores inmemory,mnemo
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sqlite3  # noqa: E402
import tempfile  # noqa: E402
from collections import defaultdict  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import ExitStack, contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

from langgraph.store.base import BaseStore, PutOp  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402
from langgraph.store.sqlite import SqliteStore  # noqa: E402
from rich.table import Table  # noqa: E402

import common  # noqa: E402
from common import console, fmt, now  # noqa: E402
from mnemo import Memory  # noqa: E402
from mnemo.config.settings import Settings  # noqa: E402
from mnemo.embedders import Embedder, create_embedder  # noqa: E402
from mnemo.eval.locomo import LocomoDataset, load_locomo  # noqa: E402
from mnemo.integrations.langgraph import MnemoStore  # noqa: E402
from scratch_store import check_url, scratch_store  # noqa: E402

BASELINE = "inmemory"
LIMIT = 10
GROUPS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def items(data: LocomoDataset) -> dict[str, list[PutOp]]:
    """Per conversation, the puts of its turns."""
    out: dict[str, list[PutOp]] = {}
    for conv in data.conversations:
        ns = ("locomo", conv.sample_id)
        out[conv.sample_id] = [
            PutOp(
                ns,
                turn.dia_id,
                {
                    "text": f"{turn.speaker}: {turn.content}",
                    "session": session.id,
                    "date": turn.created_at.isoformat(),
                },
            )
            for session in conv.sessions
            for turn in session.turns
        ]
    return out


@contextmanager
def open_stores(
    names: list[str], embedder: Embedder, database_url: str | None
) -> Iterator[dict[str, BaseStore]]:
    """The stores to compare, each empty, all embedding with ``embedder``."""

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in embedder.embed(texts)]

    lg_index: Any = {"dims": embedder.dim, "embed": embed, "fields": ["text"]}
    mnemo_index: Any = {"dims": embedder.dim, "embed": "mnemo", "fields": ["text"]}
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mnemo-bench-lg-")))
        stores: dict[str, BaseStore] = {}
        for name in names:
            if name == "inmemory":
                stores[name] = InMemoryStore(index=lg_index)
            elif name == "sqlite":
                conn = sqlite_module().connect(str(tmp / "langgraph.db"), check_same_thread=False)
                conn.isolation_level = None
                stack.callback(conn.close)
                # SqliteStore 3.1 reads "text_fields" (and embeds the whole value without it)
                store = SqliteStore(conn, index={**lg_index, "text_fields": ["text"]})
                store.setup()
                stores[name] = store
            elif name == "mnemo":
                mem = Memory(str(tmp / "mnemo.db"), embedder=embedder, embed_threads=1)
                stack.callback(mem.close)
                stores[name] = MnemoStore(mem, index=mnemo_index)
            elif name == "mnemo-postgres" and database_url:
                where = stack.enter_context(scratch_store(database_url, "langgraph"))
                mem = Memory(url=where.db, embedder=embedder, embed_threads=1)
                stack.callback(mem.close)
                stores[name] = MnemoStore(mem, index=mnemo_index)
        yield stores


def sqlite_module() -> ModuleType:
    """``sqlite3``, or pysqlite3 where this Python's sqlite3 cannot load extensions (sqlite-vec
    is one: SqliteStore's vector search needs it)."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    try:
        import pysqlite3.dbapi2 as module  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit(
            "this Python's sqlite3 cannot load extensions: pip install pysqlite3-binary"
        ) from None
    return module


def put_all(store: BaseStore, puts: dict[str, list[PutOp]]) -> float:
    """Write every conversation's items, one batch per conversation; returns seconds."""
    t0 = now()
    for ops in puts.values():
        store.batch(ops)
    return now() - t0


def recall(keys: list[str], evidence: list[str]) -> tuple[float, float]:
    """R@10 (share of the evidence among ``keys``) and All@10 (1.0 when all of it is)."""
    found = sum(1 for e in evidence if e in keys)
    return found / len(evidence), float(found == len(evidence))


def summary(scores: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
    """Per group, its question count and mean R@10 and All@10."""
    return {
        group: {
            "n": len(rs),
            "R@10": sum(r for r, _ in rs) / len(rs),
            "All@10": sum(a for _, a in rs) / len(rs),
        }
        for group, rs in scores.items()
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    data = load_locomo(args.data)
    data.conversations = data.conversations[: args.conversations or None]
    kept = {c.sample_id for c in data.conversations}
    questions = [q for q in data.questions if q.sample_id in kept][: args.questions or None]
    puts = items(data)
    embedder = create_embedder(Settings(embed_threads=1))
    common.warm_up(embedder)
    names = args.stores.split(",")
    url = check_url(args.database_url or os.environ.get("MNEMO_TEST_DATABASE_URL"))
    if url and "mnemo" in names and "mnemo-postgres" not in names:
        names.append("mnemo-postgres")
    n_items = sum(len(v) for v in puts.values())
    out: dict[str, Any] = {
        "benchmark": "langgraph-store",
        "dataset": args.data,
        "items": n_items,
        "questions": len(questions),
        "limit": LIMIT,
        "baseline": BASELINE,
        "machine": common.announce_machine(embedder),
        "stores": {},
    }
    with open_stores(names, embedder, url) as stores:
        for name, store in stores.items():
            seconds = put_all(store, puts)
            out["stores"][name] = {"put_s": seconds, "items_per_s": n_items / seconds}
            console.print(f"{name}: put {n_items} items in {seconds:.1f} s")
            store.search(("locomo",), query="warm-up question", limit=LIMIT)
        times: dict[str, list[float]] = defaultdict(list)
        scores: dict[str, dict[str, list[tuple[float, float]]]] = {
            n: defaultdict(list) for n in stores
        }
        order = list(stores)
        for i, q in enumerate(questions):
            rotated = order[i % len(order) :] + order[: i % len(order)]
            for name in rotated:
                t0 = now()
                found = stores[name].search(("locomo", q.sample_id), query=q.question, limit=LIMIT)
                times[name].append(now() - t0)
                r = recall([f.key for f in found], q.evidence)
                scores[name]["overall"].append(r)
                scores[name][GROUPS.get(q.category, str(q.category))].append(r)
    for name, row in out["stores"].items():
        row["search_ms"] = common.stats_ms(times[name])
        row["recall"] = summary(scores[name])
    base = out["stores"].get(BASELINE)
    if base:
        for row in out["stores"].values():
            row["vs_inmemory"] = {
                "search_p50": row["search_ms"]["p50"] / base["search_ms"]["p50"],
                "search_p95": row["search_ms"]["p95"] / base["search_ms"]["p95"],
                "items_per_s": row["items_per_s"] / base["items_per_s"],
            }
    return out


def show(out: dict[str, Any]) -> None:
    table = Table(title=f"{out['items']} LoCoMo turns as items, {out['questions']} questions")
    for col in ("store", "R@10", "All@10", "multi-hop", "open-dom.", "p50 ms", "p95 ms",
                "p50 x", "items/s", "items/s x"):  # fmt: skip
        table.add_column(col, justify="right")
    for name, row in out["stores"].items():
        rec, ratio = row["recall"], row.get("vs_inmemory", {})
        table.add_row(
            name,
            fmt(rec["overall"]["R@10"], 3),
            fmt(rec["overall"]["All@10"], 3),
            fmt(rec.get("multi-hop", {}).get("R@10"), 3),
            fmt(rec.get("open-domain", {}).get("R@10"), 3),
            fmt(row["search_ms"]["p50"], 1),
            fmt(row["search_ms"]["p95"], 1),
            fmt(ratio.get("search_p50")),
            fmt(row["items_per_s"], 0),
            fmt(ratio.get("items_per_s")),
        )
    console.print(table)


def main(argv: list[str] | None = None, write: Callable[..., None] = common.write_json) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(common.ROOT.parent / "shared/data/locomo-dev.json"))
    ap.add_argument("--stores", default="inmemory,sqlite,mnemo")
    ap.add_argument("--conversations", type=int, default=0, help="only the first N (0: all)")
    ap.add_argument("--questions", type=int, default=0, help="only the first N (0: all)")
    ap.add_argument("--database-url", default=None, help="also run MnemoStore on PostgreSQL")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out = run(args)
    show(out)
    write(args.json, out)


if __name__ == "__main__":
    main()
