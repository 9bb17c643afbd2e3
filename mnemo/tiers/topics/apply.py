"""Topic decisions over one conversation (`topics`): match, open, append, compact, restore,
decay and merge. Every function changes a :class:`Conversation` in place; the store persists it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mnemo.config.settings import Settings
from mnemo.errors import StorageError
from mnemo.ids import new_id
from mnemo.storage.topic_records import Conversation, PendingTurn, TopicEntry, TopicRow
from mnemo.tiers.topics import compaction
from mnemo.tiers.topics.decay import DecayPolicy, half_life_seconds, priority
from mnemo.tiers.topics.llm import SUMMARY_JOB, summary_payload
from mnemo.tiers.topics.summary import rules_summary

TOPIC_PREFIX = "top_"

#: ``summarize(previous_summary, entries) -> (summary, actor)``
Summarizer = Callable[[str | None, list[TopicEntry]], tuple[str, str]]


@dataclass(frozen=True)
class TopicPolicy:
    """The numbers topic memory runs on (see the ``topic_*`` settings)."""

    similarity_threshold: float = 0.7
    title_chars: int = 80
    default_importance: float = 0.5
    max_messages: int = 12
    keep: int = 4
    max_topics: int = 20
    merge_threshold: float | None = 0.85
    incremental: bool = True
    summary_max_chars: int = 1200
    feedback_rate: float = 0.2
    llm_summaries: bool = False
    decay: DecayPolicy = field(default_factory=DecayPolicy)

    @classmethod
    def from_settings(cls, s: Settings) -> TopicPolicy:
        """The policy of a Settings object: the settings :data:`POLICY_SETTINGS` and
        :data:`DECAY_SETTINGS` name."""
        return cls(**_read(s, POLICY_SETTINGS), decay=DecayPolicy(**_read(s, DECAY_SETTINGS)))


#: Each field of a :class:`TopicPolicy` but ``decay``, and the setting it is read from.
POLICY_SETTINGS: Mapping[str, str] = {
    "similarity_threshold": "topic_similarity_threshold",
    "title_chars": "topic_title_chars",
    "default_importance": "topic_default_importance",
    "max_messages": "topic_max_messages_per_topic",
    "keep": "topic_recent_message_keep",
    "max_topics": "topic_max_topics",
    "merge_threshold": "topic_merge_threshold",
    "incremental": "topic_incremental_summary",
    "summary_max_chars": "topic_summary_max_chars",
    "feedback_rate": "topic_feedback_rate",
    "llm_summaries": "llm_enabled",
}

#: Each field of a :class:`DecayPolicy`, and the setting it is read from.
DECAY_SETTINGS: Mapping[str, str] = {
    "base_half_life_s": "topic_base_half_life_seconds",
    "max_half_life_s": "topic_max_half_life_seconds",
    "accesses_per_doubling": "topic_access_threshold_for_lt",
    "min_priority": "topic_min_priority",
}


def _read(s: Settings, names: Mapping[str, str]) -> dict[str, Any]:
    """``{field: the value of its setting}`` for each pair of ``names``."""
    return {field: getattr(s, setting) for field, setting in names.items()}


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b / (|a| |b|)``; 0 when either is a zero vector or their sizes differ."""
    if a.shape != b.shape:
        return 0.0
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return 0.0 if na == 0 or nb == 0 else float(np.dot(a, b) / (na * nb))


def best_topic(conv: Conversation, turn: PendingTurn) -> tuple[TopicRow | None, float]:
    """The working-set topic most similar to a turn (same embedder), with its cosine."""
    best, score = None, -2.0
    if turn.embedding is None:
        return None, score
    for topic in conv.topics.values():
        if topic.in_working_set and topic.embedding is not None and topic.embedder == turn.embedder:
            s = cosine(turn.embedding, topic.embedding)
            if s > score:
                best, score = topic, s
    return best, score


def fold_embedding(topic: TopicRow, turn: PendingTurn) -> None:
    """The topic embedding is the running mean of its user turns' embeddings."""
    if turn.embedding is None:
        return
    vec = np.asarray(turn.embedding, np.float32)
    if topic.embedding is None or topic.embedder != turn.embedder or topic.embedding_weight <= 0:
        topic.embedding, topic.embedder, topic.embedding_weight = vec.copy(), turn.embedder, 1
        return
    w = topic.embedding_weight
    topic.embedding = ((topic.embedding * w + vec) / (w + 1)).astype(np.float32)
    topic.embedding_weight = w + 1


