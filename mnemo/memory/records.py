"""Memory CRUD of :class:`mnemo.Memory`: add, get, list, update, delete, history; and the
paged listings of memories and turns every surface shows (:class:`~mnemo.memory.paging.Page`;
users, sessions and jobs: :mod:`mnemo.memory.directory`).

The rules the surfaces (REST, MCP, web UI, CLI) share live here once: what a memory id is
(:func:`memory_id`), which memory is live (:meth:`Records.get_memory`), that an update must
change something (:func:`check_changes`), and how a listing pages."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from mnemo import validation as check
from mnemo.errors import NotFoundError, StorageError, ValidationError
from mnemo.filters import Filter, parse_where
from mnemo.ids import MEMORY_PREFIX, MESSAGE_PREFIX, PROFILE_PREFIX, new_id
from mnemo.list_query import MEMORIES_PER_PAGE, MESSAGES_PER_PAGE, MemoryQuery, MessageQuery
from mnemo.memory.expiry import Expiry, expired, resolve
from mnemo.memory.idempotency import Keys
from mnemo.memory.listing import Listing
from mnemo.memory.paging import Page
from mnemo.memory.tenant import TenantService
from mnemo.memory_fields import fingerprint
from mnemo.schemas import HistoryEntry, MemoryItem, Message, format_time, utcnow
from mnemo.storage.agent_scope import check_visible, write_scope
from mnemo.storage.base import ListFilter, NewMemory
from mnemo.storage.caller_scope import listing_scope
from mnemo.storage.ports.rows import MemoryChange
from mnemo.storage.ports.store import Store

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


#: The place of a memory erased before its page's cursor was made: after every other (the
#: next page may then show again the few memories that share its exact time, never skip one).
ERASED_PLACE = 2**62


def memory_place(store: Store, item: MemoryItem) -> int:
    """Where ``item`` stands among memories of its exact ``created_at`` (the store's rowid)."""
    found = store.rows.memory_rowid(item.tenant, item.id)
    return ERASED_PLACE if found is None else found


#: The listing of memories: newest first, resumed after ``(created_at, rowid)``.
MEMORIES = Listing[MemoryItem](
    "memories",
    lambda store: store.rows.list_memories,
    lambda store: store.rows.count_memories,
    lambda store, m: (format_time(m.created_at), memory_place(store, m)),
)
#: The listing of turns: in conversation order, resumed after ``(created_at, session, seq)``.
MESSAGES = Listing[Message](
    "messages",
    lambda store: store.rows.list_messages,
    lambda store: store.rows.count_messages,
    lambda _, m: (format_time(m.created_at), m.session_id, m.seq),
)


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
        user_id: str | None = None,
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
        expires_at: Any = None,
        ttl_seconds: int | None = None,
        agent_id: str | None = None,
    ) -> MemoryItem:
        """Store one memory (a fact by default) and record ADD in its history.

        ``expires_at`` (a time) or ``ttl_seconds`` (from now) makes it expire: out of every
        read from then on, removed by ``sweep`` (see :mod:`mnemo.memory.expiry`); neither
        given, the ``default_ttl_seconds`` setting applies.

        ``agent_id`` makes it private to that agent (within ``user_id``), or, without a
        user, the agent's own memory; without it the memory is shared by every agent serving
        the user (see :mod:`mnemo.storage.agent_scope`).

        With ``idempotency_key``, a retry of the same call (same key, same arguments) within
        ``idempotency_ttl_s`` writes nothing and returns the memory the first call stored;
        the same key with other arguments is a ValidationError (see
        :mod:`mnemo.memory.idempotency`).
        """
        text = check.content(content, self.settings.max_content_chars)
        user_id, agent_id = write_scope(user_id, agent_id)
        if session_id is not None:
            session_id = check.identifier(session_id, "session_id")
        row_tags = check.tags(tags, self.settings.max_tags, self.settings.max_tag_chars)
        meta = check.json_object(metadata, "metadata", self.settings.max_metadata_bytes)
        kind = check.memory_kind(kind)
        imp, conf = (
            check.unit_float(importance, "importance"),
            check.unit_float(confidence, "confidence"),
        )
        given_time = check.created_text(created_at)
        expiry = self.expiry(expires_at, ttl_seconds)
        memory_id = new_id(MEMORY_PREFIX)
        if idempotency_key is not None:
            given = {
                "content": text, "user_id": user_id, "session_id": session_id, "kind": kind,
                "tags": row_tags, "metadata": meta, "importance": imp, "confidence": conf,
                "source_message_ids": list(source_message_ids or []), "created_at": given_time,
                "expires_at": None if expires_at is None else expiry.expires_at,
                "ttl_seconds": None if ttl_seconds is None else expiry.ttl_seconds,
                "agent_id": agent_id,
            }  # fmt: skip
            request = fingerprint("add", given)  # every caller-given field of the table
            reserved = Keys(self.store.idempotency, self.settings)
            memory_id = reserved.reserve(idempotency_key, user_id, request, 1, MEMORY_PREFIX)[0]
            first = self.store.rows.get_memory(self.tenant, memory_id)
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
            expires_at=expiry.expires_at,
            ttl_seconds=expiry.ttl_seconds,
            agent_id=agent_id,
        )
        try:
            return self.store.rows.add_memory(row, actor)
        except StorageError:
            first = (
                None if idempotency_key is None else self.store.rows.get_memory(self.tenant, row.id)
            )
            if first is None:
                raise
            return first  # a concurrent call with the same key stored it first

    def get(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> MemoryItem | Message:
        """A memory (``mem_...``) or a message (``msg_...``) by id; NotFoundError otherwise,
        and for one outside the scope of ``user_id``/``agent_id`` when either is given."""
        check.text(id, "id")
        found: MemoryItem | Message | None = None
        if id.startswith(MESSAGE_PREFIX):
            found = self.store.rows.get_message(self.tenant, id)
        elif id.startswith(MEMORY_PREFIX):
            found = self.store.rows.get_memory(self.tenant, id)
            if found is not None and found.deleted_at is not None:
                raise NotFoundError(f"memory {id!r} was deleted (its history keeps it)")
        if found is None:
            raise NotFoundError(f"no memory or message with id {id!r}")
        check_visible(found, user_id, agent_id, "memory or message")
        if found.expires_at is not None and expired(found.expires_at, self.store.clock()):
            raise NotFoundError(f"{id!r} expired at {format_time(found.expires_at)}")
        if self.settings.refresh_on_read and found.ttl_seconds is not None:
            moved = self.store.rows.refresh_expiry(self.tenant, [found.id])
            if found.id in moved:
                found = found.model_copy(update={"expires_at": moved[found.id]})
        return found

    def expiry(self, expires_at: Any, ttl_seconds: Any, where: str = "") -> Expiry:
        """The checked expiry of a write now (by the store clock); the default ttl applies
        when neither is given (see :mod:`mnemo.memory.expiry`)."""
        now = self.store.clock()
        return resolve(expires_at, ttl_seconds, now, self.settings.default_ttl_seconds, where)

    def get_memory(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None
    ) -> MemoryItem:
        """A live memory by id; NotFoundError for anything else (a turn id, an unknown or a
        deleted memory, another tenant's, one outside the scope of ``user_id``/``agent_id``
        when either is given)."""
        found = self.get(memory_id(check.text(id, "id")), user_id=user_id, agent_id=agent_id)
        assert isinstance(found, MemoryItem)  # what a memory id names
        return found

    def list(
        self,
        user_id: str | MemoryQuery | None = None,
        *,
        session_id: str | None = None,
        kind: str | None = None,
        tag: str | None = None,
        since: datetime | float | str | None = None,
        until: datetime | float | str | None = None,
        limit: int = MEMORIES_PER_PAGE,
        offset: int = 0,
        include_deleted: bool = False,
        cursor: str | None = None,
        agent_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> builtins.list[MemoryItem]:
        """Memories, newest first, filtered by user, session, kind, tag, [since, until) and
        ``filters`` (mem0's syntax, :mod:`mnemo.filters`); ``agent_id`` narrows to what that
        agent sees (see mnemo.storage.agent_scope); ``cursor`` (a page's ``next_cursor``)
        resumes after that page's last memory. ``user_id`` may also be a whole
        :class:`~mnemo.list_query.MemoryQuery` (then give no other argument)."""
        q = MemoryQuery.of(
            user_id, session_id=session_id, kind=kind, tag=tag, since=since, until=until,
            limit=limit, offset=offset, include_deleted=include_deleted, cursor=cursor,
            agent_id=agent_id, filters=filters,
        )  # fmt: skip
        return MEMORIES.rows(self.store, self.memory_filter(q))

    def list_page(
        self,
        user_id: str | MemoryQuery | None = None,
        *,
        session_id: str | None = None,
        kind: str | None = None,
        tag: str | None = None,
        since: datetime | float | str | None = None,
        until: datetime | float | str | None = None,
        limit: int = MEMORIES_PER_PAGE,
        offset: int = 0,
        include_deleted: bool = False,
        cursor: str | None = None,
        agent_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> Page[MemoryItem]:
        """:meth:`list` as a :class:`~mnemo.memory.paging.Page`: the memories, how many
        match in all, and where the next page starts (``next_offset``, and ``next_cursor``
        to pass back as ``cursor=``, which stays right while memories are written)."""
        q = MemoryQuery.of(
            user_id, session_id=session_id, kind=kind, tag=tag, since=since, until=until,
            limit=limit, offset=offset, include_deleted=include_deleted, cursor=cursor,
            agent_id=agent_id, filters=filters,
        )  # fmt: skip
        return MEMORIES.page(self.store, self.memory_filter(q))

    def messages(
        self,
        user_id: str | MessageQuery | None = None,
        *,
        session_id: str | None = None,
        since: datetime | float | str | None = None,
        until: datetime | float | str | None = None,
        limit: int = MESSAGES_PER_PAGE,
        offset: int = 0,
        cursor: str | None = None,
        agent_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> builtins.list[Message]:
        """Stored turns in conversation order, filtered by user, session, [since, until)
        and ``filters`` (a turn's kind is ``message``; it has no tags); ``agent_id`` narrows
        to what that agent sees (see mnemo.storage.agent_scope). ``user_id`` may also be a
        whole :class:`~mnemo.list_query.MessageQuery` (then give no other argument)."""
        q = MessageQuery.of(
            user_id, session_id=session_id, since=since, until=until, limit=limit,
            offset=offset, cursor=cursor, agent_id=agent_id, filters=filters,
        )  # fmt: skip
        return MESSAGES.rows(self.store, self.message_filter(q))

    def messages_page(
        self,
        user_id: str | MessageQuery | None = None,
        *,
        session_id: str | None = None,
        since: datetime | float | str | None = None,
        until: datetime | float | str | None = None,
        limit: int = MESSAGES_PER_PAGE,
        offset: int = 0,
        cursor: str | None = None,
        agent_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> Page[Message]:
        """:meth:`messages` as a :class:`~mnemo.memory.paging.Page` (``cursor=`` as in
        :meth:`list_page`)."""
        q = MessageQuery.of(
            user_id, session_id=session_id, since=since, until=until, limit=limit,
            offset=offset, cursor=cursor, agent_id=agent_id, filters=filters,
        )  # fmt: skip
        return MESSAGES.page(self.store, self.message_filter(q))

    def memory_filter(self, q: MemoryQuery) -> ListFilter:
        """The store filter of a memory listing: ``q``'s scope (with its kind, deleted rows
        and parsed filter), times and window, resumed from its cursor."""
        flt = self._filter(q, parse_where(q.filters))
        kinds = None if q.kind is None else (q.kind,)
        flt.tag = q.tag
        flt.scope = replace(flt.scope, kinds=kinds, deleted=q.include_deleted)
        return MEMORIES.resume(flt, q.cursor)

    def message_filter(self, q: MessageQuery) -> ListFilter:
        """The store filter of a listing of turns: ``q``'s scope (with its parsed filter),
        times and window, resumed from its cursor."""
        return MESSAGES.resume(self._filter(q, parse_where(q.filters)), q.cursor)

    def _filter(self, q: MemoryQuery | MessageQuery, where: Filter | None) -> ListFilter:
        """The listing filter of this tenant that ``q`` selects (its scope: the rules of
        :func:`~mnemo.storage.caller_scope.listing_scope` and ``where``), without a cursor."""
        scope = listing_scope(self.tenant, q.user_id, q.agent_id, q.session_id)
        return ListFilter(
            scope=replace(scope, where=where),
            since=None if q.since is None else format_time(q.since),
            until=None if q.until is None else format_time(q.until),
            refresh=self.settings.refresh_on_read,
            limit=q.limit,
            offset=q.offset,
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
        expires_at: Any = None,
        ttl_seconds: int | None = None,
        clear_expiry: bool = False,
    ) -> MemoryItem:
        """Change a live memory; a new content is re-embedded. Records UPDATE in history.

        ``expires_at`` or ``ttl_seconds`` sets a new expiry; ``clear_expiry=True`` removes it
        (the memory then never expires)."""
        self._memory_id(id)
        changes: dict[str, Any] = {}
        if clear_expiry is True and (expires_at is not None or ttl_seconds is not None):
            raise ValidationError("give clear_expiry or a new expiry, not both")
        if clear_expiry is True:
            changes.update(expires_at=None, ttl_seconds=None)
        elif clear_expiry is not False:
            raise ValidationError(f"clear_expiry must be true or false, got {clear_expiry!r}")
        elif expires_at is not None or ttl_seconds is not None:
            changes.update(vars(resolve(expires_at, ttl_seconds, self.store.clock())))
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
        return self.store.rows.update_memory(
            MemoryChange(self.tenant, id, changes, actor, list(source_message_ids or []))
        )

    def delete(self, id: str, actor: str = "api") -> MemoryItem:
        """Soft-delete a memory: it leaves search and listing; history keeps it."""
        self._memory_id(id)
        return self.store.rows.delete_memory(self.tenant, id, actor)

    def history(self, id: str) -> builtins.list[HistoryEntry]:
        """Every change of a memory or profile fact, oldest first; NotFoundError for an
        unknown id (or an expired memory: it is gone, only the sweep has yet to reclaim it)."""
        if check.text(id, "id").startswith(PROFILE_PREFIX):
            return [h for h in self.store.rows.history(self.tenant, id)] or self._no_memory(id)
        self._memory_id(id)
        found = self.store.rows.get_memory(self.tenant, id)
        if found is None:
            raise NotFoundError(f"no memory with id {id!r}")
        if found.expires_at is not None and expired(found.expires_at, self.store.clock()):
            raise NotFoundError(f"memory {id!r} expired")
        return self.store.rows.history(self.tenant, id)

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
