"""Memory CRUD of :class:`mnemo.Memory`: add, get, list, update, delete, history; who is in
the tenant (its users and their sessions); and the paged listings every surface shows
(:class:`~mnemo.memory.paging.Page`: memories, turns, users, sessions, jobs).

The rules the surfaces (REST, MCP, web UI, CLI) share live here once: what a memory id is
(:func:`memory_id`), which memory is live (:meth:`Records.get_memory`), that an update must
change something (:func:`check_changes`), and how a listing pages."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from mnemo import validation as check
from mnemo.errors import NotFoundError, StorageError, ValidationError
from mnemo.filters import parse_where
from mnemo.ids import MEMORY_PREFIX, MESSAGE_PREFIX, PROFILE_PREFIX, new_id
from mnemo.memory.idempotency import Keys
from mnemo.memory.listing import listing, paged
from mnemo.memory.paging import MAX_ROWS, Page, check_window, page_of
from mnemo.memory.tenant import TenantService
from mnemo.schemas import (
    HistoryEntry,
    Job,
    MemoryItem,
    Message,
    SessionSummary,
    UserSummary,
    format_time,
    utcnow,
)
from mnemo.storage.base import ListFilter, NewMemory

#: The message of an update that changes nothing.
NOTHING_TO_CHANGE = (
    "nothing to change: an update needs at least one field "
    "(content, tags, metadata, importance or confidence)"
)


def memory_id(id: str) -> str:
    """``id`` when it names a memory (``mem_...``); NotFoundError for any other id (a turn, a
    profile fact), so a surface's memory routes answer 404 for them."""
    if not isinstance(id, str) or not id.startswith(MEMORY_PREFIX):
        raise NotFoundError(f"no memory with id {id!r}")
    return id


