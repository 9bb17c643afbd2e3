"""Memory: the facade every interface (library, CLI, server, eval) goes through.

``Memory`` wires one store, embedder and chat model into small services, each built with
exactly what it uses (store, embedding, settings), and delegates its public methods to them:
:class:`~mnemo.memory.turns.TurnWriter` (``add_messages``, ``add_batches``),
:class:`~mnemo.memory.records.Records` (memory CRUD),
:class:`~mnemo.memory.selection.Selection` (``count``, ``delete_all``),
:class:`~mnemo.memory.audit.Audit` (``audit``),
:class:`~mnemo.memory.documents.Documents` (documents, profile),
:class:`~mnemo.memory.entities.Entities` (the entity index),
:class:`~mnemo.memory.topics.Topics` (`topics`), :class:`~mnemo.memory.files.Files` (`agent-cli`),
:class:`~mnemo.retrieval.searcher.Searcher` and, for ``context``, a
:class:`~mnemo.memory.context_source.MemoryContextSource` per call. A search is one
:class:`~mnemo.search_query.SearchQuery`, built once here and passed down. Every tier
registers its job handlers the same way: ``tier.handlers()``, merged into
:attr:`Memory.handlers`.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

import numpy as np

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.context.assemble import build_context
from mnemo.context.options import ContextOptions
from mnemo.embedders import Embedder, create_embedder
from mnemo.errors import SchemaError, ValidationError
from mnemo.index import keys
from mnemo.index.embed import Embedding
from mnemo.jobs import runner as job_runner
from mnemo.jobs.sweep import SWEEP
from mnemo.llm import create_chat_model
from mnemo.memory.audit import Audit
from mnemo.memory.closing import Closing
from mnemo.memory.context_source import MemoryContextSource, MemoryReads
from mnemo.memory.directory import Directory
from mnemo.memory.documents import Documents
from mnemo.memory.entities import Entities
from mnemo.memory.files import Files, mirrored
from mnemo.memory.forward import forward
from mnemo.memory.hints import store_hints
from mnemo.memory.records import Records
from mnemo.memory.selection import Selection
from mnemo.memory.topics import Topics
from mnemo.memory.turns import TurnWriter
from mnemo.retrieval.asof import as_of_time
from mnemo.retrieval.pipeline import Pipeline, QueryCache
from mnemo.retrieval.searcher import Searcher
from mnemo.schemas import ContextBundle, Hit, Job, Stats
from mnemo.search_query import SearchQuery
from mnemo.storage import open_store
from mnemo.storage.ports.store import Store
from mnemo.tiers.conversation.tiers import ConversationTiers
from mnemo.tiers.entities.tier import EntityTier
from mnemo.tiers.facts import tier as fact_tier
from mnemo.tiers.topics import memory as topic_tier

log = logging.getLogger("mnemo")


class Tier(Protocol):
    """A write-path tier: the job handlers it runs, by job kind (in the order they run)."""

    def handlers(self) -> Mapping[str, job_runner.Handler]:
        """This tier's enabled job handlers by kind."""
        ...


