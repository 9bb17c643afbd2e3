"""What the benchmarks share: a dataset is a set of user histories, each a list of sessions.

LoCoMo has one history per conversation, LongMemEval one per question's haystack; both count
their turns the same way and ingest a history as one ``Memory.add_batches`` call.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from mnemo.eval.report import IngestStats, QuestionResult, Report, build_report, run_questions
from mnemo.schemas import Hit

if TYPE_CHECKING:
    from mnemo.memory.facade import Memory
    from mnemo.memory.turns import TurnBatch


Q = TypeVar("Q")


class HasTurns(Protocol):
    """A session of a history."""

    @property
    def turns(self) -> Sequence[object]:
        """The session's turns, in order."""
        ...


class UserHistories:
    """Counts of a dataset that lists its sessions per user id in :meth:`histories`."""

    def histories(self) -> Mapping[str, Sequence[HasTurns]]:
        """The sessions of each user id."""
        raise NotImplementedError

    @property
    def turn_count(self) -> int:
        """Turns over every history."""
        return sum(self.expected_turns().values())

    @property
    def session_count(self) -> int:
        """Sessions with at least one turn, over every history."""
        return sum(1 for ss in self.histories().values() for s in ss if s.turns)

    def expected_turns(self) -> dict[str, int]:
        """Turns per user id, for :func:`mnemo.eval.ingest_state`."""
        return {u: sum(len(s.turns) for s in ss) for u, ss in self.histories().items()}


def ingest_histories(
    mem: Memory,
    users: int,
    batches: Iterable[list[TurnBatch]],
    progress: Callable[[int], None] | None = None,
) -> IngestStats:
    """Write each of ``users`` histories (its non-empty sessions as ``batches``) through one
    ``mem.add_batches`` call, so a history's sessions are embedded together."""
    start = time.perf_counter()
    stats = IngestStats(users=users)
    for history in batches:
        mem.add_batches(history, progress=progress)
        stats.sessions += len(history)
        stats.turns += sum(len(b.messages) for b in history)
    stats.seconds = time.perf_counter() - start
    return stats


def evaluate_questions(
    mem: Memory,
    questions: Sequence[Q],
    search: Callable[[Q], list[Hit]],
    score: Callable[[Q, list[Hit]], QuestionResult],
    *,
    benchmark: str,
    dataset: str,
    ks: list[int],
    metric_names: list[str],
    group_order: list[str],
    search_limit: int,
    skipped: dict[str, int],
    notes: list[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Report:
    """Run ``search`` and ``score`` on every question (timed) and aggregate a Report of
    ``mem``'s settings and embedder (see :func:`mnemo.eval.report.build_report`)."""
    start = time.perf_counter()
    results, latencies = run_questions(questions, search, score, progress)
    return build_report(
        benchmark=benchmark,
        dataset=dataset,
        settings=mem.settings,
        embedder=mem.embedder.id,
        ks=ks,
        metric_names=metric_names,
        results=results,
        group_order=group_order,
        latencies_ms=latencies,
        search_limit=search_limit,
        eval_seconds=time.perf_counter() - start,
        skipped=skipped,
        notes=notes,
    )


__all__ = ["HasTurns", "UserHistories", "evaluate_questions", "ingest_histories"]
