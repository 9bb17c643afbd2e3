"""LoCoMo: turn-level evidence retrieval over long two-person conversations.

Ingest (public API only): one user per conversation (``user_id = sample_id``), one session per
LoCoMo session (``session_id = "session_N"``), sessions in number order. Each turn becomes
``{"role", "name": speaker, "content", "created_at", "metadata": {"dia_id"}}`` where

* ``role`` is ``"user"`` for ``speaker_a`` and ``"assistant"`` for ``speaker_b`` (LoCoMo is two
  people talking; the roles only keep the two apart, nothing treats them as a model);
* ``content`` is the text, plus ``" [image: <blip_caption>]"`` when the turn shares a photo;
* ``created_at`` is the session's ``session_N_date_time`` plus one second per turn (turn i of a
  session at +i s), so time order matches conversation order and no two turns tie.

Date keys without a session are skipped, and so are turns with neither text nor caption
(counted as ``empty_turns``). Questions of categories 1-4 are evaluated (1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop); category 5 (adversarial) is excluded and counted.
Evidence strings are cleaned as the data README says: split on ``;`` and whitespace, ``D30:05``
becomes ``D30:5``, ids that match no turn are dropped; a question left without evidence is
skipped and counted. Each question runs ``mem.search(question, user_id=sample_id)`` and its hits
map to dia_ids through ``hit.metadata["dia_id"]``.
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
from mnemo.eval.metrics import metric_names, question_metrics
from mnemo.eval.replay import Ask, Item
from mnemo.eval.report import IngestStats, QuestionResult, Report
from mnemo.memory.facade import Memory
from mnemo.memory.turns import TurnBatch
from mnemo.schemas import Hit

Progress = Callable[[int], None]

CATEGORIES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5
DEFAULT_KS = (1, 5, 10, 20)
NDCG_K = 10

_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D(\d+):(\d+)")
_DATE = re.compile(
    r"(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", re.IGNORECASE
)
_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS = {name: i for i, name in enumerate(_MONTH_NAMES.split(), start=1)}


@dataclass
class LocomoTurn:
    """One LoCoMo turn, ready for ``Memory.add_messages``."""

    dia_id: str
    speaker: str
    role: str
    content: str
    created_at: datetime

    def message(self) -> dict[str, Any]:
        """The turn as an ``add_messages`` item."""
        return {
            "role": self.role,
            "name": self.speaker,
            "content": self.content,
            "created_at": self.created_at,
            "metadata": {"dia_id": self.dia_id},
        }


@dataclass
class Session:
    """One LoCoMo session: ``session_N`` with its date."""

    id: str
    started_at: datetime
    turns: list[LocomoTurn]


@dataclass
class LocomoConversation:
    """One sample's conversation; its ``sample_id`` is the user id."""

    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: list[Session]

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)

    @property
    def ended_at(self) -> datetime | None:
        """Time of the last turn: questions are asked "as of" the end of the conversation."""
        times = [t.created_at for s in self.sessions for t in s.turns]
        return max(times) if times else None


@dataclass
class Question:
    """A question of categories 1-4 with cleaned, non-empty evidence."""

    id: str
    sample_id: str
    question: str
    answer: str
    category: int
    evidence: list[str]

    @property
    def group(self) -> str:
        return CATEGORIES[self.category]


@dataclass
class LocomoDataset(UserHistories):
    """Parsed LoCoMo: conversations, evaluable questions, and what cleaning left out."""

    path: str
    conversations: list[LocomoConversation]
    questions: list[Question]
    skipped: dict[str, int] = field(default_factory=dict)
    dropped_evidence: list[str] = field(default_factory=list)

    def histories(self) -> dict[str, list[Session]]:
        """Each conversation's sessions, by sample id."""
        return {c.sample_id: c.sessions for c in self.conversations}

    def head(self, n: int | None) -> LocomoDataset:
        """The first ``n`` questions and only the conversations they need (None: all)."""
        if n is None:
            return self
        questions = self.questions[:n]
        needed = {q.sample_id for q in questions}
        return replace(
            self,
            questions=questions,
            conversations=[c for c in self.conversations if c.sample_id in needed],
            dropped_evidence=[
                d for d in self.dropped_evidence if any(d.startswith(f"{s}:") for s in needed)
            ],
        )


