"""Memory: the facade every interface (library, CLI, server, eval) goes through."""

from __future__ import annotations

import builtins
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any

import numpy as np

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.context.assemble import build_context
from mnemo.embedders import Embedder, content_hash, create_embedder
from mnemo.errors import SchemaError, ValidationError
from mnemo.files.memory_api import FilesAPI
from mnemo.ids import MESSAGE_PREFIX, new_id
from mnemo.index import keys
from mnemo.jobs import runner as job_runner
from mnemo.llm import create_chat_model
from mnemo.memory.documents import TiersAPI
from mnemo.memory.records import MemoriesAPI
from mnemo.memory.topics import TopicsAPI
from mnemo.retrieval.pipeline import Pipeline, SearchRequest
from mnemo.schemas import (
    ContextBundle,
    Hit,
    Stats,
    format_time,
    parse_time,
    utcnow,
)
from mnemo.storage import open_store
from mnemo.storage.base import NewJob, NewMessage
from mnemo.storage.ports.store import Store
from mnemo.tiers.conversation.tiers import ConversationTiers
from mnemo.tiers.facts import tier as fact_tier
from mnemo.tiers.topics import memory as topic_tier

log = logging.getLogger("mnemo")

Progress = Callable[[int], None]


def embed_text(content: str, name: str | None = None) -> str:
    """The text embedded for a turn: its content alone.

    The speaker's name stays out of the vector: in a two-person conversation every turn
    carries one of two names, which then swamps the meaning (LoCoMo dev R@10 .734 -> .775 with
    names cut from both sides). Names are matched by the lexical index and the speaker prior.
    """
    del name
    return content


