"""The one listing request every surface builds: :class:`MemoryQuery` and :class:`MessageQuery`.

A listing of memories (``Memory.list`` / ``list_page``) or of stored turns (``messages`` /
``messages_page``) is one of these pydantic models, built once and passed down, as a search is
one :class:`~mnemo.search_query.SearchQuery`. Each argument is written once here, as an
``Annotated`` type carrying its type, bounds, description and check (the checks of
:mod:`mnemo.validation`, with their messages); the REST list routes take their query
parameters from the models' fields, the MCP ``list_memories`` tool and ``mnemo list`` their
arguments' types and help, so ``limit`` is 1-:data:`MAX_ROWS` and ``offset``
0-:data:`MAX_OFFSET` on every surface.

A query that fails a check raises mnemo's :class:`~mnemo.errors.ValidationError` with the
check's own message, however it is built. The rules that need the store or more than one
argument stay with the listing (:class:`~mnemo.memory.records.Records`): the filter is parsed
(:mod:`mnemo.filters`), the ``user_id``/``agent_id`` rules give the scope, a cursor must be of
this listing and query and not come with an offset (:mod:`mnemo.memory.cursors`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Self

from pydantic import Field, SkipValidation, StringConstraints

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.schemas import MemoryKind
from mnemo.search_query import (
    FILTERS_HELP,
    TIME_SCHEMA,
    AgentRef,
    CheckedModel,
    IdText,
    SessionRef,
    checked,
    optional,
)
from mnemo.timestamps import parse_time

#: The most rows one listing call returns (and, for jobs, looks through: offset plus limit).
MAX_ROWS = 10_000
#: Memories a page holds unless the call says otherwise.
MEMORIES_PER_PAGE = 50
#: Turns a page holds unless the call says otherwise.
MESSAGES_PER_PAGE = 100
#: The furthest position a listing page may start at.
MAX_OFFSET = 10_000_000
#: The longest page cursor read (a real one is well under 300 characters).
MAX_CURSOR_CHARS = 2000
#: What every rejected cursor is told.
FOREIGN = (
    "this cursor belongs to another listing (another query, user or tenant) or was altered; "
    "start again without a cursor"
)


def window_limit(value: Any) -> int:
    """A number of rows in [1, :data:`MAX_ROWS`]; ValidationError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ROWS:
        raise ValidationError(f"limit must be an integer in [1, {MAX_ROWS}]")
    return value


def window_offset(value: Any) -> int:
    """A position in [0, :data:`MAX_OFFSET`]; ValidationError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError("offset must be a non-negative integer")
    if value > MAX_OFFSET:
        raise ValidationError(f"offset must be at most {MAX_OFFSET}")
    return value


def cursor_token(value: Any) -> str | None:
    """A page cursor as given (None: no cursor); ValidationError for anything that cannot be
    one (not text, empty, longer than :data:`MAX_CURSOR_CHARS`). Whether it belongs to the
    listing is :func:`mnemo.memory.cursors.resume`'s to say."""
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_CURSOR_CHARS:
        raise ValidationError(f"cursor must be a page's next_cursor: {FOREIGN}")
    return value


