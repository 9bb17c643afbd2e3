"""LongMemEval (the ``_S`` format): evidence turns and sessions within one user's long history.

Ingest (public API only): one user per question (``user_id = question_id``), one session per
haystack session (``session_id`` = its haystack session id), in haystack order. Each turn becomes
``{"role": turn role, "content", "created_at", "metadata": {"has_answer", "turn_index"}}`` with
``created_at`` = the session's date (``"2023/05/20 (Sat) 02:21"``) plus ``turn_index`` seconds.
Haystacks share many sessions; the store's content-hash cache embeds each distinct text once,
so every question goes into one store. Empty turns are skipped (their index is not reused).

Evidence: the turns with ``has_answer: true``, identified as ``"<session id>#<turn index>"``;
evidence sessions are the sessions holding them. A question with no such turn (abstention) is
skipped and counted. Query: ``mem.search(question, user_id=question_id, now=question_date)``
with a limit of at least 50, so the first 5 distinct sessions are visible. Metrics per question
type and overall: turn-level R@k, All@k, NDCG@10, and ``AllSess@5`` = 1 when every evidence
session is among the first 5 distinct sessions of the results (sessions ranked by first hit);
for knowledge-update questions whose evidence spans sessions of two or more dates, also
``Latest@1`` = 1 when the highest-ranked evidence turn is from the latest evidence session
(the value that is true now, not the one it replaced).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from mnemo.eval import DatasetError, need, read_json
from mnemo.eval.histories import UserHistories, evaluate_questions, ingest_histories
from mnemo.eval.metrics import all_in_first, latest_first, metric_names, question_metrics
from mnemo.eval.replay import Ask, Item
from mnemo.eval.report import IngestStats, QuestionResult, Report
from mnemo.memory.facade import Memory
from mnemo.memory.turns import TurnBatch
from mnemo.schemas import ROLES, Hit

Progress = Callable[[int], None]

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)
DEFAULT_KS = (1, 5, 10, 20)
NDCG_K = 10
SESSION_N = 5
SESSION_LIMIT = 50
SESSION_METRIC = f"AllSess@{SESSION_N}"
LATEST_METRIC = "Latest@1"

_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\(\w+\))?\s*(\d{1,2}):(\d{2})")


@dataclass
class LmeTurn:
    """One haystack turn; ``index`` is its position in the session as given."""

    index: int
    role: str
    content: str
    has_answer: bool


@dataclass
class LmeSession:
    """One haystack session."""

    id: str
    date: datetime
    turns: list[LmeTurn]

    def messages(self) -> list[dict[str, Any]]:
        """The session's turns as ``add_messages`` items."""
        return [
            {
                "role": t.role,
                "content": t.content,
                "created_at": self.date + timedelta(seconds=t.index),
                "metadata": {"has_answer": t.has_answer, "turn_index": t.index},
            }
            for t in self.turns
        ]


@dataclass
class LmeQuestion:
    """A question with its own haystack (one user's whole history)."""

    question_id: str
    question_type: str
    question: str
    question_date: datetime
    answer: str
    sessions: list[LmeSession]
    evidence: list[str]
    evidence_sessions: list[str]

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


@dataclass
class LongMemEvalDataset(UserHistories):
    """Parsed LongMemEval questions and what loading left out."""

    path: str
    questions: list[LmeQuestion]
    skipped: dict[str, int] = field(default_factory=dict)

    def histories(self) -> dict[str, list[LmeSession]]:
        """Each question's haystack sessions, by question id."""
        return {q.question_id: q.sessions for q in self.questions}

    def head(self, n: int | None) -> LongMemEvalDataset:
        """The first ``n`` questions (None: all)."""
        return self if n is None else replace(self, questions=self.questions[:n])


def turn_key(session_id: str, index: int) -> str:
    """The id of a turn across a haystack: ``"<session id>#<turn index>"``."""
    return f"{session_id}#{index}"


