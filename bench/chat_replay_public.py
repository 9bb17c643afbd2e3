"""Chat replay through the public API only, so it runs on any mnemo version (e.g. main before
``mnemo.memory.exchange`` existed): the "before" column of docs/evaluation.md's chat replay.

The procedure is that of ``mnemo eval <bench> --replay`` (see ``mnemo.eval.replay``), with the
proxy's path spelled out as the older proxy ran it: ``Memory.context`` for the question in a new
session, then ``add_messages`` of the question and the scripted reply (dated at the question's
time, the reply a second later); the second ask is ``Memory.search(limit=20)`` and
``Memory.context(budget 1500)`` in another new session. The store must hold the dataset already
(``mnemo eval ... --db FILE``); each mode runs on a copy of it.

    PYTHONPATH=<checkout> python bench/chat_replay_public.py locomo \\
        --data ../shared/data/locomo-dev.json --db locomo.db --rounds 3 --json out.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import sqlite3
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

import mnemo
from mnemo import Memory
from mnemo.eval.metrics import question_metrics

NON_ANSWER = "I'm not sure, could you remind me?"
_WORD = re.compile(r"[^\W_]+")


def key(text: str) -> str:
    """A text's words, lower-cased (the replay's duplicate test)."""
    return " ".join(_WORD.findall(text.lower()))


def asks_of(bench: str, path: str) -> tuple[list[dict[str, Any]], Callable[[Any], str | None]]:
    """The questions as dicts, and the evidence id of a hit or context item."""
    if bench == "locomo":
        from mnemo.eval.locomo import load_locomo

        ds = load_locomo(path)
        ended = {c.sample_id: c.ended_at for c in ds.conversations}
        asks = [
            {"id": q.id, "user": q.sample_id, "q": q.question, "a": q.answer,
             "now": ended[q.sample_id], "ev": q.evidence}
            for q in ds.questions
        ]  # fmt: skip
        return asks, lambda h: h.metadata.get("dia_id") if h.kind == "message" else None
    from mnemo.eval.longmemeval import load_longmemeval, turn_key

    lme = load_longmemeval(path)
    asks = [
        {"id": q.question_id, "user": q.question_id, "q": q.question, "a": q.answer,
         "now": q.question_date, "ev": q.evidence}
        for q in lme.questions
    ]  # fmt: skip

    def evid(h: Any) -> str | None:
        i = h.metadata.get("turn_index")
        ok = h.kind == "message" and h.session_id and isinstance(i, int)
        return turn_key(h.session_id, i) if ok else None

    return asks, evid


def measure(mem: Memory, asks: list[dict[str, Any]], evid: Callable[[Any], str | None],
            replies: dict[str, list[str]]) -> dict[str, float]:  # fmt: skip
    """The second ask of every question, scored as mnemo.eval.replay.measure does."""
    rows = []
    for a in asks:
        hits = mem.search(a["q"], a["user"], "ask", 20, now=a["now"])
        ranked = [evid(h) for h in hits]
        m = question_metrics(ranked, a["ev"], [1, 5, 10, 20])
        m.pop("NDCG@10")
        rep = set(replies.get(a["id"], []))
        top = any(h.id in rep for h in hits[:3]) or any(e in a["ev"] for e in ranked[:3])
        m["Ans|Ev@3"] = float(top)
        b = mem.context(a["q"], a["user"], "ask", 1500)
        held = {evid(i) for i in b.hits()}
        m["Ctx"] = sum(e in held for e in a["ev"]) / len(a["ev"])
        m["CtxOver"] = float(b.token_count > 1500)
        ks = [key(h.content) for h in hits]
        ki = [key(i.content) for i in b.hits() if i.kind != "profile"]
        m["Dup"] = float(len(ks) != len(set(ks)) or len(ki) != len(set(ki)))
        rows.append(m)
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}


def machine() -> dict[str, Any]:
    """This run's machine, as ``bench/common.py``'s ``machine()`` names it (CPU model, SIMD
    features, kernel class, onnxruntime). The CPU comes from this checkout's
    ``mnemo/embedders/cpu.py`` loaded by its path: the mnemo on ``PYTHONPATH`` may predate it,
    and importing ``common`` would put this checkout's mnemo ahead of the one measured."""
    path = Path(__file__).resolve().parent.parent / "mnemo" / "embedders" / "cpu.py"
    spec = importlib.util.spec_from_file_location("_bench_cpu", path)
    assert spec is not None and spec.loader is not None
    cpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cpu)
    described = cpu.describe_cpu()
    print(f"cpu: {cpu.cpu_line(described)}", flush=True)
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "cpu_model": described["model"],
        "cpu": described,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sqlite": sqlite3.sqlite_version,
        "mnemo": str(Path(mnemo.__file__).resolve().parent),
    }


def main() -> None:
    """Command line entry point."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bench", choices=["locomo", "longmemeval"])
    p.add_argument("--data", required=True)
    p.add_argument("--db", required=True, help="A SQLite store holding the dataset.")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--json", required=True)
    args = p.parse_args()
    asks, evid = asks_of(args.bench, args.data)
    results = []
    with Memory(args.db) as mem:
        results.append({"mode": "fresh", "round": 0, "overall": measure(mem, asks, evid, {})})
    tmp = Path(tempfile.mkdtemp(prefix="mnemo-replay-"))
    for mode in ("non_answer", "answer"):
        db = str(tmp / f"{mode}.db")
        with sqlite3.connect(args.db) as src, sqlite3.connect(db) as dst:
            src.backup(dst)
        replies: dict[str, list[str]] = {}
        with Memory(db) as mem:
            for r in range(1, args.rounds + 1):
                for a in asks:
                    session = f"replay-{r}-" + key(a["id"]).replace(" ", "-")
                    mem.context(a["q"], a["user"], session, 1500)  # what the proxy injected
                    reply = a["a"] if mode == "answer" else NON_ANSWER
                    at = a["now"] + timedelta(seconds=2 * r)
                    turns = [
                        {"role": "user", "content": a["q"], "created_at": at},
                        {"role": "assistant", "content": reply,
                         "created_at": at + timedelta(seconds=1)},
                    ]  # fmt: skip
                    ids = mem.add_messages(turns, a["user"], session)
                    if mode == "answer":
                        replies.setdefault(a["id"], []).append(ids[1])
                overall = measure(mem, asks, evid, replies)
                results.append({"mode": mode, "round": r, "overall": overall})
                print(mode, r, {k: round(v, 3) for k, v in overall.items()}, flush=True)
    out = {"benchmark": args.bench, "dataset": args.data, "results": results, "machine": machine()}
    Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
