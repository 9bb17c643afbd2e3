"""The :class:`~mnemo.context.source.ContextSource` of a Memory: its search, listings, profile
and topic tier, as context assembly reads them for one context call.

:class:`MemoryContextSource` holds the call's :class:`~mnemo.search_query.SearchQuery`, the
template of every search a layout runs (each one a copy with its own text, limit and kinds),
and reads everything else in that query's scope:

* **who**: ``user_id`` alone is the whole user; with ``agent_id``, what that agent sees of the
  user (shared items and those private to it); ``agent_id`` alone, the agent's own memories
  (see :mod:`mnemo.storage.agent_scope`). An agent's context has no topic section: topics
  summarise every turn of a conversation, whoever it is private to.
* **when**: with ``as_of`` (T), the search runs as of T (:mod:`mnemo.retrieval.asof`), the
  recent turns and window are those created at or before T, the memories those that existed
  at T in their version then (from history), the profile the facts current at T
  (:func:`mnemo.storage.sql.asof.current_fact`). The topic tier keeps no history of its
  topics, so a context as of T has no topic section either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from mnemo.config.settings import Settings
from mnemo.context.tokens import TokenCounter, token_counter
from mnemo.embedders import Embedder
from mnemo.list_query import MessageQuery
from mnemo.memory.documents import Documents
from mnemo.memory.records import Records
from mnemo.retrieval.searcher import Searcher
from mnemo.schemas import Hit, MemoryItem, Message, ProfileFact, format_time
from mnemo.search_query import SearchQuery
from mnemo.storage.agent_scope import read_scope
from mnemo.storage.ports.conversation import ProfileQuery
from mnemo.storage.topic_records import TopicRow
from mnemo.tiers.conversation.tiers import ConversationTiers
from mnemo.tiers.topics.memory import TopicMemory

#: Memories read per page while picking those that existed at ``as_of``.
PAGE = 200


@dataclass(frozen=True)
class MemoryReads:
    """The services of a Memory that context assembly reads (built once per Memory)."""

    settings: Settings
    searcher: Searcher
    records: Records
    documents: Documents
    topic_memory: TopicMemory
    embedder: Embedder
    conversation: ConversationTiers


class MemoryContextSource:
    """Context assembly's view of a Memory for one query (see the module docstring): every
    read in the scope of ``query`` (its user, agent and ``as_of``)."""

    def __init__(self, reads: MemoryReads, query: SearchQuery) -> None:
        self.reads = reads
        self._query = query
        #: the stored user key and agent view of every read (a user or an agent is required)
        self.user_key, self.view = read_scope(query.user_id, query.agent_id)
        self.at = query.as_of
        self.at_text = None if self.at is None else format_time(self.at)
        #: the exclusive upper bound of a listing that keeps rows created at or before ``at``
        self.until = None if self.at is None else format_time(self.at + timedelta(microseconds=1))

    @property
    def query(self) -> SearchQuery:
        """The context call's search: text, scope, time, filter and per-call options."""
        return self._query

    @property
    def settings(self) -> Settings:
        """The Memory's settings."""
        return self.reads.settings

    @property
    def embedding_dim(self) -> int:
        """The embedder's vector size."""
        return self.reads.embedder.dim

    def search(self, q: SearchQuery) -> list[Hit]:
        """``Memory.search`` of ``q`` (a copy of :attr:`query`)."""
        return self.reads.searcher.search(q)

    def memories(
        self, *, session_id: str | None = None, kind: str | None, limit: int
    ) -> list[MemoryItem]:
        """The newest ``limit`` live memories of a kind (any kind when None); as of ``at``,
        those that existed then in their version then (read a page at a time, deleted ones
        included, until ``limit`` are found)."""
        records, q = self.reads.records, self._query
        if self.at_text is None:
            return records.list(
                q.user_id, session_id=session_id, kind=kind, limit=limit, agent_id=q.agent_id
            )
        versions = {
            v.fields["id"]: v.fields
            for v in records.store.search.memory_versions(
                records.tenant, self.user_key, self.at_text
            )
        }
        out: list[MemoryItem] = []
        offset = 0
        while len(out) < limit:
            page = records.list(
                q.user_id,
                session_id=session_id,
                kind=kind,
                until=self.until,
                include_deleted=True,
                limit=PAGE,
                offset=offset,
                agent_id=q.agent_id,
            )
            for m in page:
                then = versions.get(m.id)
                if then is not None:
                    keep = {k: then[k] for k in ("content", "tags", "metadata")}
                    out.append(m.model_copy(update={**keep, "deleted_at": None}))
                elif m.deleted_at is None:
                    out.append(m)  # unchanged since: a memory deleted by then is gone
            if len(page) < PAGE:
                break
            offset += PAGE
        return out[:limit]

    def recent_turns(self, session_id: str | None, limit: int) -> list[Message]:
        """The last ``limit`` turns of a session (or of the whole scope), newest first."""
        records, q = self.reads.records, self._query
        turns = MessageQuery.of(
            q.user_id, session_id=session_id, until=self.until, limit=limit, agent_id=q.agent_id
        )
        flt = records.message_filter(turns)
        return records.store.rows.recent_messages(flt)

    def window(self, session_id: str) -> list[Message]:
        """The session's short-term window (the conversation tiers' ``window``): the turns
        the scope sees, created at or before ``at``."""
        turns = self.reads.conversation.window(self.user_key, session_id)
        view, at = self.view, self.at
        return [
            t
            for t in turns
            if (view is None or view.sees(t.agent_id)) and (at is None or t.created_at <= at)
        ]

    def profile(self, *, min_importance: float) -> list[ProfileFact]:
        """The active profile facts (current at ``at``) with importance >= ``min_importance``."""
        if self.at_text is None:
            return self.reads.documents.profile(
                self._query.user_id, min_importance=min_importance, agent_id=self._query.agent_id
            )
        records = self.reads.records
        return records.store.conversation.profile_facts(
            ProfileQuery(
                records.tenant,
                self.user_key,
                min_importance=min_importance,
                as_of=self.at_text,
                agents=self.view,
            )
        )

    def topic(self, query: str, session_id: str) -> TopicRow | None:
        """The topic ``query`` would join (read-only), else the conversation's active one;
        None in an agent's view or as of a time (see the module docstring)."""
        if self.view is not None or self.at is not None:
            return None
        return self.reads.topic_memory.context_topic(query, self.user_key, session_id)

    def token_counter(self) -> TokenCounter:
        """The embedder's token counter (a word estimate without a tokenizer)."""
        return token_counter(self.reads.embedder)


__all__ = ["PAGE", "MemoryContextSource", "MemoryReads"]
