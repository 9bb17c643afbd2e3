"""A store that forwards every call to another: subclass it to intercept some of them.

:class:`StoreDelegate` spells out each method of :class:`~mnemo.storage.ports.store.Store`, so
a wrapper (e.g. the file mirror of ``mnemo.files.mirror``) overrides only what it changes and
type checking sees the whole protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from mnemo.schemas import (
    Document,
    HistoryEntry,
    Job,
    MemoryItem,
    Message,
    ProfileFact,
    SessionSummary,
    Stats,
    UserSummary,
)
from mnemo.storage.base import (
    DocumentChunks,
    FactBatch,
    ListFilter,
    NewDocument,
    NewJob,
    NewMemory,
    NewMessage,
    NewProfileFact,
    ProfileDecide,
    ProfileDecision,
    Ref,
    VectorRows,
    VectorState,
)
from mnemo.storage.ports.api_keys import ApiKeys
from mnemo.storage.ports.idempotency import IdempotencyKeys
from mnemo.storage.ports.maintenance import Maintenance
from mnemo.storage.ports.store import Store
from mnemo.storage.topic_records import Conversation, TopicRow

T = TypeVar("T")


class StoreDelegate:
    """Every :class:`Store` method, passed to ``inner`` unchanged."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    @property
    def location(self) -> str:
        """The wrapped store's location."""
        return self.inner.location

    @property
    def api_keys(self) -> ApiKeys:
        """The wrapped store's API key table."""
        return self.inner.api_keys

    @property
    def idempotency(self) -> IdempotencyKeys:
        """The wrapped store's idempotency-key table."""
        return self.inner.idempotency

    @property
    def maintenance(self) -> Maintenance:
        """The wrapped store's maintenance batches."""
        return self.inner.maintenance

    def close(self) -> None:
        """Close the wrapped store."""
        self.inner.close()

    # ---- MemoryRows ------------------------------------------------------
    def add_messages(self, rows: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Insert turns (assigning per-session ``seq``) and their jobs atomically."""
        return self.inner.add_messages(rows, jobs)

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Insert a memory and its ADD history entry."""
        return self.inner.add_memory(row, actor)

    def update_memory(
        self,
        tenant: str,
        memory_id: str,
        changes: dict[str, Any],
        actor: str,
        source_message_ids: list[str] | None = None,
    ) -> MemoryItem:
        """The wrapped store's ``update_memory``."""
        return self.inner.update_memory(tenant, memory_id, changes, actor, source_message_ids)

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a memory (it leaves search) and record DELETE in history."""
        return self.inner.delete_memory(tenant, memory_id, actor)

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch with history; None (and no change) if its turns were done."""
        return self.inner.apply_facts(batch)

    def facts_processed(self, tenant: str, message_ids: list[str]) -> set[str]:
        """Which of these turns the fact tier has already finished with."""
        return self.inner.facts_processed(tenant, message_ids)

    def get_message(self, tenant: str, message_id: str) -> Message | None:
        """One message by id, or None."""
        return self.inner.get_message(tenant, message_id)

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        return self.inner.get_memory(tenant, memory_id)

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        return self.inner.list_memories(flt)

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        return self.inner.list_messages(flt)

    def count_memories(self, flt: ListFilter) -> int:
        """How many memories match ``flt`` (its limit and offset aside)."""
        return self.inner.count_memories(flt)

    def count_messages(self, flt: ListFilter) -> int:
        """How many messages match ``flt`` (its limit and offset aside)."""
        return self.inner.count_messages(flt)

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        return self.inner.recent_messages(flt)

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        return self.inner.history(tenant, memory_id)

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user; returns counts per table."""
        return self.inner.delete_user(tenant, user_id)

    def list_users(self, tenant: str, limit: int = 100, offset: int = 0) -> list[UserSummary]:
        """The users of ``tenant`` by id, with their counts and last activity."""
        return self.inner.list_users(tenant, limit, offset)

    def list_sessions(self, tenant: str, user_id: str) -> list[SessionSummary]:
        """A user's sessions, the most recently active first."""
        return self.inner.list_sessions(tenant, user_id)

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        return self.inner.stats(tenant)

    # ---- Documents -------------------------------------------------------
    def add_document(self, row: NewDocument) -> Document:
        """Insert a context document and its chunks."""
        return self.inner.add_document(row)

    def delete_document(self, tenant: str, document_id: str) -> Document:
        """Remove a document and its chunks; NotFoundError when it does not exist."""
        return self.inner.delete_document(tenant, document_id)

    def list_documents(
        self, tenant: str, user_id: str, session_id: str | None = None
    ) -> list[Document]:
        """The wrapped store's ``list_documents``."""
        return self.inner.list_documents(tenant, user_id, session_id)

    def document_chunks(self, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
        """Every chunk of a user's documents, with vectors made by ``embedder``."""
        return self.inner.document_chunks(tenant, user_id, embedder)

    # ---- SearchSource ----------------------------------------------------
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
        return self.inner.lexical(tenant, user_id, match, limit, session_id, kinds)

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum of the BM25 idf of the query's terms in each full-text table, by table."""
        return self.inner.lexical_idf(tenant, user_id, terms)

    def vector_state(self, tenant: str, user_id: str) -> VectorState:
        """The current generation and insert high-water marks of a user's vectors."""
        return self.inner.vector_state(tenant, user_id)

    def load_vectors(
        self,
        tenant: str,
        user_id: str,
        embedder: str,
        after: VectorState | None,
        upto: VectorState,
    ) -> VectorRows:
        """Embedded live rows of a user made by ``embedder``, in (``after``, ``upto``]."""
        return self.inner.load_vectors(tenant, user_id, embedder, after, upto)

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Row fields for the given refs (those still present)."""
        return self.inner.fetch(refs)

    def embeddings_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Already-stored vectors for content hashes made by ``embedder``."""
        return self.inner.embeddings_for(tenant, embedder, hashes)

    def key_vectors_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """The wrapped store's ``key_vectors_for``."""
        return self.inner.key_vectors_for(tenant, embedder, hashes)

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of stored vectors."""
        return self.inner.embedders_in_use()

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        return self.inner.count_items(tenant, user_id, session_id)

    # ---- JobQueue --------------------------------------------------------
    def enqueue(self, jobs: list[NewJob]) -> None:
        """Add jobs outside a turn write."""
        return self.inner.enqueue(jobs)

    def claim_job(
        self,
        kinds: tuple[str, ...] | None = None,
        *,
        lease_s: float = 300.0,
        owner: str = "",
        tenant: str | None = None,
    ) -> Job | None:
        """The wrapped store's ``claim_job``."""
        return self.inner.claim_job(kinds, lease_s=lease_s, owner=owner, tenant=tenant)

    def extend_lease(self, job_id: int, owner: str, lease_s: float) -> bool:
        """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
        return self.inner.extend_lease(job_id, owner, lease_s)

    def finish_job(
        self, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
        return self.inner.finish_job(job_id, usage, owner)

    def fail_job(
        self, job_id: int, error: str, retry_in_s: float | None, owner: str | None = None
    ) -> bool:
        """The wrapped store's ``fail_job``."""
        return self.inner.fail_job(job_id, error, retry_in_s, owner)

    def list_jobs(
        self, status: str | None = None, limit: int = 100, tenant: str | None = None
    ) -> list[Job]:
        """Jobs (of ``tenant``, or every tenant), newest first."""
        return self.inner.list_jobs(status, limit, tenant)

    def requeue_dead_jobs(self, tenant: str | None = None) -> int:
        """Put dead jobs back to pending (see :class:`~mnemo.storage.ports.jobs.JobQueue`)."""
        return self.inner.requeue_dead_jobs(tenant)

    # ---- ConversationTiers -----------------------------------------------
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
        return self.inner.profile_facts(
            tenant,
            user_id,
            include_inactive=include_inactive,
            min_importance=min_importance,
            category=category,
            key=key,
        )

    def put_profile_fact(
        self, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        """The wrapped store's ``put_profile_fact``."""
        return self.inner.put_profile_fact(row, actor, decide)

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        return self.inner.profile_history(tenant, user_id)

    def session_messages(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        after_seq: int = 0,
        ids: list[str] | None = None,
    ) -> list[Message]:
        """The wrapped store's ``session_messages``."""
        return self.inner.session_messages(tenant, user_id, session_id, after_seq, ids)

    def evict_oldest(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        """The wrapped store's ``evict_oldest``."""
        return self.inner.evict_oldest(tenant, user_id, session_id, max_entries, kinds, actor)

    # ---- TopicStore ------------------------------------------------------
    def apply_topics(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        fn: Callable[[Conversation], T],
        write: bool = True,
        also: str | None = None,
    ) -> T:
        """The wrapped store's ``apply_topics``."""
        return self.inner.apply_topics(tenant, user_id, session_id, fn, write, also)

    def list_topics(
        self, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        """Topics of a user (or one conversation), newest activity first, without messages."""
        return self.inner.list_topics(tenant, user_id, session_id, include_inactive)

    def get_topic(self, tenant: str, topic_id: str) -> TopicRow | None:
        """One topic by id (without messages), or None."""
        return self.inner.get_topic(tenant, topic_id)
