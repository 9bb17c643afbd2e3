"""The typed records that cross mnemo's public API.

Inputs (``MessageIn``) are validated strictly: a bad field raises
:class:`mnemo.errors.ValidationError` before anything is written. Outputs are plain pydantic
models, serialisable with ``model_dump()``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mnemo.timestamps import (
    TIME_STEP,
    bounded_time,
    fill_times,
    format_time,
    parse_time,
    utcnow,
)

Role = Literal["user", "assistant", "system", "tool"]
#: The kind of a memory, as a type (its values are ``MEMORY_KINDS``).
MemoryKind = Literal["fact", "episode", "summary", "note"]
HitKind = Literal["message", "fact", "episode", "summary", "note", "profile"]
ROLES: tuple[str, ...] = ("user", "assistant", "system", "tool")
#: The kinds of memory (what ``kinds=`` takes besides ``message`` and ``profile``).
MEMORY_KINDS: tuple[str, ...] = ("fact", "episode", "summary", "note")
HIT_KINDS: tuple[str, ...] = ("message", *MEMORY_KINDS, "profile")
JobStatus = Literal["pending", "running", "done", "dead"]
JOB_STATUSES: tuple[str, ...] = ("pending", "running", "done", "dead")


class MessageIn(BaseModel):
    """One conversation turn as given to ``Memory.add_messages``."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str
    name: str | None = None
    created_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: when this turn expires (any time form); or ``ttl_seconds`` from now; not both
    expires_at: datetime | None = None
    ttl_seconds: int | None = None


class Message(BaseModel):
    """A stored conversation turn (the event log; never rewritten by summaries)."""

    id: str
    tenant: str = "default"
    user_id: str
    session_id: str
    seq: int
    role: str
    name: str | None = None
    content: str
    created_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)
    topic_id: str | None = None
    #: when eviction (``max_entries``, `agent-cli`) took the turn out of the working set: out of
    #: search and of the Markdown file store, kept in this event log
    evicted_at: datetime | None = None
    #: when the turn expires (out of every read from then on, removed by ``sweep``); the ttl
    #: it was given, if any (``refresh_on_read`` pushes ``expires_at`` to now + ttl)
    expires_at: datetime | None = None
    ttl_seconds: int | None = None
    #: the agent the turn is private to; None when shared by every agent serving the user
    agent_id: str | None = None


class MemoryItem(BaseModel):
    """A distilled memory: a fact, an episode, a summary or a note."""

    id: str
    tenant: str = "default"
    user_id: str
    session_id: str | None = None
    kind: str
    content: str
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    importance: float = 0.5
    confidence: float = 1.0
    source_message_ids: list[str] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None = None
    access_count: int = 0
    last_accessed_at: datetime | None = None
    #: when the memory expires, and the ttl it was given (see :class:`Message`)
    expires_at: datetime | None = None
    ttl_seconds: int | None = None
    #: the agent the memory is private to; None when shared by every agent serving the user
    agent_id: str | None = None


class HistoryEntry(BaseModel):
    """One change to a memory: ADD, UPDATE or DELETE, with the values before and after."""

    id: int
    memory_id: str
    event: Literal["ADD", "UPDATE", "DELETE"]
    old: dict[str, Any] | None = None
    new: dict[str, Any] | None = None
    actor: str
    at: datetime
    source_message_ids: list[str] = Field(default_factory=list)


