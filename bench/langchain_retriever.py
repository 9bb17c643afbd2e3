"""MnemoRetriever against LangChain's own in-memory vector store on the dev LoCoMo turns.

What a LangChain app would do with each: every turn of a conversation goes into

* ``vectorstore`` (the baseline): LangChain's ``InMemoryVectorStore``, one ``Document`` per
  turn (``"<speaker>: <turn>"``, the turn's dia_id in its metadata), searched through
  ``as_retriever(search_kwargs={"k": 10})``;
* ``mnemo``: a ``Memory`` on a temporary SQLite file, the conversation's sessions written with
  ``add_messages`` (speaker names, session dates), searched through
  ``MnemoRetriever(memory=..., user_id=<conversation>, k=10, kinds=["message"])``.

Both embed with the same model (mnemo's bundled all-MiniLM-L6-v2, given to LangChain as an
``Embeddings``), so what differs is the retrieval. Each answerable question is asked in its
own conversation; recall is the share of its evidence turns among the 10 documents (R@10) and
whether all are (All@10), overall and per category. Speed: retriever ``invoke`` p50/p95 (query
embedding included), the two interleaved question by question, threads pinned to 1.

    .venv/bin/python bench/langchain_retriever.py \
        --json docs/results/langchain-retriever-locomo-dev.json
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import tempfile  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402
from rich.table import Table  # noqa: E402

import common  # noqa: E402
from common import console, fmt, now  # noqa: E402
from langgraph_store import GROUPS, LIMIT, recall, summary  # noqa: E402
from mnemo import Memory  # noqa: E402
from mnemo.config.settings import Settings  # noqa: E402
from mnemo.embedders import create_embedder  # noqa: E402
from mnemo.eval.locomo import ingest_locomo, load_locomo  # noqa: E402
from mnemo.integrations.langchain import MnemoRetriever  # noqa: E402
from mnemo.integrations.langgraph.embeddings import MnemoEmbeddings  # noqa: E402

BASELINE = "vectorstore"


def run(args: argparse.Namespace) -> dict[str, Any]:
    data = load_locomo(args.data)
    data.conversations = data.conversations[: args.conversations or None]
    kept = {c.sample_id for c in data.conversations}
    questions = [q for q in data.questions if q.sample_id in kept][: args.questions or None]
    embedder = create_embedder(Settings(embed_threads=1))
    common.warm_up(embedder)
    out: dict[str, Any] = {
        "benchmark": "langchain-retriever",
        "dataset": args.data,
        "turns": data.turn_count,
        "questions": len(questions),
        "k": LIMIT,
        "baseline": BASELINE,
        "machine": common.announce_machine(embedder),
        "arms": {},
    }
    with tempfile.TemporaryDirectory(prefix="mnemo-bench-lc-") as tmp:
        retrievers: dict[str, dict[str, BaseRetriever]] = {BASELINE: {}, "mnemo": {}}
        t0 = now()
        for conv in data.conversations:
            store = InMemoryVectorStore(MnemoEmbeddings(embedder))
            store.add_documents(
                [
                    Document(f"{t.speaker}: {t.content}", metadata={"dia_id": t.dia_id})
                    for s in conv.sessions
                    for t in s.turns
                ]
            )
            retrievers[BASELINE][conv.sample_id] = store.as_retriever(search_kwargs={"k": LIMIT})
        out["arms"][BASELINE] = {"ingest_s": now() - t0}
        mem = Memory(str(Path(tmp) / "mnemo.db"), embedder=embedder, embed_threads=1)
        try:
            t0 = now()
            ingest_locomo(mem, data)
            out["arms"]["mnemo"] = {"ingest_s": now() - t0}
            ids = {m.id: m.metadata.get("dia_id") for m in _turns(mem, kept)}
            for conv in data.conversations:
                retrievers["mnemo"][conv.sample_id] = MnemoRetriever(
                    memory=mem, user_id=conv.sample_id, k=LIMIT, kinds=["message"]
                )
            times: dict[str, list[float]] = defaultdict(list)
            scores: dict[str, dict[str, list[tuple[float, float]]]] = {
                arm: defaultdict(list) for arm in retrievers
            }
            order = list(retrievers)
            for i, q in enumerate(questions):
                for arm in order[i % 2 :] + order[: i % 2]:
                    t0 = now()
                    docs = retrievers[arm][q.sample_id].invoke(q.question)
                    times[arm].append(now() - t0)
                    keys = [_dia_id(d, ids) for d in docs]
                    r = recall([k for k in keys if k], q.evidence)
                    scores[arm]["overall"].append(r)
                    scores[arm][GROUPS.get(q.category, str(q.category))].append(r)
        finally:
            mem.close()
    for arm, row in out["arms"].items():
        row["invoke_ms"] = common.stats_ms(times[arm])
        row["recall"] = summary(scores[arm])
    base = out["arms"][BASELINE]["invoke_ms"]
    for row in out["arms"].values():
        row["vs_vectorstore"] = {
            "invoke_p50": row["invoke_ms"]["p50"] / base["p50"],
            "invoke_p95": row["invoke_ms"]["p95"] / base["p95"],
        }
    return out


def _turns(mem: Memory, users: set[str]) -> list[Any]:
    """Every stored turn of ``users`` (their ids map back to LoCoMo's dia_ids)."""
    turns: list[Any] = []
    for user in sorted(users):
        cursor: str | None = None
        while True:
            page = mem.messages_page(user, limit=500, cursor=cursor)
            turns += page.items
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
    return turns


def _dia_id(doc: Document, ids: dict[str, Any]) -> str | None:
    """The LoCoMo dia_id of a retrieved document: its metadata's, or its stored turn's."""
    return doc.metadata.get("dia_id") or ids.get(str(doc.metadata.get("id")))


def show(out: dict[str, Any]) -> None:
    table = Table(title=f"{out['turns']} LoCoMo turns, {out['questions']} questions, k={out['k']}")
    for col in ("retriever", "R@10", "All@10", "multi-hop", "open-dom.", "p50 ms", "p95 ms",
                "p50 x"):  # fmt: skip
        table.add_column(col, justify="right")
    for arm, row in out["arms"].items():
        rec = row["recall"]
        table.add_row(
            arm,
            fmt(rec["overall"]["R@10"], 3),
            fmt(rec["overall"]["All@10"], 3),
            fmt(rec.get("multi-hop", {}).get("R@10"), 3),
            fmt(rec.get("open-domain", {}).get("R@10"), 3),
            fmt(row["invoke_ms"]["p50"], 1),
            fmt(row["invoke_ms"]["p95"], 1),
            fmt(row["vs_vectorstore"]["invoke_p50"]),
        )
    console.print(table)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(common.ROOT.parent / "shared/data/locomo-dev.json"))
    ap.add_argument("--conversations", type=int, default=0, help="only the first N (0: all)")
    ap.add_argument("--questions", type=int, default=0, help="only the first N (0: all)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out = run(args)
    show(out)
    common.write_json(args.json, out)


if __name__ == "__main__":
    main()
