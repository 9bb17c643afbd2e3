"""Topic memory (`topics`): turns grouped into topics, compacted, decayed and restored.

:class:`TopicMemory` is the tier. Its write path, :meth:`TopicMemory.apply`, runs in one store
transaction per conversation: every stored turn not yet applied (``seq`` past the conversation's
cursor) is matched in order, so the ``turns.topics`` job and the synchronous seed API
(:meth:`add_user_message`) can both call it, in any order, any number of times, from any
thread or process, with the same result.

Per user turn: join the most similar working-set topic when cosine > ``similarity_threshold``
(else open one titled with the first ``title_chars`` characters); refresh ``last_active_at``
and count one access; restore a compressed history when the conversation returns to that topic;
fold the turn into the topic embedding; merge converging topics; compact above
``max_messages``. Assistant turns join the active topic. Then decay trims the working set.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.embedders import Embedder
from mnemo.errors import NotFoundError, ValidationError
from mnemo.llm import ChatModel, Usage
from mnemo.schemas import Topic, TopicHit, TopicStats, parse_time
from mnemo.storage.ports.topics import TopicLoad
from mnemo.storage.ports.unions import TopicTierStore
from mnemo.storage.topic_records import Conversation, PendingTurn, TopicRow
from mnemo.tiers.topics import apply as ops
from mnemo.tiers.topics import views
from mnemo.tiers.topics.llm import SUMMARY_JOB, TopicSummaries

#: Metadata key under which a turn carries the importance its writer gave the topic.
IMPORTANCE_KEY = "topic_importance"
JOB_KIND = "turns.topics"

Writer = Callable[[list[dict[str, Any]], str, str], list[str]]


def feedback_importance(importance: float, signal: float, rate: float) -> float:
    """Move importance toward 1 (signal > 0) or 0 (signal < 0) by ``rate * |signal|`` of the gap:
    ``i + rate*s*(1-i)`` for ``s >= 0``, ``i + rate*s*i`` for ``s < 0``.

    >>> feedback_importance(0.5, 1.0, 0.2)
    0.6
    """
    gap = 1.0 - importance if signal >= 0 else importance
    return min(max(importance + rate * signal * gap, 0.0), 1.0)


def apply_pending(
    conv: Conversation, policy: ops.TopicPolicy, summarize: ops.Summarizer
) -> dict[str, str]:
    """Apply every pending turn in order, then decay; returns ``{message_id: topic_id}``."""
    assigned: dict[str, str] = {}
    latest: float | None = None
    for turn in conv.pending:
        if turn.role == "user":
            topic: TopicRow | None = on_user_turn(conv, turn, policy, summarize)
        else:
            topic = on_other_turn(conv, turn, policy, summarize)
        if topic is not None:
            assigned[turn.message_id] = topic.id
        conv.applied_seq = max(conv.applied_seq, turn.seq)
        latest = turn.timestamp if latest is None else max(latest, turn.timestamp)
    if latest is not None:
        ops.decay(conv, policy, latest)
    return assigned


def on_user_turn(
    conv: Conversation, turn: PendingTurn, policy: ops.TopicPolicy, summarize: ops.Summarizer
) -> TopicRow:
    """Match (or open) the turn's topic and add the turn to it. The topic the conversation
    leaves is compacted if it is over ``max_messages`` (a restored history that the next turn
    did not return to goes cold again, so no topic keeps its whole history active)."""
    left = conv.topics.get(conv.active_topic_id or "")
    importance = turn.metadata.get(IMPORTANCE_KEY)
    topic, score = ops.best_topic(conv, turn)
    restored = False
    if topic is not None and score > policy.similarity_threshold:
        if topic.id != conv.active_topic_id:
            restored = ops.restore(conv, topic)
        topic.access_count += 1
        topic.last_active_at = max(topic.last_active_at, turn.timestamp)
    else:
        topic = ops.open_topic(conv, turn, policy, None)
        topic.access_count = 1
    if isinstance(importance, int | float) and not isinstance(importance, bool):
        topic.importance = float(importance)
    ops.append(conv, topic, turn)
    ops.fold_embedding(topic, turn)
    conv.active_topic_id = topic.id
    topic = ops.merge_similar(conv, topic, policy)
    if not restored:  # the restored history serves this turn; the next append compacts it
        ops.compact(conv, topic, policy, summarize)
    if left is not None and left.id != topic.id and left.merged_into is None:
        ops.compact(conv, left, policy, summarize)
    return topic


def on_other_turn(
    conv: Conversation, turn: PendingTurn, policy: ops.TopicPolicy, summarize: ops.Summarizer
) -> TopicRow | None:
    """An assistant turn joins the active topic; system and tool turns stay out of topics."""
    topic = conv.topics.get(conv.active_topic_id or "")
    if turn.role != "assistant" or topic is None or not topic.in_working_set:
        return None
    topic.last_active_at = max(topic.last_active_at, turn.timestamp)
    ops.append(conv, topic, turn)
    ops.compact(conv, topic, policy, summarize)
    return topic


class TopicMemory:
    """The topic tier over a store; ``clock`` (epoch seconds) is injectable for tests, ``chat``
    (the Memory's chat model, None without an LLM) writes summaries in ``topics.summary`` jobs."""

    def __init__(
        self,
        store: TopicTierStore,
        settings: Settings,
        embedder: Embedder,
        write: Writer,
        clock: Callable[[], float] = time.time,
        summarizer: ops.Summarizer | None = None,
        chat: ChatModel | None = None,
    ) -> None:
        self.store, self.settings, self.embedder, self.write = store, settings, embedder, write
        self.tenant = settings.tenant
        self.policy = ops.TopicPolicy.from_settings(settings)
        self.clock = clock
        self.summarize = summarizer or ops.rules_summarizer(settings.topic_summary_max_chars)
        self.summaries = TopicSummaries(store, self.tenant, chat)

    # ---- write path ------------------------------------------------------------------------
    def apply(self, user_id: str, session_id: str) -> dict[str, str]:
        """Apply the conversation's pending turns to its topics (idempotent)."""
        return self.store.topics.apply_topics(
            TopicLoad(self.tenant, user_id, session_id),
            lambda conv: apply_pending(conv, self.policy, self.summarize),
        )

    def handlers(self) -> dict[str, Callable[[dict[str, Any]], Any]]:
        """This tier's job handlers by kind: ``topics.summary`` always, ``turns.topics`` when
        ``topics_enabled`` (turns written with ``add_messages`` then reach topics)."""
        out: dict[str, Callable[[dict[str, Any]], Any]] = {SUMMARY_JOB: self.handle_summary_job}
        if self.settings.topics_enabled:
            out[JOB_KIND] = self.handle_job
        return out

    def handle_job(self, payload: dict[str, Any]) -> None:
        """The ``turns.topics`` job: apply the batch's conversation."""
        self.apply(str(payload["user_id"]), str(payload["session_id"]))

    def handle_summary_job(self, payload: dict[str, Any]) -> Usage:
        """The ``topics.summary`` job: an LLM rewrite of a compaction's summary."""
        return self.summaries.handle(payload)

    def add_message(
        self,
        role: str,
        user_id: str,
        text: str,
        session_id: str,
        importance: float | None,
        now: Any,
    ) -> Topic | None:
        """Store one turn (time ``now`` or the clock), apply it, return the topic it joined."""
        meta: dict[str, Any] = {}
        if importance is not None:
            meta[IMPORTANCE_KEY] = check.unit_float(importance, "importance")
        at = datetime.fromtimestamp(self._now(now), UTC)
        turn = {"role": role, "content": text, "created_at": at, "metadata": meta}
        [message_id] = self.write([turn], user_id, session_id)
        self.apply(user_id, session_id)
        msg = self.store.rows.get_message(self.tenant, message_id)
        if msg is None or msg.topic_id is None:
            return None
        row = self.store.topics.get_topic(self.tenant, msg.topic_id)
        while row is not None and row.merged_into:  # merged since: report where it went
            row = self.store.topics.get_topic(self.tenant, row.merged_into)
        return None if row is None else views.topic_model(row)

    def feedback(self, topic_id: str, signal: float) -> Topic:
        """Importance learning: ``signal`` in [-1, 1] moves the topic's importance (see
        :func:`feedback_importance`); a topic decay removed re-enters the working set when its
        priority is back above the floor."""
        if isinstance(signal, bool) or not isinstance(signal, int | float):
            raise ValidationError("signal must be a number in [-1, 1]")
        if not -1.0 <= float(signal) <= 1.0:
            raise ValidationError("signal must be a number in [-1, 1]")
        row = self._topic(topic_id)
        now = self.clock()

        def change(conv: Conversation) -> TopicRow:
            t = conv.topics[row.id]
            rate = self.policy.feedback_rate
            t.importance = feedback_importance(t.importance, float(signal), rate)
            prio = ops.topic_priority(t, now, self.policy.decay)
            if t.evicted_at is not None and prio >= self.policy.decay.min_priority:
                t.evicted_at = None
            conv.touch(t)
            return t

        out = self.store.topics.apply_topics(
            TopicLoad(self.tenant, row.user_id, row.session_id, also=row.id), change
        )
        return views.topic_model(out)

    # ---- reads ---------------------------------------------------------------------------
    def context(self, user_id: str, session_id: str) -> list[dict[str, str]]:
        """The active topic's summary (as a system message) and recent messages."""
        t = self._active(user_id, session_id)
        return [] if t is None else views.topic_context(t)

    def history(
        self, user_id: str, session_id: str, include_compressed: bool, topic_id: str | None
    ) -> list[dict[str, Any]]:
        """A topic's messages in time order (the active topic unless ``topic_id``)."""
        t = self._active(user_id, session_id, topic_id)
        return [] if t is None else views.topic_history(t, include_compressed)

    def stats(
        self, user_id: str, session_id: str, topic_id: str | None, now: Any
    ) -> TopicStats | None:
        """`topics`'s stats of the active topic (or ``topic_id``); None without topics."""
        t = self._active(user_id, session_id, topic_id)
        return None if t is None else views.topic_stats(t, self._now(now), self.policy.decay)

    def list(self, user_id: str, session_id: str | None, include_inactive: bool) -> list[Topic]:
        """Topics of a user or a conversation, latest activity first."""
        rows = self.store.topics.list_topics(self.tenant, user_id, session_id, include_inactive)
        return [views.topic_model(t) for t in rows]

    def search(
        self, query: str, user_id: str, session_id: str | None, limit: int
    ) -> builtins.list[TopicHit]:
        """Cross-topic search: every topic of the user (or conversation), evicted ones too,
        ranked by the cosine of the query to the topic embedding."""
        rows = self.store.topics.list_topics(
            self.tenant, user_id, session_id, include_inactive=True
        )
        rows = [t for t in rows if t.merged_into is None and t.embedder == self.embedder.id]
        if not rows or not query.strip():
            return []
        q = self.embedder.embed([query])[0]
        scored = [
            (ops.cosine(np.asarray(q), t.embedding), t) for t in rows if t.embedding is not None
        ]
        scored.sort(key=lambda x: -x[0])
        return [TopicHit(topic=views.topic_model(t), score=s) for s, t in scored[:limit]]

    def context_topic(self, query: str, user_id: str, session_id: str) -> TopicRow | None:
        """The topic a message ``query`` would join (read-only), else the active topic; loaded
        with its active messages."""
        vec = self.embedder.embed([query])[0] if query.strip() else None
        probe = PendingTurn("", 0, "user", query, self.clock(), vec, self.embedder.id)

        def pick(conv: Conversation) -> TopicRow | None:
            best, score = ops.best_topic(conv, probe)
            if best is not None and score > self.policy.similarity_threshold:
                return best
            return conv.topics.get(conv.active_topic_id or "")

        load = TopicLoad(self.tenant, user_id, session_id, write=False)
        return self.store.topics.apply_topics(load, pick)

    # ---- helpers ---------------------------------------------------------------------------
    def _now(self, now: Any) -> float:
        return self.clock() if now is None else parse_time(now, "now").timestamp()

    def _topic(self, topic_id: str) -> TopicRow:
        check.text(topic_id, "topic_id")
        row = self.store.topics.get_topic(self.tenant, topic_id)
        while row is not None and row.merged_into:
            row = self.store.topics.get_topic(self.tenant, row.merged_into)
        if row is None:
            raise NotFoundError(f"no topic with id {topic_id!r}")
        return row

    def _active(
        self, user_id: str, session_id: str, topic_id: str | None = None
    ) -> TopicRow | None:
        """The conversation's active topic, or ``topic_id``, loaded with its messages."""
        also = None
        if topic_id is not None:
            row = self._topic(topic_id)
            also, user_id, session_id = row.id, row.user_id, row.session_id

        def pick(conv: Conversation) -> TopicRow | None:
            return conv.topics.get(also or conv.active_topic_id or "")

        load = TopicLoad(self.tenant, user_id, session_id, write=False, also=also)
        return self.store.topics.apply_topics(load, pick)


__all__ = [
    "IMPORTANCE_KEY",
    "JOB_KIND",
    "SUMMARY_JOB",
    "TopicMemory",
    "apply_pending",
    "feedback_importance",
    "on_other_turn",
    "on_user_turn",
]