class Memory(Closing):
    """Long-term memory over one store.

    ``Memory(path)`` opens (or creates) a SQLite file; ``Memory(url=...)`` a PostgreSQL
    database; keyword arguments override any setting (see :class:`mnemo.Settings`).
    ``embedder`` takes an Embedder instance or a registry name.

    >>> mem = Memory(":memory:", embedder="hashing")
    >>> ids = mem.add_messages([{"role": "user", "content": "I adopted a cat"}], user_id="u1")
    >>> mem.search("cat", user_id="u1")[0].content
    'I adopted a cat'
    """

    def __init__(
        self,
        path: str | None = None,
        *,
        url: str | None = None,
        settings: Settings | None = None,
        embedder: Embedder | str | None = None,
        store: Store | None = None,
        **overrides: Any,
    ) -> None:
        if isinstance(embedder, str):
            overrides["embedder"], embedder = embedder, None
        if path is not None:
            overrides["path"] = path
        if url is not None:
            overrides["database_url"] = url
        self.settings = settings.replace(**overrides) if settings else Settings(**overrides)
        self.tenant = self.settings.tenant
        self._owns_embedder = embedder is None  # a caller's embedder is the caller's to close
        self.embedder = embedder or create_embedder(self.settings)
        self.store = store or open_store(self.settings)
        self._check_embedder()
        # files_dir set: every write (API and tiers alike) mirrored to a Markdown file
        mirror = mirrored(self.store, self.settings)
        self.embedding = Embedding(self.store.search, self.embedder, self.tenant)
        self.pipeline = Pipeline(
            self.store.search,
            self.embedder,
            self.settings,
            queries=QueryCache(self.settings.query_cache_size),
        )
        self.chat = create_chat_model(self.settings)
        #: Job handlers by kind; kinds starting with ``turns.`` are enqueued with every batch.
        self.handlers: dict[str, job_runner.Handler] = {}
        self._turns = TurnWriter(self.store, self.settings, self.embedding, self.handlers)
        self._records = Records(self.store, self.settings, self.embedding)
        self._selection = Selection(self._records)
        self._audit = Audit(self.store, self.settings, self.embedding)
        self._directory = Directory(self.store, self.settings, self.embedding)
        self._documents = Documents(self.store, self.settings, self.embedding)
        self._entities = Entities(self.store, self.settings, self.embedding)
        self.conversation = ConversationTiers(
            self.store, self.embedder, self.settings, chat=self.chat
        )
        self.topic_memory = topic_tier.TopicMemory(
            self.store, self.settings, self.embedder, self._turns.add_messages, chat=self.chat
        )
        for tier in self._tiers():
            self.handlers.update(tier.handlers())
        # the fact job indexes its turns' entities after their facts (tiers/entities/tier.py)
        self.handlers.update(EntityTier(self.store, self.tenant, self.handlers).handlers())
        self.handlers[SWEEP] = self._sweep_job
        self._topics = Topics(self.topic_memory)
        self._searcher = Searcher(self.pipeline, self.settings, self.store.clock)
        self._reads = MemoryReads(
            self.settings,
            self._searcher,
            self._records,
            self._documents,
            self.topic_memory,
            self.embedder,
            self.conversation,
        )
        self._files = Files(self.store, self.settings, self._records, mirror)
        self._files.open()

    def _tiers(self) -> list[Tier]:
        """The write-path tiers, in the order their jobs run: facts (unless
        ``fact_extraction`` is off), the conversation tiers, topics."""
        tiers: list[Tier] = []
        if self.settings.fact_extraction != "off":
            tiers.append(
                fact_tier.FactTier(
                    self.store,
                    self.tenant,
                    self.embedder.id,
                    self.embedding,
                    self.pipeline.indexes,
                    self.settings,
                    self.chat,
                )
            )
        return [*tiers, self.conversation, self.topic_memory]

    def _check_embedder(self) -> None:
        """Raise SchemaError when the store holds another embedder's vectors, unless
        ``reembed_on_open`` (then rebuild them); run the startup repair when asked."""
        in_use = [e for e in self.store.search.embedders_in_use() if e != self.embedder.id]
        if in_use and self.settings.reembed_on_open:
            from mnemo.ops.reembed import reembed

            log.warning("re-embedding vectors of %s with %s", in_use, self.embedder.id)
            reembed(
                self.store,
                self.embedder,
                self.settings.embed_batch_size,
                keys=keys.KeySpec.from_settings(self.settings),
            )
            in_use = []
        if self.settings.repair_on_open:
            from mnemo.ops.repair import repair

            log.info(
                "startup repair: %s",
                repair(self.store, self.embedder, keys=keys.KeySpec.from_settings(self.settings)),
            )
        if in_use:
            raise SchemaError(
                f"{self.store.location} holds vectors made by {in_use}, but the embedder is "
                f"{self.embedder.id!r}; use that embedder, or re-embed the store with "
                f"`mnemo reembed` (see docs/maintenance.md)"
            )

    # ---- writing --------------------------------------------------------------------------
    add_messages = forward("_turns", TurnWriter.add_messages)
    add_batches = forward("_turns", TurnWriter.add_batches)
    add = forward("_records", Records.add)
    update = forward("_records", Records.update)
    delete = forward("_records", Records.delete)
    delete_all = forward("_selection", Selection.delete_all)
    attach_document = forward("_documents", Documents.attach_document)
    detach_document = forward("_documents", Documents.detach_document)

    # ---- reading -------------------------------------------------------------------------
    get = forward("_records", Records.get)
    get_memory = forward("_records", Records.get_memory)
    list = forward("_records", Records.list)
    count = forward("_selection", Selection.count)
    messages = forward("_records", Records.messages)
    users = forward("_directory", Directory.users)
    sessions = forward("_directory", Directory.sessions)
    # the same listings a page at a time, with their totals (mnemo.Page)
    list_page = forward("_records", Records.list_page)
    messages_page = forward("_records", Records.messages_page)
    users_page = forward("_directory", Directory.users_page)
    sessions_page = forward("_directory", Directory.sessions_page)
    jobs_page = forward("_directory", Directory.jobs_page)
    history = forward("_records", Records.history)
    documents = forward("_documents", Documents.documents)
    profile = forward("_documents", Documents.profile)
    profile_view = forward("_documents", Documents.profile_view)
    # ---- the memory audit (docs/audit.md) ---------------------------------------------------
    audit = forward("_audit", Audit.audit)

    # ---- the entity index (docs/entities.md) ---------------------------------------------------
    entities = forward("_entities", Entities.entities)
    entity = forward("_entities", Entities.entity)

    def search(
        self,
        query: str | SearchQuery,
        user_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
        kinds: Sequence[str] | None = None,
        explain: bool = False,
        now: datetime | float | str | None = None,
        *,
        exclude: Sequence[str] = (),
        as_of: datetime | float | str | None = None,
        agent_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
        current_session: str | None = None,
    ) -> builtins.list[Hit]:
        """The memories and turns most relevant to ``query``, best first, one hit per thing
        said (duplicates are listed in ``hit.duplicates``; a turn's kind in ``hit.turn_kind``).

        Every hit carries each stage's score in ``hit.scores``; ``explain=True`` keeps the
        ranks too. ``now`` sets the reference time for recency and relative dates (default:
        the user's newest turn, else the clock). Turns whose text is one of ``exclude`` (the
        request being answered) are left out. ``as_of`` (any time, not after the store's
        clock) answers from what was known then: later turns and memories left out, changed
        ones in their version then (docs/memory-model.md); ``now`` then defaults to it.
        ``agent_id`` narrows the search to what that agent sees: with ``user_id``, the user's
        shared items and those private to the agent; alone, the agent's own memories (see
        docs/memory-model.md, "Scopes"). ``filters`` (mem0's syntax, see
        docs/memory-model.md) keeps only the memories and turns that match, applied in the
        store before ranking takes its top k. ``session_id`` narrows to that conversation;
        ``current_session`` instead names the conversation being answered, searched with the
        user's other sessions while it is small (``cross_session_threshold``; what context
        assembly does). ``query`` may also be a whole
        :class:`~mnemo.search_query.SearchQuery` (then give no other argument).
        """
        q = SearchQuery.of(
            query, user_id=user_id, session_id=session_id, limit=limit, kinds=kinds,
            explain=explain, now=now, exclude=exclude, as_of=as_of, agent_id=agent_id,
            filters=filters, current_session=current_session,
        )  # fmt: skip
        hits = self._searcher.search(q)
        if self.settings.refresh_on_read and hits:
            self.store.rows.refresh_expiry(self.tenant, [h.id for h in hits])
        return hits

    def context(
        self,
        /,
        query: str | SearchQuery,
        user_id: str | None = None,
        session_id: str | None = None,
        budget_tokens: int = 1500,
        *,
        as_of: datetime | float | str | None = None,
        agent_id: str | None = None,
        **options: Any,
    ) -> ContextBundle:
        """The memory for a prompt about ``query``, within ``budget_tokens``, in the preset's
        format; ``bundle.render()`` is the text. Options: the search's ``now``, ``exclude``,
        ``filters``, ``recency_weight`` and ``score_threshold`` (see
        :class:`~mnemo.search_query.SearchQuery`) and the layout's (see
        :class:`~mnemo.context.options.ContextOptions`). ``as_of`` assembles it from what was
        known then; ``now`` defaults to it. ``agent_id`` assembles it from what that agent
        sees (with no ``user_id``: its own memories; ``bundle.user_id`` then holds the agent
        id); topics are left out of an agent's context. Both given: what that agent saw then
        (:class:`~mnemo.memory.context_source.MemoryContextSource`). ``session_id`` is the
        conversation being answered: its searches prefer it (``current_session``), widening
        to the user's other sessions while it is small, as the chat proxy does.
        """
        searched = {k: options.pop(k) for k in list(options) if k in SearchQuery.model_fields}
        q = SearchQuery.of(
            query, user_id=user_id, session_id=session_id, as_of=as_of, agent_id=agent_id,
            **searched,
        )  # fmt: skip
        if q.session_id is not None:  # the conversation answered, not a narrowing
            q = q.replace(session_id=None, current_session=q.session_id)
        as_of_time(q.as_of, self.store.clock)  # refuses a time after the store's clock
        source = MemoryContextSource(self._reads, q)
        return build_context(source, ContextOptions(budget_tokens=budget_tokens, **options))

    # ---- topics (`topics`) ----------------------------------------------------------------
    add_user_message = forward("_topics", Topics.add_user_message)
    add_assistant_message = forward("_topics", Topics.add_assistant_message)
    topic_context = forward("_topics", Topics.topic_context)
    topic_history = forward("_topics", Topics.topic_history)
    topic_stats = forward("_topics", Topics.topic_stats)
    topics = forward("_topics", Topics.topics)
    search_topics = forward("_topics", Topics.search_topics)
    topic_feedback = forward("_topics", Topics.topic_feedback)

    # ---- the file store (`agent-cli`) -------------------------------------------------------
    reconcile_files = forward("_files", Files.reconcile_files)
    watch_files = forward("_files", Files.watch_files)
    stop_files = forward("_files", Files.stop_files)

    # ---- users, jobs, lifecycle ------------------------------------------------------------
    def delete_agent(self, agent_id: str) -> dict[str, int]:
        """Erase every row tagged with an agent: its own memories and the items private to it
        in every user (turns, memories, profile facts, their FTS rows, vectors, history and
        mirrored files); shared items stay. Returns counts by table."""
        agent_id = check.identifier(agent_id, "agent_id")
        counts, users = self.store.rows.delete_agent(self.tenant, agent_id)
        for user_id in users:
            self.pipeline.indexes.drop(self.tenant, user_id)
        return counts

    def delete_user(self, user_id: str) -> dict[str, int]:
        """Erase every row of a user: messages, memories, FTS rows, vectors, history, jobs."""
        user_id = check.identifier(user_id, "user_id")
        counts = self.store.rows.delete_user(self.tenant, user_id)
        self.pipeline.indexes.drop(self.tenant, user_id)
        return counts

    def sweep(self) -> dict[str, int]:
        """Remove this tenant's expired turns and memories for good, as erasure does (their
        full-text rows, vectors, mirrored files and the memories' history go too); counts per
        table (``messages``, ``memories``, ``history``, ...). Expired rows are already out of
        every read; the sweep reclaims them. A worker runs it every ``sweep_interval_s``."""
        return self.store.rows.sweep(self.tenant)

    def _sweep_job(self, payload: dict[str, Any]) -> None:
        """The handler of a periodic sweep job (see :mod:`mnemo.jobs.sweep`); what it removed
        is logged (a handler's return value is its token usage, and a sweep uses none)."""
        counts = self.store.rows.sweep(None if payload.get("every_tenant") else self.tenant)
        log.info("sweep: %s", counts)

    def drain(self, max_jobs: int | None = None) -> int:
        """Run this tenant's pending jobs inline until none is ready; returns how many ran."""
        options = job_runner.RunOptions.from_settings(self.settings, tenant=self.tenant)
        return job_runner.run_ready(self.store.jobs, self.handlers, max_jobs, options=options)

    def jobs(self, status: str | None = None, limit: int = 100) -> builtins.list[Job]:
        """This tenant's background jobs, newest first; ``status`` is one of pending, running,
        done, dead (a dead job keeps its last error)."""
        if status is not None:
            status = check.job_status(status)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
            raise ValidationError("limit must be an integer in [1, 10000]")
        return self.store.jobs.list_jobs(status, limit, tenant=self.tenant)

    def requeue_dead_jobs(self) -> int:
        """Put this tenant's dead jobs back in the queue (due now, attempts reset, last error
        kept); returns how many."""
        return self.store.jobs.requeue_dead_jobs(self.tenant)

    def worker(self, poll_s: float | None = None) -> job_runner.Worker:
        """A :class:`~mnemo.jobs.runner.Worker` for this tenant's jobs with this Memory's
        handlers (not started; ``poll_s`` defaults to ``worker_poll_s``)."""
        return job_runner.Worker(
            self.store.jobs, self.handlers, self.settings, tenant=self.tenant, poll_s=poll_s
        )

    def stats(self) -> Stats:
        """Counts of what the store holds for this tenant, with advice in ``hints`` (see
        :mod:`mnemo.memory.hints`)."""
        stats = self.store.rows.stats(self.tenant)
        stats.hints.extend(store_hints(self.store.rows, self.tenant, self.embedder))
        return stats

    def close(self) -> None:
        """Close the store, and the embedder's network clients when this Memory made it."""
        self._files.stop_files()
        self.conversation.close()
        self.store.close()
        if self._owns_embedder:
            self.embedder.close()
        if self.chat is not None:
            self.chat.close()

    # ---- for adapters: expiry, embeddings, another embedder --------------------------------
    def refresh_expiry(self, ids: Sequence[str]) -> dict[str, datetime]:
        """Move the expiry of the live turns and memories among ``ids`` that carry a ttl to
        now + their ttl, as a read does under ``refresh_on_read``; their new ``expires_at`` by
        id (ids without a ttl, expired or of another tenant are left out)."""
        return self.store.rows.refresh_expiry(self.tenant, _strings(ids, "ids"))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The unit vectors of ``texts`` (one row each) by this Memory's embedder; a text this
        tenant already stores is not embedded again (its stored vector is reused)."""
        return self.embedding(_strings(texts, "texts"))[1]

    def prefetch_embeddings(self, texts: Sequence[str]) -> AbstractContextManager[None]:
        """A ``with`` block in which this Memory's writes (``add``, ``update``, ...) take the
        vectors of ``texts`` embedded ahead, in batches, instead of one call per write."""
        return self.embedding.prefetched(_strings(texts, "texts"))

    def with_embedder(self, embedder: Embedder | str) -> Memory:
        """A Memory over this one's store, tenant and settings whose embedder is ``embedder``
        (an instance, or a registry name: then the ``embedder`` setting too); SchemaError
        when the store holds another embedder's vectors, as opening it would. It shares the
        store: close this Memory, not it."""
        if isinstance(embedder, str):
            return Memory(settings=self.settings.replace(embedder=embedder), store=self.store)
        if not isinstance(embedder, Embedder):
            raise ValidationError(f"embedder must be an Embedder or a name, got {embedder!r}")
        return Memory(settings=self.settings, embedder=embedder, store=self.store)


def _strings(values: Sequence[str], field: str) -> builtins.list[str]:
    """``values`` as a list, ValidationError unless it is a sequence of strings."""
    wrong = isinstance(values, str) or not isinstance(values, Sequence)
    if wrong or not all(isinstance(v, str) for v in values):
        raise ValidationError(f"{field} must be a list of strings")
    return builtins.list(values)