class Hit(BaseModel):
    """One search result, with the score of every stage that produced it in ``scores``.

    ``turn_kind`` says what a turn is (``statement``, ``question``, ``non_answer``,
    ``greeting``; see ``mnemo.text.turn_kinds``; None for memories); ``duplicates`` lists the
    ids of the candidates that said the same thing and were collapsed into this hit.
    ``relevance`` is the one number to read and threshold: in [0, 1], non-increasing down
    the list of hits. With ``calibrated`` True it is the fitted probability that the hit is
    evidence for the query, comparable across queries and stores, and context assembly
    holds it to the floors ``min_relevance`` and ``min_expected_evidence``; with
    ``calibrated`` False (an embedder without fitted coefficients, or a preset that scores
    another way) it is the final score clipped to [0, 1] (see ``mnemo.retrieval.relevance``
    and docs/scores.md). ``score`` and ``scores`` are the ranking's own numbers
    (``scores["fused"]``, ``scores["final"]``...), for explaining it.
    """

    id: str
    kind: str
    content: str
    score: float
    created_at: datetime
    user_id: str
    session_id: str | None = None
    role: str | None = None
    name: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    source_message_ids: list[str] = Field(default_factory=list)
    scores: dict[str, float] = Field(default_factory=dict)
    turn_kind: str | None = None
    duplicates: list[str] = Field(default_factory=list)
    relevance: float | None = None
    #: whether ``relevance`` is a fitted probability (True) or the clipped final score
    calibrated: bool = False
    #: the agent the item is private to; None when shared
    agent_id: str | None = None


class Entity(BaseModel):
    """One person, pet, place, organisation or thing a user talks about (the entity index,
    docs/entities.md): its name, kind, aliases ("my husband", "husband") and how many of the
    user's turns mention it."""

    id: str
    user_id: str
    name: str
    kind: Literal["person", "pet", "org", "place", "thing"]
    aliases: list[str] = Field(default_factory=list)
    mentions: int = 0
    created_at: datetime
    updated_at: datetime


class EntityDetail(BaseModel):
    """What is known about one entity: the entity, the user's live facts that name it (by
    its name or an alias) and the turns that mention it, oldest first."""

    entity: Entity
    facts: list[MemoryItem] = Field(default_factory=list)
    turns: list[Message] = Field(default_factory=list)


class ErasedUser(BaseModel):
    """What erasing a user deleted: rows per table (each surface names its own subclass)."""

    user_id: str
    deleted: dict[str, int]


class ErasedAgent(BaseModel):
    """What erasing an agent deleted: rows per table (each surface names its own subclass)."""

    agent_id: str
    deleted: dict[str, int]


ProfileCategory = Literal["identity", "preference", "constraint", "instruction"]
PROFILE_CATEGORIES: tuple[str, ...] = ("identity", "preference", "constraint", "instruction")


class ProfileFact(BaseModel):
    """A structured fact about a user: one active row per (category, key); replaced rows stay
    as inactive history (`tiered`)."""

    id: str
    tenant: str = "default"
    user_id: str
    category: ProfileCategory
    key: str
    value: str
    confidence: float = 1.0
    importance: float = 0.8
    active: bool = True
    source_message_ids: list[str] = Field(default_factory=list)
    observed_at: datetime | None = None
    created_at: datetime
    updated_at: datetime
    #: when a newer value replaced this one (None while current); see "as of" reads
    superseded_at: datetime | None = None
    #: the agent the fact is private to; None when shared
    agent_id: str | None = None


class Document(BaseModel):
    """A context document attached to a user (every session) or to one of their sessions.

    New facts already stated in an attached document are not stored (`llm-managed`'s context files).
    """

    id: str
    tenant: str = "default"
    user_id: str
    session_id: str | None = None
    title: str | None = None
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    chunks: int = 0


class Job(BaseModel):
    """A durable unit of follow-up work."""

    id: int
    kind: str
    payload: dict[str, Any]
    status: JobStatus
    attempts: int
    run_after: datetime
    last_error: str | None = None
    usage: dict[str, int] | None = None
    lease_until: datetime | None = None
    user_id: str | None = None


class UserSummary(BaseModel):
    """One user of a tenant, with how much the store holds for them and when they were last
    active (their newest turn or memory)."""

    user_id: str
    created_at: datetime
    sessions: int = 0
    messages: int = 0
    memories: int = 0
    last_active_at: datetime | None = None


class SessionSummary(BaseModel):
    """One conversation (session) of a user: its number of turns and its first and last."""

    session_id: str
    messages: int
    first_at: datetime
    last_at: datetime