def check_changes(changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` when it changes at least one field; ValidationError otherwise."""
    if not changes:
        raise ValidationError(NOTHING_TO_CHANGE)
    return changes


class Records(TenantService):
    """Memory and message CRUD of one tenant (``settings.tenant``): input validated, new
    contents embedded by ``embed``, every change recorded in history by the store."""

    def add(
        self,
        content: str,
        user_id: str,
        *,
        kind: str = "fact",
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float = 0.5,
        confidence: float = 1.0,
        source_message_ids: Sequence[str] | None = None,
        created_at: Any = None,
        actor: str = "api",
        idempotency_key: str | None = None,
    ) -> MemoryItem:
        """Store one memory (a fact by default) and record ADD in its history.

        With ``idempotency_key``, a retry of the same call (same key, same arguments) within
        ``idempotency_ttl_s`` writes nothing and returns the memory the first call stored;
        the same key with other arguments is a ValidationError (see
        :mod:`mnemo.memory.idempotency`).
        """
        text = check.content(content, self.settings.max_content_chars)
        user_id = check.identifier(user_id, "user_id")
        if session_id is not None:
            session_id = check.identifier(session_id, "session_id")
        row_tags = check.tags(tags, self.settings.max_tags, self.settings.max_tag_chars)
        meta = check.json_object(metadata, "metadata", self.settings.max_metadata_bytes)
        kind = check.memory_kind(kind)
        imp, conf = (
            check.unit_float(importance, "importance"),
            check.unit_float(confidence, "confidence"),
        )
        given_time = check.time_text(created_at, "created_at")
        memory_id = new_id(MEMORY_PREFIX)
        if idempotency_key is not None:
            request = {
                "op": "add", "content": text, "user_id": user_id, "session_id": session_id,
                "kind": kind, "tags": row_tags, "metadata": meta, "importance": imp,
                "confidence": conf, "sources": list(source_message_ids or []),
                "created_at": given_time,
            }  # fmt: skip
            reserved = Keys(self.store.idempotency, self.settings)
            memory_id = reserved.reserve(idempotency_key, user_id, request, 1, MEMORY_PREFIX)[0]
            first = self.store.get_memory(self.tenant, memory_id)
            if first is not None:
                return first  # the first call's memory: nothing is written again
        created = given_time or format_time(utcnow())
        hashes, vectors = self.embed([text])
        row = NewMemory(
            id=memory_id,
            tenant=self.tenant,
            user_id=user_id,
            session_id=session_id,
            kind=kind,
            content=text,
            tags=row_tags,
            metadata=meta,
            importance=imp,
            confidence=conf,
            source_message_ids=list(source_message_ids or []),
            created_at=created,
            content_hash=hashes[0],
            embedder=self.embed.id,
            embedding=vectors[0],
        )
        try:
            return self.store.add_memory(row, actor)
        except StorageError:
            first = None if idempotency_key is None else self.store.get_memory(self.tenant, row.id)
            if first is None:
                raise
            return first  # a concurrent call with the same key stored it first

    def get(self, id: str) -> MemoryItem | Message:
        """A memory (``mem_...``) or a message (``msg_...``) by id; NotFoundError otherwise."""
        check.text(id, "id")
        found: MemoryItem | Message | None = None
        if id.startswith(MESSAGE_PREFIX):
            found = self.store.get_message(self.tenant, id)
        elif id.startswith(MEMORY_PREFIX):
            found = self.store.get_memory(self.tenant, id)
            if found is not None and found.deleted_at is not None:
                raise NotFoundError(f"memory {id!r} was deleted (its history keeps it)")
        if found is None:
            raise NotFoundError(f"no memory or message with id {id!r}")
        return found

    def get_memory(self, id: str) -> MemoryItem:
        """A live memory by id; NotFoundError for anything else (a turn id, an unknown or a
        deleted memory, another tenant's)."""
        found = self.get(memory_id(check.text(id, "id")))
        assert isinstance(found, MemoryItem)  # what a memory id names
        return found

    def memory_filter(
        self,
        user_id: str | None = None,
        *,
        session_id: str | None = None,
        kind: str | None = None,
        tag: str | None = None,
        since: Any = None,
        until: Any = None,
        limit: int = 50,
        offset: int = 0,
        include_deleted: bool = False,
        filters: Any = None,
    ) -> ListFilter:
        """The validated filter of :meth:`list` and :meth:`list_page`."""
        where = parse_where(filters)
        flt = self.filter(user_id, session_id, since, until, limit, offset)
        flt.kind = None if kind is None else check.memory_kind(kind)
        flt.tag = None if tag is None else check.text(tag, "tag")
        flt.include_deleted = include_deleted
        flt.where = where
        return flt

    list = listing(
        memory_filter,
        lambda store: store.list_memories,
        "builtins.list[MemoryItem]",
        """Memories, newest first, filtered by user, session, kind, tag, [since, until) and
        ``filters`` (mem0's syntax, :mod:`mnemo.filters`).""",
    )
    list_page = paged(
        memory_filter,
        lambda store: store.list_memories,
        lambda store: store.count_memories,
        "Page[MemoryItem]",
        """:meth:`list` as a :class:`~mnemo.memory.paging.Page`: the memories, how many
        match in all, and where the next page starts.""",
    )

    def message_filter(
        self,
        user_id: str | None = None,
        *,
        session_id: str | None = None,
        since: Any = None,
        until: Any = None,
        limit: int = 100,
        offset: int = 0,
        filters: Any = None,
    ) -> ListFilter:
        """The validated filter of :meth:`messages` and :meth:`messages_page`."""
        where = parse_where(filters)
        flt = self.filter(user_id, session_id, since, until, limit, offset)
        flt.where = where
        return flt

    messages = listing(
        message_filter,
        lambda store: store.list_messages,
        "builtins.list[Message]",
        """Stored turns in conversation order, filtered by user, session, [since, until)
        and ``filters`` (a turn's kind is ``message``; it has no tags).""",
    )
    messages_page = paged(
        message_filter,
        lambda store: store.list_messages,
        lambda store: store.count_messages,
        "Page[Message]",
        ":meth:`messages` as a :class:`~mnemo.memory.paging.Page`.",
    )

    def count(self, user_id: str, *, session_id: str | None = None, filters: Any = None) -> int:
        """How many live memories of the user (of one session) match ``filters`` (mem0's
        syntax, :mod:`mnemo.filters`; None: all): the ``total`` :meth:`list_page` shows."""
        return self.store.count_memories(self._selected(user_id, session_id, filters))

    def delete_all(
        self,
        user_id: str,
        *,
        session_id: str | None = None,
        filters: Any = None,
        actor: str = "api",
    ) -> int:
        """Soft-delete every live memory of the user (of one session) that matches
        ``filters``, as :meth:`delete` does each one (it leaves search and listing, history
        records DELETE), in one transaction; returns how many. Turns are the event log and
        stay; erase a user with ``delete_user``."""
        return len(self.store.delete_memories(self._selected(user_id, session_id, filters), actor))

    def _selected(self, user_id: str, session_id: str | None, filters: Any) -> ListFilter:
        """The listing filter of :meth:`count` and :meth:`delete_all` (a user is required)."""
        where = parse_where(filters)
        flt = self.filter(check.identifier(user_id, "user_id"), session_id)
        flt.where = where
        return flt

    def users(self, *, limit: int = 100, offset: int = 0) -> builtins.list[UserSummary]:
        """The tenant's users by id, with their sessions, turns, live memories and last
        activity."""
        flt = self.filter(None, None, limit=limit, offset=offset)
        return self.store.list_users(self.tenant, flt.limit, flt.offset)

    def sessions(self, user_id: str) -> builtins.list[SessionSummary]:
        """A user's sessions (conversations), the most recently active first."""
        return self.store.list_sessions(self.tenant, check.identifier(user_id, "user_id"))

    def users_page(self, *, limit: int = 100, offset: int = 0) -> Page[UserSummary]:
        """:meth:`users` as a :class:`~mnemo.memory.paging.Page`."""
        limit, offset = check_window(limit, offset)
        return page_of(
            lambda n, at: self.store.list_users(self.tenant, n, at),
            lambda: self.store.stats(self.tenant).users,
            limit,
            offset,
        )

    def sessions_page(
        self, user_id: str, *, limit: int = 100, offset: int = 0
    ) -> Page[SessionSummary]:
        """:meth:`sessions` as a :class:`~mnemo.memory.paging.Page`."""
        limit, offset = check_window(limit, offset)
        found = self.sessions(user_id)  # every one: a user has few
        return page_of(lambda n, at: found[at : at + n], lambda: len(found), limit, offset)

    def jobs_page(
        self, status: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> Page[Job]:
        """The tenant's background jobs, newest first, as a
        :class:`~mnemo.memory.paging.Page`; the newest 10,000 can be paged through."""
        if status is not None:
            status = check.job_status(status)
        limit, offset = check_window(limit, offset)
        if offset + limit > MAX_ROWS:
            raise ValidationError(f"jobs can be listed up to the newest {MAX_ROWS}")
        counts = self.store.stats(self.tenant).jobs
        return page_of(
            lambda n, at: self.store.list_jobs(status, at + n, tenant=self.tenant)[at:],
            lambda: counts.get(status, 0) if status else sum(counts.values()),
            limit,
            offset,
        )

    def filter(
        self,
        user_id: str | None,
        session_id: str | None,
        since: Any = None,
        until: Any = None,
        limit: int = 50,
        offset: int = 0,
    ) -> ListFilter:
        """A validated listing filter of this tenant; ValidationError for a bad argument."""
        if user_id is not None:
            check.identifier(user_id, "user_id")
        if session_id is not None:
            check.identifier(session_id, "session_id")
        limit, offset = check_window(limit, offset)
        return ListFilter(
            tenant=self.tenant,
            user_id=user_id,
            session_id=session_id,
            since=check.time_text(since, "since"),
            until=check.time_text(until, "until"),
            limit=limit,
            offset=offset,
        )

    def update(
        self,
        id: str,
        *,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        actor: str = "api",
        source_message_ids: Sequence[str] | None = None,
    ) -> MemoryItem:
        """Change a live memory; a new content is re-embedded. Records UPDATE in history."""
        self._memory_id(id)
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = check.content(content, self.settings.max_content_chars)
            hashes, vectors = self.embed([changes["content"]])
            changes.update(embedding=vectors[0], embedder=self.embed.id, content_hash=hashes[0])
        if tags is not None:
            changes["tags"] = check.tags(tags, self.settings.max_tags, self.settings.max_tag_chars)
        if metadata is not None:
            changes["metadata"] = check.json_object(
                metadata, "metadata", self.settings.max_metadata_bytes
            )
        if importance is not None:
            changes["importance"] = check.unit_float(importance, "importance")
        if confidence is not None:
            changes["confidence"] = check.unit_float(confidence, "confidence")
        check_changes(changes)
        return self.store.update_memory(
            self.tenant, id, changes, actor, list(source_message_ids or [])
        )

    def delete(self, id: str, actor: str = "api") -> MemoryItem:
        """Soft-delete a memory: it leaves search and listing; history keeps it."""
        self._memory_id(id)
        return self.store.delete_memory(self.tenant, id, actor)

    def history(self, id: str) -> builtins.list[HistoryEntry]:
        """Every change of a memory or profile fact, oldest first; NotFoundError for an
        unknown id."""
        if check.text(id, "id").startswith(PROFILE_PREFIX):
            return [h for h in self.store.history(self.tenant, id)] or self._no_memory(id)
        self._memory_id(id)
        if self.store.get_memory(self.tenant, id) is None:
            raise NotFoundError(f"no memory with id {id!r}")
        return self.store.history(self.tenant, id)

    @staticmethod
    def _no_memory(id: str) -> builtins.list[HistoryEntry]:
        raise NotFoundError(f"no memory with id {id!r}")

    @staticmethod
    def _memory_id(id: Any) -> None:
        check.text(id, "id")
        if id.startswith(MESSAGE_PREFIX):
            raise ValidationError(
                "messages are the event log and cannot be edited; erase a user with delete_user"
            )
        memory_id(id)