def open_topic(
    conv: Conversation, turn: PendingTurn, policy: TopicPolicy, importance: float | None
) -> TopicRow:
    """A new topic titled with the first ``title_chars`` characters of the turn."""
    topic = TopicRow(
        id=new_id(TOPIC_PREFIX),
        tenant=conv.tenant,
        user_id=conv.user_id,
        session_id=conv.session_id,
        title=turn.content.strip()[: policy.title_chars] or "(untitled)",
        created_at=turn.timestamp,
        last_active_at=turn.timestamp,
        importance=policy.default_importance if importance is None else importance,
    )
    conv.touch(topic)
    return topic


def append(conv: Conversation, topic: TopicRow, turn: PendingTurn) -> None:
    """Add a turn to a topic's active messages."""
    entry = TopicEntry(turn.role, turn.content, turn.timestamp, turn.message_id, turn.seq)
    topic.messages.append(entry)
    topic.messages = compaction.time_order(topic.messages)
    topic.message_count += 1
    conv.link(topic.id, entry, compacted=False)
    conv.touch(topic)


def restore(conv: Conversation, topic: TopicRow) -> bool:
    """Auto-decompression: the compressed history rejoins the active messages in time order
    and the compressed field is cleared. Returns whether there was anything to restore."""
    if not topic.compressed:
        return False
    old = with_ids(compaction.decompress(topic.compressed), conv.compacted(topic))
    topic.messages = compaction.time_order(old + topic.messages)
    for e in old:
        conv.link(topic.id, e, compacted=False)
    topic.compressed, topic.compressed_count, topic.compacted = None, 0, []
    conv.touch(topic)
    return True


def with_ids(history: list[TopicEntry], rows: list[TopicEntry]) -> list[TopicEntry]:
    """The decompressed ``history`` matched to the stored rows it came from (by time, role and
    content), so restored messages keep their ids; StorageError when the two disagree."""
    by_key: dict[tuple[float, str, str], list[TopicEntry]] = {}
    for r in rows:
        by_key.setdefault((r.timestamp, r.role, r.content), []).append(r)
    out = []
    for e in history:
        matches = by_key.get((e.timestamp, e.role, e.content))
        if not matches:
            raise StorageError("a topic's compressed history does not match its stored messages")
        out.append(matches.pop(0))
    return compaction.time_order(out)


def compact(
    conv: Conversation, topic: TopicRow, policy: TopicPolicy, summarize: Summarizer
) -> bool:
    """Above ``max_messages`` active messages, all but the last ``keep`` are summarised and
    merged into the compressed history (JSON -> gzip -> base64). Returns whether it compacted."""
    split = compaction.split_for_compaction(topic.messages, policy.max_messages, policy.keep)
    if split is None:
        return False
    old, recent = split
    earlier = compaction.decompress(topic.compressed) if topic.compressed else []
    history = compaction.time_order(earlier + old)
    topic.compressed = compaction.compress(history)
    topic.compressed_count = len(history)
    topic.compacted = compaction.time_order(conv.compacted(topic) + old)
    topic.messages = recent
    for e in old:
        conv.link(topic.id, e, compacted=True)
    _summarise(conv, topic, policy, summarize, old, history)
    conv.touch(topic)
    return True


def _summarise(
    conv: Conversation,
    topic: TopicRow,
    policy: TopicPolicy,
    summarize: Summarizer,
    old: list[TopicEntry],
    history: list[TopicEntry],
) -> None:
    """Incremental: extend the summary with the compacted messages it does not cover yet
    (``metadata.summary_through``: the newest (time, seq) it covers; a restored history that
    is compacted again is not summarised twice). Otherwise regenerate it from the history."""
    through = tuple(topic.metadata.get("summary_through") or (float("-inf"), -1))
    if policy.incremental:
        previous: str | None = topic.summary
        fresh = [e for e in old if (e.timestamp, e.seq) > through]
    else:
        previous, fresh = None, history
    if not fresh:
        return
    topic.summary, topic.summary_actor = summarize(previous, fresh)
    newest = max((e.timestamp, e.seq) for e in old)
    topic.metadata = {**topic.metadata, "summary_through": list(max(newest, through))}
    if policy.llm_summaries:
        payload = summary_payload(topic.id, topic.compressed_count, topic.summary, previous, fresh)
        conv.jobs.append((SUMMARY_JOB, payload))