class Topic(BaseModel):
    """A topic of a conversation (`topics`): its title, summary, counts and decay state."""

    id: str
    user_id: str
    session_id: str
    title: str
    summary: str | None = None
    importance: float
    access_count: int
    message_count: int
    active_messages: int
    compressed_messages: int
    created_at: datetime
    last_active_at: datetime
    in_working_set: bool = True
    evicted_at: datetime | None = None
    merged_into: str | None = None
    summary_actor: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class TopicStats(BaseModel):
    """`topics`'s ``get_topic_stats`` fields, for one topic."""

    topic_id: str
    topic_title: str
    active_messages: int
    compressed_messages: int
    total_messages: int
    has_summary: bool
    importance_score: float
    access_count: int
    memory_type: Literal["short-term", "transitioning", "long-term"]
    half_life_days: float
    age_seconds: float
    inactive_seconds: float


class TopicHit(BaseModel):
    """A topic found by a cross-topic search, with its cosine to the query."""

    topic: Topic
    score: float


class Stats(BaseModel):
    """Counts of what a store holds."""

    users: int
    sessions: int
    messages: int
    memories: dict[str, int]
    jobs: dict[str, int]
    embedder: str | None
    path: str
    llm_fallbacks: int = 0  # times a job's LLM call failed and rules decided instead
    job_errors: list[str] = Field(default_factory=list)  # latest errors of retrying/dead jobs
    #: advice about the store, e.g. a multilingual embedder for turns not in English
    hints: list[str] = Field(default_factory=list)


class ContextItem(BaseModel):
    """One line of a context section: a turn, a memory, a profile fact or a plain text."""

    id: str | None = None
    kind: str
    content: str
    role: str | None = None
    name: str | None = None
    score: float | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    session_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: a recalled hit's relevance (``Hit.relevance``)
    relevance: float | None = None
    #: whether that relevance is a fitted probability (``Hit.calibrated``)
    calibrated: bool = False


class ContextSection(BaseModel):
    """A titled group of context items, in the order they are rendered."""

    name: str
    title: str
    items: list[ContextItem] = Field(default_factory=list)


class ContextBundle(BaseModel):
    """The memory assembled for one query within a token budget (see ``mnemo.context.assemble``).

    ``text`` is the rendering for a prompt; ``placement`` says where it goes: ``system``
    (a system message) or ``user`` (it replaces the last user message, `agent-cli`).
    """

    preset: str
    query: str
    user_id: str
    session_id: str | None = None
    placement: Literal["system", "user"] = "system"
    sections: list[ContextSection] = Field(default_factory=list)
    text: str = ""
    token_count: int = 0
    budget_tokens: int = 0
    dropped: int = 0
    #: A preset's structured bundle beside the text, not cut to the budget (`llmplatform`: its
    #: MemoryAgent's ``memory_context``, see ``mnemo.context.llmplatform``); else empty.
    data: dict[str, Any] = Field(default_factory=dict)

    def render(self) -> str:
        """The bundle as prompt text."""
        return self.text

    def section(self, name: str) -> ContextSection | None:
        """The section called ``name``, or None."""
        return next((s for s in self.sections if s.name == name), None)

    def hits(self) -> list[ContextItem]:
        """Every recalled item (all sections but the query), in rendering order."""
        return [i for s in self.sections if s.name != "query" for i in s.items]


__all__ = [
    "HIT_KINDS",
    "MEMORY_KINDS",
    "PROFILE_CATEGORIES",
    "ROLES",
    "TIME_STEP",
    "ContextBundle",
    "ContextItem",
    "ContextSection",
    "Document",
    "Entity",
    "EntityDetail",
    "ErasedAgent",
    "ErasedUser",
    "HistoryEntry",
    "Hit",
    "Job",
    "MemoryItem",
    "Message",
    "MessageIn",
    "ProfileFact",
    "Stats",
    "Topic",
    "TopicHit",
    "TopicStats",
    "bounded_time",
    "fill_times",
    "format_time",
    "parse_time",
    "utcnow",
]
