"""The Store protocol: everything the service needs from a database, dialect-free.

A store holds the data model of DESIGN.md. SQLite (``sqlite.py``) is the default; a PostgreSQL
store implements the same protocol. Rows cross this boundary as the records below and as the
public schemas; SQL never leaves the store.

A *ref* names a searchable row: ``(MESSAGE, rowid)`` or ``(MEMORY, rowid)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from mnemo.schemas import (
    Document,
    HistoryEntry,
    Job,
    MemoryItem,
    Message,
    ProfileFact,
    Stats,
)
from mnemo.storage.topic_records import TopicStore

MESSAGE = 0
MEMORY = 1
Ref = tuple[int, int]


@dataclass
class NewMessage:
    """A validated turn ready to be written (the store assigns ``seq``)."""

    id: str
    tenant: str
    user_id: str
    session_id: str
    role: str
    name: str | None
    content: str
    created_at: str
    metadata: dict[str, Any]
    content_hash: str
    embedder: str | None
    embedding: np.ndarray | None
    #: Extra index keys (k, dim) of a long user turn (see retrieval.keys); (0, dim) for none,
    #: None when not computed.
    key_vectors: np.ndarray | None = None


@dataclass
class NewMemory:
    """A validated memory ready to be written."""

    id: str
    tenant: str
    user_id: str
    session_id: str | None
    kind: str
    content: str
    tags: list[str]
    metadata: dict[str, Any]
    importance: float
    confidence: float
    source_message_ids: list[str]
    created_at: str
    content_hash: str
    embedder: str | None
    embedding: np.ndarray | None


@dataclass
class NewProfileFact:
    """A validated profile fact candidate; ``observed_*`` place its statement in time."""

    id: str
    tenant: str
    user_id: str
    category: str
    key: str
    value: str
    confidence: float
    importance: float
    source_message_ids: list[str]
    observed_at: str | None = None
    observed_seq: int = 0
    note: dict[str, Any] | None = None  # recorded with the history entry (e.g. a fallback)


ProfileDecision = Literal["ADD", "UPDATE", "REFRESH", "NONE"]
#: Decides what a candidate does to the current active fact (None when there is none), given
#: the current fact and its observed_seq; see ``mnemo.tiers.conversation.profile.decide``.
ProfileDecide = Callable[[ProfileFact | None, int], ProfileDecision]


@dataclass
class NewJob:
    """Follow-up work to enqueue in the same transaction as the rows that caused it."""

    kind: str
    payload: dict[str, Any]
    tenant: str = "default"
    user_id: str = ""


@dataclass
class NewDocument:
    """A validated context document and its embedded chunks, ready to be written."""

    id: str
    tenant: str
    user_id: str
    session_id: str | None
    title: str | None
    content: str
    metadata: dict[str, Any]
    created_at: str
    chunks: list[str]
    embedder: str | None
    embeddings: np.ndarray | None  # float32 (len(chunks), dim)


@dataclass
class DocumentChunks:
    """The chunks of a user's documents: texts, the document each belongs to, vectors."""

    texts: list[str]
    document_ids: list[str]
    vectors: np.ndarray  # float32 (n, dim); rows made by another embedder are zero


@dataclass(frozen=True)
class TurnRun:
    """A turn the fact tier has finished with: who decided and what was noted."""

    message_id: str
    actor: str
    note: str | None = None


@dataclass
class FactBatch:
    """What the fact tier decided for some turns, applied in one transaction.

    ``updates`` map a memory id to its changes (as ``update_memory`` takes them); history
    rows carry ``actor`` and ``source_message_ids``. The ``turns`` are recorded as done in the
    same transaction, so a job that is run again skips them; a batch any of whose turns is
    already recorded is not applied at all.
    """

    tenant: str
    user_id: str
    actor: str
    source_message_ids: list[str]
    turns: list[TurnRun]
    adds: list[NewMemory] = field(default_factory=list)
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    deletes: list[str] = field(default_factory=list)


@dataclass
class VectorRows:
    """Embedded rows of one user, as loaded for the in-process vector index."""

    tables: np.ndarray  # int8: MESSAGE or MEMORY
    rowids: np.ndarray  # int64
    sessions: list[str | None]
    kinds: list[str]  # "message" or the memory kind
    times: np.ndarray  # float64 epoch seconds of created_at
    vectors: np.ndarray  # float32 (n, dim)
    roles: list[str | None] = field(default_factory=list)  # a message's role; None for memories
    names: list[str | None] = field(default_factory=list)  # a message's speaker name, if any
    #: Extra index keys (see retrieval.keys): float32 (k, dim), and the row each belongs to.
    key_vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    key_owners: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


@dataclass(frozen=True)
class VectorState:
    """What a cached vector index must match to still be valid."""

    generation: int
    max_message_rowid: int
    max_memory_rowid: int