def topic_priority(topic: TopicRow, now: float, decay: DecayPolicy) -> float:
    """``importance * 0.5 ** ((now - last_active_at) / half_life(access_count))``."""
    hl = half_life_seconds(topic.access_count, decay)
    return priority(topic.importance, now - topic.last_active_at, hl)


def decay(conv: Conversation, policy: TopicPolicy, now: float) -> list[str]:
    """With more than ``max_topics`` in the working set, topics whose priority is under the
    floor leave it (lowest first); the active topic never does. Returns the evicted ids."""
    working = [t for t in conv.topics.values() if t.in_working_set]
    if len(working) <= policy.max_topics:
        return []
    scored = sorted((topic_priority(t, now, policy.decay), t.id) for t in working)
    out = []
    for p, tid in scored:
        if p < policy.decay.min_priority and tid != conv.active_topic_id:
            conv.topics[tid].evicted_at = now
            conv.touch(conv.topics[tid])
            out.append(tid)
    return out


def merge_similar(conv: Conversation, topic: TopicRow, policy: TopicPolicy) -> TopicRow:
    """Merge ``topic`` with every working-set topic whose embedding cosine exceeds the merge
    threshold; the oldest topic survives. Returns the survivor."""
    if policy.merge_threshold is None or topic.embedding is None:
        return topic
    for other in list(conv.topics.values()):
        if other.id == topic.id or not other.in_working_set or other.embedding is None:
            continue
        if other.embedder == topic.embedder and (
            cosine(other.embedding, topic.embedding) > policy.merge_threshold
        ):
            keep, gone = sorted((topic, other), key=lambda t: (t.created_at, t.id))
            absorb(conv, keep, gone)
            topic = keep
    return topic


def absorb(conv: Conversation, keep: TopicRow, gone: TopicRow) -> None:
    """Move ``gone``'s messages, history, counts and embedding into ``keep``."""
    history = []
    for t in (keep, gone):
        if t.compressed:
            history += compaction.decompress(t.compressed)
    if history:
        keep.compressed = compaction.compress(compaction.time_order(history))
    keep.compressed_count = len(history)
    keep.compacted = compaction.time_order(conv.compacted(keep) + conv.compacted(gone))
    keep.messages = compaction.time_order(keep.messages + gone.messages)
    keep.summary = " | ".join(s for s in (keep.summary, gone.summary) if s) or None
    keep.message_count += gone.message_count
    keep.access_count += gone.access_count
    keep.importance = max(keep.importance, gone.importance)
    keep.created_at = min(keep.created_at, gone.created_at)
    keep.last_active_at = max(keep.last_active_at, gone.last_active_at)
    if keep.embedding is not None and gone.embedding is not None:
        w1, w2 = max(keep.embedding_weight, 1), max(gone.embedding_weight, 1)
        keep.embedding = ((keep.embedding * w1 + gone.embedding * w2) / (w1 + w2)).astype(
            np.float32
        )
        keep.embedding_weight = w1 + w2
    keep.metadata = {**keep.metadata, "merged": [*keep.metadata.get("merged", []), gone.id]}
    gone.merged_into, gone.messages, gone.compacted = keep.id, [], []
    conv.moved[gone.id] = keep.id
    for mid, (tid, done, at, seq) in list(conv.links.items()):
        if tid == gone.id:
            conv.links[mid] = (keep.id, done, at, seq)
    if conv.active_topic_id == gone.id:
        conv.active_topic_id = keep.id
    conv.touch(keep)
    conv.touch(gone)


def rules_summarizer(max_chars: int) -> Summarizer:
    """A Summarizer that uses the extractive rules."""

    def summarize(previous: str | None, entries: list[TopicEntry]) -> tuple[str, str]:
        return rules_summary(previous, entries, max_chars), "rules"

    return summarize


__all__ = [
    "DECAY_SETTINGS",
    "POLICY_SETTINGS",
    "TOPIC_PREFIX",
    "Summarizer",
    "TopicPolicy",
    "absorb",
    "append",
    "best_topic",
    "compact",
    "cosine",
    "decay",
    "fold_embedding",
    "merge_similar",
    "open_topic",
    "restore",
    "rules_summarizer",
    "topic_priority",
    "with_ids",
]
