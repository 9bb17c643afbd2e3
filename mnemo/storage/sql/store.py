"""What both stores share: every port method over :class:`~mnemo.storage.sql.tx.Transactions`.

:class:`SQLStore` implements the memory rows, documents, conversation tiers, topics and the job
queue with the shared statement modules, and hands the search port to the backend's own
:class:`~mnemo.storage.ports.search.SearchSource` (full text and vectors are where the two
databases truly differ). A backend passes in its transactions, its search, its job claim and
its own drift check for ``mnemo repair``; it overrides :meth:`SQLStore.index_vectors` when it
keeps a vector index in the database, and :meth:`SQLStore.close`.
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
    format_time,
    utcnow,
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
from mnemo.storage.ports.search import SearchSource
from mnemo.storage.sql import directory, rows
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import jobs as job_sql
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql import messages as msg_sql
from mnemo.storage.sql import profile as profile_sql
from mnemo.storage.sql import stats as stats_sql
from mnemo.storage.sql.api_keys import ApiKeyTable
from mnemo.storage.sql.idempotency import IdempotencyTable
from mnemo.storage.sql.maintenance import Drift, SQLMaintenance
from mnemo.storage.sql.topics import Topics
from mnemo.storage.sql.tx import Transactions, Tx
from mnemo.storage.topic_records import Conversation, TopicRow

T = TypeVar("T")
#: Vector samples of a write, by embedder: what a store may need to index first.
Samples = dict[str | None, np.ndarray | None]
#: A backend's job claim: (write tx, kinds, lease_s, owner, tenant) -> the claimed job or None.
Claim = Callable[[Tx, tuple[str, ...] | None, float, str, str | None], Job | None]


class SQLStore:
    """The :class:`~mnemo.storage.ports.store.Store` methods both backends share."""

    def __init__(
        self,
        location: str,
        tx: Transactions,
        search: SearchSource,
        claim: Claim,
        drift: Drift | None = None,
    ) -> None:
        self.location = location
        self.tx = tx
        self.search = search
        self.claim = claim
        self.api_keys = ApiKeyTable(tx)
        self.idempotency = IdempotencyTable(tx)
        self.maintenance = SQLMaintenance(tx, drift)
        self.topics = Topics(tx)

    def close(self) -> None:
        """Close every connection (the backend's own)."""
        raise NotImplementedError

    def index_vectors(self, samples: Samples) -> None:
        """Prepare the store for vectors of these embedders before they are written (a backend
        without a vector index in the database has nothing to do)."""

    # ---- memory rows -----------------------------------------------------------------------
    def add_messages(self, new: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Insert turns (assigning per-session ``seq``) and their jobs atomically."""
        now = format_time(utcnow())
        self.index_vectors({m.embedder: m.embedding for m in new if m.embedder})
        with self.tx.write() as c:
            out = msg_sql.insert(c, new, now)
            job_sql.enqueue(c, jobs, now)
        return out

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Insert a memory and its ADD history entry."""
        now = format_time(utcnow())
        if row.embedder:
            self.index_vectors({row.embedder: row.embedding})
        with self.tx.write() as c:
            return mem_sql.insert(c, row, actor, row.source_message_ids, now)

    def update_memory(
        self,
        tenant: str,
        memory_id: str,
        changes: dict[str, Any],
        actor: str,
        source_message_ids: list[str] | None = None,
    ) -> MemoryItem:
        """Apply ``changes`` to a live memory and record UPDATE in history."""
        now = format_time(utcnow())
        if changes.get("embedder"):
            self.index_vectors({changes["embedder"]: changes.get("embedding")})
        with self.tx.write() as c:
            return mem_sql.update(
                c, tenant, memory_id, changes, actor, source_message_ids or [], now
            )

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a live memory and record DELETE in history."""
        now = format_time(utcnow())
        with self.tx.write() as c:
            return mem_sql.delete(c, tenant, memory_id, actor, [], now)

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch with history; None (and no change) if its turns were done."""
        now = format_time(utcnow())
        with self.tx.write() as c:
            mem_sql.own_user(c, batch.tenant, batch.user_id, now)
            if docs.processed(c, batch.tenant, [t.message_id for t in batch.turns]):
                return None
            src, actor, tenant = batch.source_message_ids, batch.actor, batch.tenant
            out = [mem_sql.insert(c, row, actor, src, now) for row in batch.adds]
            for memory_id, changes in batch.updates.items():
                out.append(mem_sql.update(c, tenant, memory_id, changes, actor, src, now))
            for memory_id in batch.deletes:
                out.append(mem_sql.delete(c, tenant, memory_id, actor, src, now))
            docs.mark_processed(c, batch, now)
        return out

    def facts_processed(self, tenant: str, message_ids: list[str]) -> set[str]:
        """Which of these turns the fact tier has already finished with."""
        with self.tx.auto() as c:
            return docs.processed(c, tenant, message_ids)

    def get_message(self, tenant: str, message_id: str) -> Message | None:
        """One message by id, or None."""
        with self.tx.auto() as c:
            return msg_sql.find(c, tenant, message_id)

    def get_memory(self, tenant: str, memory_id: str) -> MemoryItem | None:
        """One memory by id (deleted ones too), or None."""
        with self.tx.auto() as c:
            return mem_sql.find(c, tenant, memory_id)

    def list_memories(self, flt: ListFilter) -> list[MemoryItem]:
        """Memories matching ``flt``, newest first."""
        with self.tx.auto() as c:
            return mem_sql.listed(c, flt)

    def count_memories(self, flt: ListFilter) -> int:
        """How many memories match ``flt`` (its limit and offset aside)."""
        with self.tx.auto() as c:
            return mem_sql.counted(c, flt)

    def count_messages(self, flt: ListFilter) -> int:
        """How many messages match ``flt`` (its limit and offset aside)."""
        with self.tx.auto() as c:
            return msg_sql.counted(c, flt)

    def list_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, in conversation order."""
        with self.tx.auto() as c:
            return msg_sql.listed(c, flt, msg_sql.FORWARD)

    def recent_messages(self, flt: ListFilter) -> list[Message]:
        """Messages matching ``flt``, newest first (the tail of a conversation)."""
        with self.tx.auto() as c:
            return msg_sql.listed(c, flt, msg_sql.BACKWARD)

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Every recorded change of a memory, oldest first."""
        with self.tx.auto() as c:
            q = c.dialect.mark
            sql = f"SELECT * FROM history WHERE tenant={q} AND memory_id={q} ORDER BY rowid"
            return [rows.history(r) for r in c.execute(sql, (tenant, memory_id))]

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase every row of a user (derived rows and indexes go with them)."""
        with self.tx.write() as c:
            return stats_sql.delete_user(c, tenant, user_id)

    def list_users(self, tenant: str, limit: int = 100, offset: int = 0) -> list[UserSummary]:
        """The users of ``tenant`` by id, with their counts and last activity."""
        with self.tx.read() as c:
            return directory.users(c, tenant, limit, offset)

    def list_sessions(self, tenant: str, user_id: str) -> list[SessionSummary]:
        """A user's sessions, the most recently active first."""
        with self.tx.read() as c:
            return directory.sessions(c, tenant, user_id)

    def stats(self, tenant: str) -> Stats:
        """Counts of users, sessions, messages, memories by kind and jobs by status."""
        embedder = next(iter(self.embedders_in_use()), None)
        with self.tx.read() as c:
            return stats_sql.stats(c, tenant, embedder, self.location)

    # ---- documents -------------------------------------------------------------------------
    def add_document(self, row: NewDocument) -> Document:
        """Insert a context document and its chunks."""
        with self.tx.write() as c:
            mem_sql.own_user(c, row.tenant, row.user_id, row.created_at)
            return docs.insert(c, row)

    def delete_document(self, tenant: str, document_id: str) -> Document:
        """Remove a document and its chunks; NotFoundError when it does not exist."""
        with self.tx.write() as c:
            return docs.delete(c, tenant, document_id)

    def list_documents(
        self, tenant: str, user_id: str, session_id: str | None = None
    ) -> list[Document]:
        """A user's documents, oldest first; with ``session_id``, those attached to that
        session plus those attached to every session."""
        with self.tx.auto() as c:
            return docs.listed(c, tenant, user_id, session_id)

    def document_chunks(self, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
        """Every chunk of a user's documents, with vectors made by ``embedder``."""
        with self.tx.read() as c:
            return docs.chunks(c, tenant, user_id, embedder)

    # ---- jobs ------------------------------------------------------------------------------
    def enqueue(self, jobs: list[NewJob]) -> None:
        """Add jobs outside a turn write."""
        with self.tx.write() as c:
            job_sql.enqueue(c, jobs, format_time(utcnow()))

    def claim_job(
        self,
        kinds: tuple[str, ...] | None = None,
        *,
        lease_s: float = 300.0,
        owner: str = "",
        tenant: str | None = None,
    ) -> Job | None:
        """Mark the oldest ready job running under a lease of ``lease_s`` and return it.

        Ready: pending and due, or running with an expired lease (its worker died).
        """
        with self.tx.write() as c:
            return self.claim(c, kinds, lease_s, owner, tenant)

    def extend_lease(self, job_id: int, owner: str, lease_s: float) -> bool:
        """Renew the lease of a job ``owner`` still holds; False if it lost the job."""
        with self.tx.write() as c:
            return job_sql.extend_lease(c, job_id, owner, rows.later(utcnow(), lease_s))

    def finish_job(
        self, job_id: int, usage: dict[str, int] | None = None, owner: str | None = None
    ) -> bool:
        """Mark a job done with its token usage; with ``owner``, only if it still holds it."""
        with self.tx.write() as c:
            return job_sql.finish(c, job_id, usage, owner, utcnow())

    def fail_job(
        self, job_id: int, error: str, retry_in_s: float | None, owner: str | None = None
    ) -> bool:
        """Record a failure: back to pending after ``retry_in_s``, or dead when None; with
        ``owner``, only if that worker still holds the job."""
        with self.tx.write() as c:
            return job_sql.fail(c, job_id, error, retry_in_s, owner, utcnow())

    def list_jobs(
        self, status: str | None = None, limit: int = 100, tenant: str | None = None
    ) -> list[Job]:
        """Jobs (of ``tenant``, or every tenant), newest first."""
        with self.tx.auto() as c:
            return job_sql.listed(c, status, limit, tenant)

    def requeue_dead_jobs(self, tenant: str | None = None) -> int:
        """Put dead jobs (of ``tenant``, or every tenant) back to pending, due now, with their
        attempts reset; returns how many."""
        with self.tx.write() as c:
            return job_sql.requeue_dead(c, tenant, utcnow())

    # ---- conversation tiers ----------------------------------------------------------------
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
        with self.tx.auto() as c:
            return profile_sql.select_facts(
                c, tenant, user_id, include_inactive, min_importance, category, key
            )

    def put_profile_fact(
        self, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        """Apply ``decide`` to a candidate against the active fact, in one transaction."""
        now = format_time(utcnow())
        with self.tx.write() as c:
            mem_sql.own_user(c, row.tenant, row.user_id, now)
            return profile_sql.put_fact(c, row, actor, decide, now)

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        with self.tx.read() as c:
            return [rows.history(r) for r in profile_sql.profile_history(c, tenant, user_id)]

    def session_messages(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        after_seq: int = 0,
        ids: list[str] | None = None,
    ) -> list[Message]:
        """Messages of one session with seq > ``after_seq`` (optionally only ``ids``), by seq."""
        with self.tx.auto() as c:
            return msg_sql.session(c, tenant, user_id, session_id, after_seq, ids)

    def evict_oldest(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        """Evict the oldest turns (kept, flagged) and memories (soft-deleted, with history)."""
        now = format_time(utcnow())
        with self.tx.write() as c:
            mem_sql.own_user(c, tenant, user_id, None)
            msg_ids, mem_ids = profile_sql.evict_oldest(
                c, tenant, user_id, session_id, max_entries, kinds, now
            )
            for memory_id in mem_ids:
                mem_sql.delete(c, tenant, memory_id, actor, [], now)
            if msg_ids:
                mem_sql.bump(c, tenant, user_id)
        return len(msg_ids) + len(mem_ids)

    # ---- topics ----------------------------------------------------------------------------
    def apply_topics(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        fn: Callable[[Conversation], T],
        write: bool = True,
        also: str | None = None,
    ) -> T:
        """Load a conversation (plus topic ``also``), run ``fn`` on it and (``write``) persist
        its changes, atomically."""
        return self.topics.apply_topics(tenant, user_id, session_id, fn, write, also)

    def list_topics(
        self, tenant: str, user_id: str, session_id: str | None, include_inactive: bool
    ) -> list[TopicRow]:
        """Topics of a user (or one conversation), latest activity first, without messages."""
        return self.topics.list_topics(tenant, user_id, session_id, include_inactive)

    def get_topic(self, tenant: str, topic_id: str) -> TopicRow | None:
        """One topic by id (without messages), or None."""
        return self.topics.get_topic(tenant, topic_id)

    # ---- search: the backend's own ---------------------------------------------------------
    def lexical(
        self,
        tenant: str,
        user_id: str,
        match: str,
        limit: int,
        session_id: str | None = None,
        kinds: tuple[str, ...] | None = None,
    ) -> list[tuple[Ref, float]]:
        """BM25 candidates for a full-text query, best first."""
        return self.search.lexical(tenant, user_id, match, limit, session_id, kinds)

    def lexical_idf(self, tenant: str, user_id: str, terms: list[str]) -> dict[int, float]:
        """Sum of the BM25 idf of the query's terms in each full-text table, by table."""
        return self.search.lexical_idf(tenant, user_id, terms)

    def vector_state(self, tenant: str, user_id: str) -> VectorState:
        """The current generation and insert high-water marks of a user's vectors."""
        return self.search.vector_state(tenant, user_id)

    def load_vectors(
        self, tenant: str, user_id: str, embedder: str, after: VectorState | None, upto: VectorState
    ) -> VectorRows:
        """Embedded live rows of a user made by ``embedder``, in (``after``, ``upto``]."""
        return self.search.load_vectors(tenant, user_id, embedder, after, upto)

    def fetch(self, refs: list[Ref]) -> dict[Ref, dict[str, Any]]:
        """Hit fields of the given refs (those still present)."""
        return self.search.fetch(refs)

    def embeddings_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Already-stored vectors of ``tenant``'s rows for content hashes made by ``embedder``."""
        return self.search.embeddings_for(tenant, embedder, hashes)

    def key_vectors_for(
        self, tenant: str | None, embedder: str, hashes: list[str]
    ) -> dict[str, np.ndarray]:
        """Stored extra keys (at least one) of ``tenant``'s messages by content hash."""
        return self.search.key_vectors_for(tenant, embedder, hashes)

    def embedders_in_use(self) -> list[str]:
        """Distinct embedder ids of stored vectors."""
        return self.search.embedders_in_use()

    def count_items(self, tenant: str, user_id: str, session_id: str) -> int:
        """Messages plus live memories in one session."""
        return self.search.count_items(tenant, user_id, session_id)
