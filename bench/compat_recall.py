"""R@10 on LoCoMo through mem0's API (``mnemo.compat.mem0``) against mnemo's own API.

The same conversations, three ways, each on a fresh SQLite store:

* ``own``: mnemo's own API as ``mnemo eval locomo`` runs it (``ingest_locomo``: one user per
  conversation, one session per LoCoMo session, then ``search(question, user_id=, now=end)``);
  a hit counts by ``hit.metadata["dia_id"]`` when it is a turn;
* ``infer-false`` and ``infer-true``: the way mem0's docs use mem0, one ``add`` per message
  (``user_id`` and ``run_id`` the conversation, the turn id in ``metadata={"dia_id": ...}``,
  the message ``{"role", "name": speaker, "content", "created_at"}``: mem0 reads role and
  content, mnemo also the speaker and the time), with ``infer=False`` or the default
  ``infer=True`` (no LLM: rules), then ``search(question, filters={"user_id": ...},
  top_k=10)``; a result counts by ``result["metadata"]["dia_id"]``.

R@10 is ``mnemo.eval.metrics``'s: the share of a question's evidence turns among the first
ten, averaged over the questions of categories 1-4. Threads are pinned to one
(``OMP_NUM_THREADS=1``, ``embed_threads=1``). Run from a checkout::

    OMP_NUM_THREADS=1 nice -n 5 python bench/compat_recall.py \\
        --data ../shared/data/locomo-dev.json [--conversations 1] [--json out.json]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from statistics import mean
from typing import Any

from common import announce_machine, console, write_json
from mnemo import Memory as Mnemo
from mnemo.compat.mem0 import Memory as Mem0
from mnemo.eval.locomo import LocomoDataset, Question, ingest_locomo, load_locomo
from mnemo.eval.metrics import question_metrics

K = 10
PROTOCOLS = ("own", "infer-false", "infer-true")


def first_conversations(data: LocomoDataset, n: int | None) -> LocomoDataset:
    """The first ``n`` conversations and their questions (None: all)."""
    if n is None:
        return data
    kept = data.conversations[:n]
    ids = {c.sample_id for c in kept}
    return replace(data, conversations=kept,
                   questions=[q for q in data.questions if q.sample_id in ids])  # fmt: skip


def open_store(folder: str, name: str, embedder: str) -> Mnemo:
    """A fresh SQLite store with the embedder pinned to one thread."""
    return Mnemo(str(Path(folder) / f"{name}.db"), embedder=embedder, embed_threads=1)


def recall(questions: list[Question], ranked: Callable[[Question], list[str | None]]) -> float:
    """Mean R@10 over the questions."""
    return mean(question_metrics(ranked(q), q.evidence, [K])[f"R@{K}"] for q in questions)


def run_own(mem: Mnemo, data: LocomoDataset) -> dict[str, Any]:
    """mnemo's own API, as ``mnemo eval locomo`` runs it."""
    t0 = time.perf_counter()
    ingest_locomo(mem, data)
    added = time.perf_counter() - t0
    ended = {c.sample_id: c.ended_at for c in data.conversations}

    def ranked(q: Question) -> list[str | None]:
        hits = mem.search(q.question, user_id=q.sample_id, limit=20, now=ended[q.sample_id])
        return [h.metadata.get("dia_id") if h.kind == "message" else None for h in hits]

    return {"R@10": recall(data.questions, ranked), "ingest_s": added}


def run_compat(mem: Mnemo, data: LocomoDataset, infer: bool) -> dict[str, Any]:
    """mem0's protocol through the compat layer: one add per message, then search."""
    m0 = Mem0(memory=mem)
    adds, t0 = 0, time.perf_counter()
    for conv in data.conversations:
        for session in conv.sessions:
            for t in session.turns:
                message = {"role": t.role, "name": t.speaker, "content": t.content,
                           "created_at": t.created_at}  # fmt: skip
                m0.add([message], user_id=conv.sample_id, run_id=conv.sample_id,
                       metadata={"dia_id": t.dia_id}, infer=infer)  # fmt: skip
                adds += 1
    added = time.perf_counter() - t0

    def ranked(q: Question) -> list[str | None]:
        found = m0.search(q.question, filters={"user_id": q.sample_id}, top_k=K)["results"]
        return [(r.get("metadata") or {}).get("dia_id") for r in found]

    return {"R@10": recall(data.questions, ranked), "ingest_s": added,
            "adds_per_s": adds / added if added else None}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default="../shared/data/locomo-dev.json")
    p.add_argument("--conversations", type=int, default=None, help="the first N only")
    p.add_argument("--embedder", default="local")
    p.add_argument("--protocols", default=",".join(PROTOCOLS))
    p.add_argument("--json", default=None)
    a = p.parse_args()
    data = first_conversations(load_locomo(a.data), a.conversations)
    out: dict[str, Any] = {"data": a.data, "conversations": len(data.conversations),
                           "questions": len(data.questions), "embedder": a.embedder}  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        for name in a.protocols.split(","):
            with open_store(folder, name, a.embedder) as mem:
                if name == "own":
                    out[name] = run_own(mem, data)
                else:
                    out[name] = run_compat(mem, data, infer=name == "infer-true")
                if "machine" not in out:
                    out["machine"] = announce_machine(mem.embedder)
            console.print(f"{name}: {out[name]}")
    write_json(a.json, out)


if __name__ == "__main__":
    main()