ListUser = Annotated[
    IdText | None,
    optional(check.identifier, "user_id"),
    Field(description="Only this user's rows (without it and `agent_id`: the whole tenant)."),
]
Kind = Annotated[
    MemoryKind | None,
    checked(lambda value: None if value is None else check.memory_kind(value)),
    Field(description="Only memories of this kind: fact, episode, summary or note."),
]
Tag = Annotated[
    str | None, optional(check.text, "tag"), Field(description="Only memories with this tag.")
]
Since = Annotated[
    datetime | None,
    optional(parse_time, "since"),
    TIME_SCHEMA,
    Field(description="Only rows created at or after this time (ISO-8601 or epoch seconds)."),
]
Until = Annotated[
    datetime | None,
    optional(parse_time, "until"),
    TIME_SCHEMA,
    Field(description="Only rows created before this time (ISO-8601 or epoch seconds)."),
]
RowLimit = Annotated[
    int,
    Field(ge=1, le=MAX_ROWS),
    checked(window_limit),
    Field(description=f"Rows per page, 1-{MAX_ROWS}."),
]
Offset = Annotated[
    int,
    Field(ge=0, le=MAX_OFFSET),
    checked(window_offset),
    Field(description="Start at this position (0-based; the previous page's `next_offset`)."),
]
Cursor = Annotated[
    Annotated[str, StringConstraints(min_length=1, max_length=MAX_CURSOR_CHARS)] | None,
    checked(cursor_token),
    Field(description="A page's `next_cursor`: the page after it (not with `offset`)."),
]
IncludeDeleted = Annotated[
    bool, Field(description="List deleted memories too (their history keeps them).")
]
#: A filter as given: parsed, and refused with the filter's own message, by the listing.
ListFilters = Annotated[dict[str, Any] | None, SkipValidation, Field(description=FILTERS_HELP)]


class ListQuery(CheckedModel):
    """What :class:`MemoryQuery` and :class:`MessageQuery` share: a query refused raises
    mnemo's ValidationError (:func:`~mnemo.search_query.mnemo_error`), and
    :meth:`of` takes a query or the loose arguments of a ``Memory`` listing."""

    @classmethod
    def of(cls, user_id: str | Self | None, **fields: Any) -> Self:
        """``user_id`` itself when it is a query of this listing (then no other argument may
        differ from its default), else the query of that user and ``fields``;
        ValidationError for a bad one."""
        if not isinstance(user_id, cls):
            return cls(**{"user_id": user_id, **fields})
        given = [k for k, v in fields.items() if not _is_default(v, cls.model_fields[k].default)]
        if given:
            raise ValidationError(f"give a {cls.__name__} or listing arguments, not both: {given}")
        return user_id

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes``, checked as a new query (``model_copy`` checks nothing)."""
        return type(self)(**{**dict(self), **changes})


def _is_default(value: Any, default: Any) -> bool:
    return value is default or (type(value) is type(default) and value == default)


class MemoryQuery(ListQuery):
    """One listing of memories (``Memory.list`` / ``list_page``): whose, which, and which page.

    >>> MemoryQuery(user_id="u1", kind="fact").limit
    50
    >>> MemoryQuery(user_id="u1", limit=0)
    Traceback (most recent call last):
    ...
    mnemo.errors.ValidationError: limit must be an integer in [1, 10000]
    """

    user_id: ListUser = None
    session_id: SessionRef = None
    kind: Kind = None
    tag: Tag = None
    since: Since = None
    until: Until = None
    limit: RowLimit = MEMORIES_PER_PAGE
    offset: Offset = 0
    include_deleted: IncludeDeleted = False
    cursor: Cursor = None
    agent_id: AgentRef = None
    filters: ListFilters = None


class MessageQuery(ListQuery):
    """One listing of stored turns (``Memory.messages`` / ``messages_page``), in conversation
    order: whose, which, and which page (a turn's kind for ``filters`` is ``message``).

    >>> MessageQuery(user_id="u1").limit
    100
    """

    user_id: ListUser = None
    session_id: SessionRef = None
    since: Since = None
    until: Until = None
    limit: RowLimit = MESSAGES_PER_PAGE
    offset: Offset = 0
    cursor: Cursor = None
    agent_id: AgentRef = None
    filters: ListFilters = None


__all__ = [
    "FOREIGN",
    "MAX_CURSOR_CHARS",
    "MAX_OFFSET",
    "MAX_ROWS",
    "MEMORIES_PER_PAGE",
    "MESSAGES_PER_PAGE",
    "Cursor",
    "IncludeDeleted",
    "Kind",
    "ListFilters",
    "ListQuery",
    "ListUser",
    "MemoryQuery",
    "MessageQuery",
    "Offset",
    "RowLimit",
    "Since",
    "Tag",
    "Until",
    "cursor_token",
    "window_limit",
    "window_offset",
]
