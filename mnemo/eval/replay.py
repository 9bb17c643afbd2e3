"""Chat replay: a benchmark's questions asked the way a live user asks them, then asked again.

Benchmarks ingest a dialogue and ask questions from outside it. In live use every question
goes through the proxy and is itself stored, with the assistant's reply, whatever it was. The
replay measures what that does to recall. After ingest, each question is asked through
:class:`~mnemo.memory.exchange.Exchange` (the proxy's own path: recall, then store the user
turn and the reply in one call) in a new session of its conversation's user, dated at the
question's time, and a scripted upstream replies:

* ``non_answer``: always :data:`NON_ANSWER` ("I'm not sure, could you remind me?");
* ``answer``: the dataset's answer.

Every question is replayed ``rounds`` times; after each round each question is asked once
more, in a new session, without storing it, and scored (``fresh`` is the same ask on the
store as ingested). Per ask:

* ``R@k`` and ``All@k``: the evidence turns among the first k hits of the search the recall
  runs (:meth:`Exchange.search`), as in the benchmark's own evaluation;
* ``Ans|Ev@3`` (``answer`` mode): 1 when the top 3 hits hold a stored reply to this question
  (any round) or an evidence turn;
* ``Ctx``: the share of the evidence turns the context bundle holds (``budget`` tokens), and
  ``CtxOver``: 1 when the bundle's token count exceeds its budget;
* ``Dup``: 1 when the hit list (first ``max(ks)`` hits) or the bundle holds two items whose
  texts are equal (letters and digits, case-insensitive).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from mnemo.embedders.cpu import describe_cpu
from mnemo.eval.metrics import aggregate, question_metrics
from mnemo.eval.report import settings_summary
from mnemo.memory.exchange import Exchange
from mnemo.memory.facade import Memory
from mnemo.retrieval.duplicates import text_key
from mnemo.schemas import ContextItem, Hit

Mode = Literal["fresh", "non_answer", "answer"]
#: The scripted upstream's reply when it does not know.
NON_ANSWER = "I'm not sure, could you remind me?"
#: The replay modes, in the order they are run and reported.
MODES: tuple[Mode, ...] = ("fresh", "non_answer", "answer")
#: How many of the top hits the answer-or-evidence check looks at.
ANSWER_TOP = 3
Item = Hit | ContextItem
Progress = Callable[[int], None]


@dataclass
class Ask:
    """One benchmark question as a live user would ask it."""

    id: str
    group: str
    user_id: str
    question: str
    answer: str
    now: datetime
    evidence: list[str]
    #: the evidence id of a hit or context item (None for anything else)
    evidence_of: Callable[[Item], str | None]
    replies: list[str] = field(default_factory=list)  # ids of the stored replies to it


class RoundResult(BaseModel):
    """The metrics of the asks after one round of replay (round 0: the fresh store)."""

    mode: str
    round: int
    questions: int
    overall: dict[str, float]
    groups: dict[str, dict[str, float]]
    counts: dict[str, int]
    seconds: float


class ReplayReport(BaseModel):
    """Chat replay results: every mode and round, with the run's provenance."""

    benchmark: str
    dataset: str
    embedder: str
    settings: dict[str, Any]
    budget_tokens: int
    rounds: int
    ks: list[int]
    metrics: list[str]
    results: list[RoundResult] = Field(default_factory=list)
    cpu: dict[str, Any] = Field(
        default_factory=describe_cpu, description="The CPU the run measured (see Report.cpu)."
    )

    def result(self, mode: str, round_: int) -> RoundResult | None:
        """The result of one mode after ``round_`` rounds (None when not measured)."""
        return next((r for r in self.results if r.mode == mode and r.round == round_), None)

    def to_json(self) -> str:
        """The report as indented JSON."""
        return self.model_dump_json(indent=2)


def metric_names(ks: Sequence[int]) -> list[str]:
    """Column names in report order."""
    return [
        *(f"R@{k}" for k in ks),
        *(f"All@{k}" for k in ks),
        f"Ans|Ev@{ANSWER_TOP}",
        "Ctx",
        "CtxOver",
        "Dup",
    ]


def has_duplicate_texts(contents: Sequence[str]) -> bool:
    """True when two of ``contents`` have the same text key (see retrieval.duplicates)."""
    keys = [text_key(c) for c in contents]
    return len(keys) != len(set(keys))


def reply_for(ask: Ask, mode: Mode) -> str:
    """The scripted upstream's reply to ``ask`` in ``mode``."""
    return ask.answer if mode == "answer" else NON_ANSWER