def parse_lme_date(text: Any) -> datetime:
    """``"2023/05/20 (Sat) 02:21"`` -> naive datetime (taken as UTC by mnemo)."""
    m = _DATE.fullmatch(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise DatasetError(f"cannot parse LongMemEval date {text!r}")
    year, month, day, hour, minute = (int(g) for g in m.groups())
    try:
        return datetime(year, month, day, hour, minute)
    except ValueError as exc:
        raise DatasetError(f"cannot parse LongMemEval date {text!r}: {exc}") from None


_need = partial(need, fmt="LongMemEval")


def _sessions(item: dict[str, Any], where: str, skipped: dict[str, int]) -> list[LmeSession]:
    ids = _need(item, "haystack_session_ids", list, where)
    dates = _need(item, "haystack_dates", list, where)
    bodies = _need(item, "haystack_sessions", list, where)
    if not len(ids) == len(dates) == len(bodies):
        raise DatasetError(f"not LongMemEval format: {where} haystack lists differ in length")
    sessions = []
    for s_i, (sid, date, body) in enumerate(zip(ids, dates, bodies, strict=True)):
        at = f"{where}.haystack_sessions[{s_i}]"
        if not isinstance(sid, str) or not isinstance(body, list):
            raise DatasetError(f"not LongMemEval format: {at} is not a list of turns")
        turns = []
        for t_i, turn in enumerate(body):
            role = _need(turn, "role", str, f"{at}[{t_i}]")
            content = _need(turn, "content", str, f"{at}[{t_i}]")
            if role not in ROLES:
                raise DatasetError(f"not LongMemEval format: {at}[{t_i}].role {role!r}")
            if not content.strip():
                skipped["empty_turns"] += 1
                continue
            turns.append(LmeTurn(t_i, role, content, turn.get("has_answer") is True))
        sessions.append(LmeSession(sid, parse_lme_date(date), turns))
    return sessions


def load_longmemeval(path: str) -> LongMemEvalDataset:
    """Parse a LongMemEval JSON file (a list of questions); DatasetError when it is not one."""
    data = read_json(path)
    if not isinstance(data, list) or not data:
        raise DatasetError(f"not LongMemEval format: {path} must hold a non-empty list")
    questions: list[LmeQuestion] = []
    skipped = {"no_evidence": 0, "empty_turns": 0}
    for q_i, item in enumerate(data):
        where = f"question[{q_i}]"
        qid = _need(item, "question_id", str, where)
        sessions = _sessions(item, where, skipped)
        evidence = [turn_key(s.id, t.index) for s in sessions for t in s.turns if t.has_answer]
        ev_sessions = list(dict.fromkeys(s.id for s in sessions for t in s.turns if t.has_answer))
        if not evidence:
            skipped["no_evidence"] += 1
            continue
        questions.append(
            LmeQuestion(
                question_id=qid,
                question_type=_need(item, "question_type", str, where),
                question=_need(item, "question", str, where),
                question_date=parse_lme_date(_need(item, "question_date", str, where)),
                answer=str(item.get("answer", "")),
                sessions=sessions,
                evidence=evidence,
                evidence_sessions=ev_sessions,
            )
        )
    if len({q.question_id for q in questions}) != len(questions):
        raise DatasetError(f"not LongMemEval format: {path} repeats a question_id")
    skipped = {k: v for k, v in skipped.items() if v}
    return LongMemEvalDataset(str(path), questions, skipped)


def ingest_longmemeval(
    mem: Memory, dataset: LongMemEvalDataset, progress: Progress | None = None
) -> IngestStats:
    """Write every question's haystack as its user's history through ``mem.add_batches``: one
    batch per session, a question's sessions embedded together."""
    batches = (
        [TurnBatch(s.messages(), q.question_id, s.id) for s in q.sessions if s.turns]
        for q in dataset.questions
    )
    return ingest_histories(mem, len(dataset.questions), batches, progress)


def _turn_id(hit: Item) -> str | None:
    index = hit.metadata.get("turn_index")
    if hit.kind != "message" or hit.session_id is None or not isinstance(index, int):
        return None
    return turn_key(hit.session_id, index)


def latest_evidence(q: LmeQuestion) -> list[str] | None:
    """The evidence turns of the latest evidence session of a knowledge-update question whose
    evidence sessions have two or more dates; None for any other question."""
    if q.question_type != "knowledge-update":
        return None
    dates = {s.id: s.date for s in q.sessions if s.id in set(q.evidence_sessions)}
    if len(set(dates.values())) < 2:
        return None
    newest = max(dates, key=dates.__getitem__)
    return [e for e in q.evidence if e.rsplit("#", 1)[0] == newest]


def evaluate_longmemeval(
    mem: Memory,
    dataset: LongMemEvalDataset,
    ks: Sequence[int] = DEFAULT_KS,
    progress: Progress | None = None,
) -> Report:
    """Search every question in its own haystack, at its question date, and score it."""
    ks = sorted(set(ks))
    limit = max(*ks, NDCG_K, SESSION_LIMIT)

    def search(q: LmeQuestion) -> list[Hit]:
        return mem.search(q.question, user_id=q.question_id, limit=limit, now=q.question_date)

    def score(q: LmeQuestion, hits: list[Hit]) -> QuestionResult:
        ranked = [_turn_id(h) for h in hits]
        sessions = [h.session_id if h.kind == "message" else None for h in hits]
        metrics = question_metrics(ranked, q.evidence, ks, NDCG_K)
        metrics[SESSION_METRIC] = all_in_first(sessions, q.evidence_sessions, SESSION_N)
        newest = latest_evidence(q)
        if newest is not None:
            metrics[LATEST_METRIC] = latest_first(ranked, q.evidence, newest)
        return QuestionResult(
            id=q.question_id,
            group=q.question_type,
            evidence=q.evidence,
            retrieved=ranked,
            metrics=metrics,
        )

    return evaluate_questions(
        mem,
        dataset.questions,
        search,
        score,
        benchmark="longmemeval",
        dataset=dataset.path,
        ks=ks,
        metric_names=[*metric_names(ks, NDCG_K), SESSION_METRIC, LATEST_METRIC],
        group_order=list(QUESTION_TYPES),
        search_limit=limit,
        skipped=dataset.skipped,
        progress=progress,
    )


def asks_longmemeval(dataset: LongMemEvalDataset) -> list[Ask]:
    """The questions as chat replay asks them: each in its own haystack, at its date."""
    return [
        Ask(
            q.question_id,
            q.question_type,
            q.question_id,
            q.question,
            q.answer,
            q.question_date,
            q.evidence,
            _turn_id,
        )
        for q in dataset.questions
    ]