class Memory(MemoriesAPI, TiersAPI, TopicsAPI, FilesAPI):
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
        self._attach_files()  # files_dir set: every write mirrored to a Markdown file
        self.pipeline = Pipeline(self.store, self.embedder, self.settings)
        self.handlers: dict[str, job_runner.Handler] = {}
        self.chat = create_chat_model(self.settings)
        if self.settings.fact_extraction != "off":
            self.handlers[fact_tier.JOB_KIND] = fact_tier.FactTier(
                self.store,
                self.tenant,
                self.embedder.id,
                self._embed,
                self.pipeline.indexes,
                self.settings,
                self.chat,
            )
        self.conversation = ConversationTiers(
            self.store, self.embedder, self.settings, chat=self.chat
        )
        self.handlers.update(self.conversation.handlers())
        self.topic_memory = topic_tier.TopicMemory(
            self.store, self.settings, self.embedder, self.add_messages, chat=self.chat
        )
        self.handlers[topic_tier.SUMMARY_JOB] = self.topic_memory.handle_summary_job
        if self.settings.topics_enabled:
            self.handlers[topic_tier.JOB_KIND] = self.topic_memory.handle_job
        self._open_files()

    def _check_embedder(self) -> None:
        """Raise SchemaError when the store holds another embedder's vectors, unless
        ``reembed_on_open`` (then rebuild them); run the startup repair when asked."""
        in_use = [e for e in self.store.embedders_in_use() if e != self.embedder.id]
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

    # ---- writing turns -------------------------------------------------------------------
    def add_messages(
        self,
        messages: Sequence[dict[str, Any]],
        user_id: str,
        session_id: str = "default",
        progress: Progress | None = None,
    ) -> list[str]:
        """Store turns with their embeddings in one transaction; returns their ids.

        Each turn is ``{"role", "content", "name"?, "created_at"?, "metadata"?}``. A turn is
        searchable as soon as this returns. Invalid input raises ValidationError and writes
        nothing.
        """
        user_id = check.identifier(user_id, "user_id")
        session_id = check.identifier(session_id, "session_id")
        turns = check.messages(messages, self.settings.max_content_chars)
        texts = [embed_text(t.content, t.name) for t in turns]
        hashes, vectors = self._embed(texts, progress)
        key_vectors = keys.embed_keys(
            self.embedder,
            self.store,
            [(t.role, t.content) for t in turns],
            hashes,
            keys.KeySpec.from_settings(self.settings),
        )
        now = utcnow()
        rows = [
            NewMessage(
                id=new_id(MESSAGE_PREFIX),
                tenant=self.tenant,
                user_id=user_id,
                session_id=session_id,
                role=t.role,
                name=t.name,
                content=t.content,
                created_at=format_time(t.created_at or now),
                metadata=t.metadata,
                content_hash=h,
                embedder=self.embedder.id,
                embedding=v,
                key_vectors=kv,
            )
            for t, h, v, kv in zip(turns, hashes, vectors, key_vectors, strict=True)
        ]
        stored = self.store.add_messages(rows, self._followups(rows))
        return [m.id for m in stored]

    def _embed(
        self, texts: list[str], progress: Progress | None = None
    ) -> tuple[list[str], np.ndarray]:
        """Content hashes and vectors; texts already embedded by this embedder are reused."""
        hashes = [content_hash(t) for t in texts]
        known = self.store.embeddings_for(self.embedder.id, hashes)
        todo = list(dict.fromkeys(h for h in hashes if h not in known))
        if todo:
            first = {h: t for h, t in zip(hashes, texts, strict=True)}
            fresh = self.embedder.embed([first[h] for h in todo], progress)
            known.update(zip(todo, fresh, strict=True))
        if progress is not None and len(texts) > len(todo):
            progress(len(texts) - len(todo))
        if not texts:
            return hashes, np.zeros((0, self.embedder.dim), np.float32)
        return hashes, np.stack([known[h] for h in hashes])

    def _followups(self, rows: list[NewMessage]) -> list[NewJob]:
        """Jobs enqueued with a batch of turns: one per registered turn handler."""
        kinds = [k for k in self.handlers if k.startswith("turns.")]
        if not kinds or not rows:
            return []
        payload = {
            "message_ids": [r.id for r in rows],
            "user_id": rows[0].user_id,
            "session_id": rows[0].session_id,
            "tenant": self.tenant,
        }
        return [
            NewJob(kind=k, payload=payload, tenant=self.tenant, user_id=rows[0].user_id)
            for k in kinds
        ]

    # ---- reading -------------------------------------------------------------------------
    def search(
        self,
        query: str,
        user_id: str,
        session_id: str | None = None,
        limit: int | None = None,
        kinds: Sequence[str] | None = None,
        explain: bool = False,
        now: datetime | float | str | None = None,
    ) -> builtins.list[Hit]:
        """The memories and turns most relevant to ``query``, best first.

        Every hit carries each stage's score in ``hit.scores``; ``explain=True`` keeps the
        ranks too. ``now`` sets the reference time for recency (default: the clock).
        """
        if not isinstance(query, str):
            raise ValidationError(f"query must be a string, got {type(query).__name__}")
        user_id = check.identifier(user_id, "user_id")
        if session_id is not None:
            session_id = check.identifier(session_id, "session_id")
        n = self.settings.search_limit if limit is None else limit
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
            raise ValidationError("limit must be an integer in [1, 1000]")
        kinds_t = check.hit_kinds(kinds)
        if not query.strip():
            return []
        ref_time = time.time() if now is None else parse_time(now, "now").timestamp()
        req = SearchRequest(
            query=query[: self.settings.max_content_chars],
            tenant=self.tenant,
            user_id=user_id,
            session_id=session_id,
            limit=n,
            kinds=kinds_t,
            now=ref_time,
        )
        hits = self.pipeline.search(req)
        if not explain:
            for hit in hits:
                hit.scores = {k: v for k, v in hit.scores.items() if not k.endswith("_rank")}
        return hits

    def context(
        self,
        query: str,
        user_id: str,
        session_id: str | None = None,
        budget_tokens: int = 1500,
        **options: Any,
    ) -> ContextBundle:
        """The memory for a prompt about ``query``, within ``budget_tokens``, in the preset's
        format; ``bundle.render()`` is the text. Options: see
        :func:`mnemo.context.assemble.build_context`.
        """
        return build_context(self, query, user_id, session_id, budget_tokens, **options)

    # ---- users, jobs, lifecycle ------------------------------------------------------------
    def delete_user(self, user_id: str) -> dict[str, int]:
        """Erase every row of a user: messages, memories, FTS rows, vectors, history, jobs."""
        user_id = check.identifier(user_id, "user_id")
        counts = self.store.delete_user(self.tenant, user_id)
        self.pipeline.indexes.drop(self.tenant, user_id)
        return counts

    def drain(self, max_jobs: int | None = None) -> int:
        """Run this tenant's pending jobs inline until none is ready; returns how many ran."""
        options = job_runner.RunOptions.from_settings(self.settings, tenant=self.tenant)
        return job_runner.run_ready(self.store, self.handlers, max_jobs, options=options)

    def stats(self) -> Stats:
        """Counts of what the store holds for this tenant."""
        return self.store.stats(self.tenant)

    def close(self) -> None:
        """Close the store, and the embedder's network clients when this Memory made it."""
        self.stop_files()
        self.conversation.close()
        self.store.close()
        if self._owns_embedder:
            self.embedder.close()
        if self.chat is not None:
            self.chat.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