def replay_round(
    mem: Memory, asks: Sequence[Ask], mode: Mode, round_: int, progress: Progress | None = None
) -> None:
    """Ask every question once through the proxy's path and store the scripted reply."""
    for ask in asks:
        session = f"replay-{round_}-{text_key(ask.id).replace(' ', '-')}"[:128]
        msgs = [{"role": "user", "content": ask.question}]
        ex = Exchange(mem, msgs, ask.user_id, session, now=ask.now)
        ex.recall()  # what the proxy injects upstream; the scripted upstream ignores it
        at = ask.now + timedelta(seconds=2 * round_)
        ids = ex.store(reply_for(ask, mode), metadata={"source": "replay", "mode": mode}, at=at)
        if mode == "answer":
            ask.replies += ids[1:]
        if progress is not None:
            progress(1)


def measure(
    mem: Memory,
    asks: Sequence[Ask],
    mode: Mode,
    round_: int,
    ks: Sequence[int],
    budget: int,
    progress: Progress | None = None,
) -> RoundResult:
    """Ask every question again (nothing stored) and score the hits and the bundle."""
    start = time.perf_counter()
    limit = max(ks)
    rows: list[tuple[str, dict[str, float]]] = []
    for ask in asks:
        ex = Exchange(
            mem,
            [{"role": "user", "content": ask.question}],
            ask.user_id,
            f"ask-{round_}",
            budget_tokens=budget,
            now=ask.now,
        )
        hits = ex.search(limit)
        ranked = [ask.evidence_of(h) for h in hits]
        metrics = question_metrics(ranked, ask.evidence, ks)
        metrics.pop("NDCG@10", None)
        top = hits[:ANSWER_TOP]
        replies = set(ask.replies)
        found = any(h.id in replies for h in top) or any(e in ask.evidence for e in ranked[:3])
        metrics[f"Ans|Ev@{ANSWER_TOP}"] = float(found)
        bundle = ex.recall()
        items = bundle.hits() if bundle is not None else []
        held = {ask.evidence_of(i) for i in items}
        metrics["Ctx"] = sum(e in held for e in ask.evidence) / len(ask.evidence)
        metrics["CtxOver"] = float(bundle is not None and bundle.token_count > budget)
        dup = has_duplicate_texts([h.content for h in hits])
        dup = dup or has_duplicate_texts([i.content for i in items if i.kind != "profile"])
        metrics["Dup"] = float(dup)
        rows.append((ask.group, metrics))
        if progress is not None:
            progress(1)
    per_group, overall, counts = aggregate(rows)
    return RoundResult(
        mode=mode,
        round=round_,
        questions=len(rows),
        overall=overall,
        groups=per_group,
        counts=counts,
        seconds=time.perf_counter() - start,
    )


def copy_sqlite(source: str, target: str) -> None:
    """Copy a SQLite store with SQLite's online backup (consistent even with a WAL)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def new_report(
    benchmark: str, dataset: str, mem: Memory, ks: Sequence[int], budget: int, rounds: int
) -> ReplayReport:
    """An empty report for a replay run on ``mem``'s settings."""
    return ReplayReport(
        benchmark=benchmark,
        dataset=dataset,
        embedder=mem.embedder.id,
        settings=settings_summary(mem.settings),
        budget_tokens=budget,
        rounds=rounds,
        ks=list(ks),
        metrics=metric_names(ks),
    )


def run_mode(
    mem: Memory,
    asks: Sequence[Ask],
    mode: Mode,
    rounds: int,
    ks: Sequence[int],
    budget: int,
    progress: Progress | None = None,
) -> list[RoundResult]:
    """``fresh``: one measurement; a replay mode: ``rounds`` rounds, each measured."""
    for ask in asks:
        ask.replies = []
    if mode == "fresh":
        return [measure(mem, asks, mode, 0, ks, budget, progress)]
    out = []
    for r in range(1, rounds + 1):
        replay_round(mem, asks, mode, r, progress)
        out.append(measure(mem, asks, mode, r, ks, budget, progress))
    return out


__all__ = [
    "ANSWER_TOP",
    "MODES",
    "NON_ANSWER",
    "Ask",
    "ReplayReport",
    "RoundResult",
    "copy_sqlite",
    "has_duplicate_texts",
    "measure",
    "metric_names",
    "new_report",
    "replay_round",
    "reply_for",
    "run_mode",
]