@dataclass
class ListFilter:
    """Filters of ``list``: all optional, combined with AND."""

    tenant: str
    user_id: str | None = None
    session_id: str | None = None
    kind: str | None = None
    tag: str | None = None
    since: str | None = None
    until: str | None = None
    include_deleted: bool = False
    limit: int = 50
    offset: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class Store(TopicStore, Protocol):
    """Persistence for mnemo. Every method is one transaction; writes are durable on return."""

    location: str

    def add_messages(self, rows: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Insert turns (assigning per-session ``seq``) and their jobs atomically."""
        ...

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Insert a memory and its ADD history entry."""
        ...

    def update_memory(
        self,
        tenant: str,
        memory_id: str,
        changes: dict[str, Any],
        actor: str,
        source_message_ids: list[str] | None = None,
    ) -> MemoryItem:
        """Apply ``changes`` (content, tags, metadata, importance, confidence, embedding...)."""
        ...

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a memory (it leaves search) and record DELETE in history."""
        ...

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch with history; None (and no change) if its turns were done."""
        ...

    def facts_processed(self, tenant: str, message_ids: list[str]) -> set[str]:
        """Which of these turns the fact tier has already finished with."""
        ...

    def add_document(self, row: NewDocument) -> Document:
        """Insert a context document and its chunks."""
        ...

    def delete_document(self, tenant: str, document_id: str) -> Document:
        """Remove a document and its chunks; NotFoundError when it does not exist."""
        ...

    def list_documents(
        self, tenant: str, user_id: str, session_id: str | None = None
    ) -> list[Document]:
        """A user's documents, oldest first; with ``session_id``, those attached to that
        session plus those attached to every session."""
        ...

    def document_chunks(self, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
        """Every chunk of a user's documents, with vectors made by ``embedder``."""
        ...

    def get_message(self, tenant: str, message_id: str) -> Message | None:
        """One message by id, or None."""
        ...

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        ...

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        ...

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        ...

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        ...

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        ...

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user; returns counts per table."""
        ...

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        ...

    def lexical(
        self,
        tenant: str,
        user_id: str,
        match: str,
        limit: int,
        session_id: str | None = None,
        kinds: tuple[str, ...] | None = None,
    ) -> list[tuple[Ref, float]]:
        """BM25 candidates for an FTS query, best first; scores are higher-is-better."""
        ...

    def vector_state(self, tenant: str, user_id: str) -> VectorState:
        """The current generation and insert high-water marks of a user's vectors."""
        ...

    def load_vectors(
        self,
        tenant: str,
        user_id: str,
        embedder: str,
        after: VectorState | None,
        upto: VectorState,
    ) -> VectorRows:
        """Embedded live rows of a user made by ``embedder``, in (``after``, ``upto``]."""
        ...

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Row fields for the given refs (those still present)."""
        ...

    def embeddings_for(self, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """Already-stored vectors for content hashes made by ``embedder``."""
        ...

    def key_vectors_for(self, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
        """Stored extra keys (at least one) of messages by content hash, made by ``embedder``."""
        ...

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of stored vectors."""
        ...

    def enqueue(self, jobs: list[NewJob]) -> None:
        """Add jobs outside a turn write."""
        ...

    def claim_job(
        self,
        kinds: tuple[str, ...] | None = None,
        *,
        lease_s: float = 300.0,
        owner: str = "",
        tenant: str | None = None,
    ) -> Job | None:
        """Mark the oldest ready job running under a lease of ``lease_s`` and return it.

        Ready: pending and due, or running with an expired lease (its worker died). With
        ``tenant``, only that tenant's jobs.
        """
        ...

    def extend_lease(self, job_id: int, owner: str, lease_s: float) -> bool:
        """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
        ...

    def finish_job(
        self, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
        ...

    def fail_job(
        self, job_id: int, error: str, retry_in_s: float | None, owner: str | None = None
    ) -> bool:
        """Record a failure: back to pending after ``retry_in_s``, or dead when None.

        With ``owner``, only if that worker still holds the job.
        """
        ...

    def list_jobs(self, status: str | None = None, limit: int = 100) -> list[Job]:
        """Jobs, newest first."""
        ...

    def requeue_dead_jobs(self, tenant: str | None = None) -> int:
        """Put dead jobs (of ``tenant``, or every tenant) back to pending, due now, with their
        attempts reset; returns how many."""
        ...

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        ...

    # ---- conversation tiers (profile, episodes, summaries, eviction) ----------------------
    def profile_facts(
        self,
        tenant: str,
        user_id: str,
        *,
        include_inactive: bool = False,
        min_importance: float | None = None,
        category: str | None = None,
        key: str | None = None,
    ) -> list[ProfileFact]:
        """A user's profile facts: active ones by importance, then inactive history."""
        ...

    def put_profile_fact(
        self, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        """Atomically read the active fact of (category, key), apply ``decide`` and record
        history; returns the decision and the resulting (or unchanged) active fact."""
        ...

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        ...

    def session_messages(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        after_seq: int = 0,
        ids: list[str] | None = None,
    ) -> list[Message]:
        """Messages of one session with seq > ``after_seq`` (optionally only ``ids``), by seq."""
        ...

    def evict_oldest(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        """Take the oldest turns and memories of ``kinds`` of a conversation out of the
        working set (search) until ``max_entries`` remain; turns stay stored. Returns how many."""
        ...

    def close(self) -> None:
        """Close every connection."""
        ...