def normalize_dia_id(token: str) -> str | None:
    """``"D30:05"`` -> ``"D30:5"``; None for anything that is not ``D<int>:<int>``."""
    m = _DIA_ID.fullmatch(token.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def clean_evidence(raw: Sequence[Any], known: set[str]) -> tuple[list[str], list[str]]:
    """Evidence ids split, normalised and checked against the conversation's turns.

    Returns ``(kept, dropped)``: ``kept`` in first-seen order without repeats, ``dropped`` the
    tokens that name no turn (or are not dia_ids at all).
    """
    kept: list[str] = []
    dropped: list[str] = []
    for item in raw:
        for token in re.split(r"[;\s]+", str(item)):
            if not token:
                continue
            norm = normalize_dia_id(token)
            if norm is not None and norm in known:
                if norm not in kept:
                    kept.append(norm)
            else:
                dropped.append(token)
    return kept, dropped


def parse_locomo_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> naive datetime (taken as UTC by mnemo)."""
    m = _DATE.fullmatch(text.strip()) if isinstance(text, str) else None
    month = _MONTHS.get(m.group(5).lower()) if m else None
    if m is None or month is None:
        raise DatasetError(f"cannot parse LoCoMo date {text!r}")
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
    try:
        return datetime(int(m.group(6)), month, int(m.group(4)), hour, int(m.group(2)))
    except ValueError as exc:
        raise DatasetError(f"cannot parse LoCoMo date {text!r}: {exc}") from None


_need = partial(need, fmt="LoCoMo")


def _conversation(
    sample_id: str, conv: dict[str, Any], where: str, skipped: dict[str, int]
) -> LocomoConversation:
    speaker_a = str(_need(conv, "speaker_a", str, where))
    speaker_b = str(_need(conv, "speaker_b", str, where))
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.fullmatch(k)))
    sessions = []
    for n in numbers:
        key = f"session_{n}"
        started = parse_locomo_date(_need(conv, f"{key}_date_time", str, where))
        turns: list[LocomoTurn] = []
        for i, t in enumerate(_need(conv, key, list, where)):
            at = f"{where}.{key}[{i}]"
            text = str(_need(t, "text", str, at)).strip()
            caption = t.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                text = f"{text} [image: {caption.strip()}]".strip()
            if not text:
                skipped["empty_turns"] += 1
                continue
            dia_id = normalize_dia_id(str(_need(t, "dia_id", str, at)))
            if dia_id is None:
                raise DatasetError(f"not LoCoMo format: {at}.dia_id is not like 'D1:3'")
            speaker = str(_need(t, "speaker", str, at))
            role = "user" if speaker == speaker_a else "assistant"
            turns.append(
                LocomoTurn(dia_id, speaker, role, text, started + timedelta(seconds=len(turns)))
            )
        sessions.append(Session(key, started, turns))
    return LocomoConversation(sample_id, speaker_a, speaker_b, sessions)


def load_locomo(path: str) -> LocomoDataset:
    """Parse a LoCoMo JSON file (a list of samples); DatasetError when it is not one."""
    data = read_json(path)
    if not isinstance(data, list) or not data:
        raise DatasetError(f"not LoCoMo format: {path} must hold a non-empty list of samples")
    convs: list[LocomoConversation] = []
    questions: list[Question] = []
    dropped: list[str] = []
    skipped = {"category_5": 0, "no_evidence": 0, "other_category": 0, "empty_turns": 0}
    for s_i, sample in enumerate(data):
        where = f"sample[{s_i}]"
        sample_id = str(_need(sample, "sample_id", str, where))
        conv = _conversation(sample_id, _need(sample, "conversation", dict, where), where, skipped)
        convs.append(conv)
        known = {t.dia_id for s in conv.sessions for t in s.turns}
        for q_i, qa in enumerate(_need(sample, "qa", list, where)):
            at, qid = f"{where}.qa[{q_i}]", f"{sample_id}#{q_i}"
            category = _need(qa, "category", int, at)
            if category not in CATEGORIES:
                skipped["category_5" if category == ADVERSARIAL else "other_category"] += 1
                continue
            evidence, bad = clean_evidence(_need(qa, "evidence", list, at), known)
            dropped.extend(f"{sample_id}:{tok}" for tok in bad)
            if not evidence:
                skipped["no_evidence"] += 1
                continue
            text = str(_need(qa, "question", str, at))
            answer = str(qa.get("answer", ""))
            questions.append(Question(qid, sample_id, text, answer, category, evidence))
    if len({c.sample_id for c in convs}) != len(convs):
        raise DatasetError(f"not LoCoMo format: {path} repeats a sample_id")
    skipped = {k: v for k, v in skipped.items() if v}
    return LocomoDataset(str(path), convs, questions, skipped, dropped)


def ingest_locomo(
    mem: Memory, dataset: LocomoDataset, progress: Progress | None = None
) -> IngestStats:
    """Write every conversation through ``mem.add_batches``: one batch per session, the
    sessions of a conversation embedded together."""
    batches = (
        [
            TurnBatch([t.message() for t in s.turns], conv.sample_id, s.id)
            for s in conv.sessions
            if s.turns
        ]
        for conv in dataset.conversations
    )
    return ingest_histories(mem, len(dataset.conversations), batches, progress)


def evaluate_locomo(
    mem: Memory,
    dataset: LocomoDataset,
    ks: Sequence[int] = DEFAULT_KS,
    progress: Progress | None = None,
) -> Report:
    """Search every question in its conversation, as of its last turn, and score the hits."""
    ks = sorted(set(ks))
    limit = max(*ks, NDCG_K)
    ended = {c.sample_id: c.ended_at for c in dataset.conversations}

    def search(q: Question) -> list[Hit]:
        return mem.search(q.question, user_id=q.sample_id, limit=limit, now=ended[q.sample_id])

    def score(q: Question, hits: list[Hit]) -> QuestionResult:
        ranked = [h.metadata.get("dia_id") if h.kind == "message" else None for h in hits]
        metrics = question_metrics(ranked, q.evidence, ks, NDCG_K)
        return QuestionResult(
            id=q.id, group=q.group, evidence=q.evidence, retrieved=ranked, metrics=metrics
        )

    notes = []
    if dataset.dropped_evidence:
        notes.append(
            f"{len(dataset.dropped_evidence)} evidence ids match no turn and were "
            f"dropped: {', '.join(dataset.dropped_evidence[:5])}"
            + (" ..." if len(dataset.dropped_evidence) > 5 else "")
        )
    return evaluate_questions(
        mem,
        dataset.questions,
        search,
        score,
        benchmark="locomo",
        dataset=dataset.path,
        ks=ks,
        metric_names=metric_names(ks, NDCG_K),
        group_order=list(CATEGORIES.values()),
        search_limit=limit,
        skipped=dataset.skipped,
        notes=notes,
        progress=progress,
    )


def _dia_id(item: Item) -> str | None:
    dia_id = item.metadata.get("dia_id") if item.kind == "message" else None
    return dia_id if isinstance(dia_id, str) else None


def asks_locomo(dataset: LocomoDataset) -> list[Ask]:
    """The questions as chat replay asks them: in their conversation, as of its last turn."""
    ended = {c.sample_id: c.ended_at for c in dataset.conversations}
    out = []
    for q in dataset.questions:
        now = ended[q.sample_id]
        if now is None:
            continue
        out.append(Ask(q.id, q.group, q.sample_id, q.question, q.answer, now, q.evidence, _dia_id))
    return out
