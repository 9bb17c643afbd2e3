"""Request and response bodies of the REST API (pydantic; they make the OpenAPI document)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from mnemo.api.memory_bodies import DATE_TIME, body, create_fields, patch_fields
from mnemo.context.options import BudgetTokens, TopK
from mnemo.memory.paging import Page as ListPage
from mnemo.schemas import (
    ErasedAgent,
    ErasedUser,
    HistoryEntry,
    Hit,
    Job,
    MemoryItem,
    Message,
    MessageIn,
    SessionSummary,
    UserSummary,
)
from mnemo.search_query import (
    FILTERS_HELP,
    USER_OR_AGENT,
    AgentRef,
    AsOf,
    Filters,
    Now,
    QueryText,
    SearchQuery,
    SessionRef,
    UserRef,
)
from mnemo.validation import MAX_TTL_SECONDS

T = TypeVar("T")

Id = Field(min_length=1, max_length=256)
#: A user id that may be left out when an ``agent_id`` is given (an agent's own memory).
UserId = Field(
    None,
    min_length=1,
    max_length=256,
    description="The user; may be left out when `agent_id` is given (the agent's own memory).",
)
#: The agent an item is private to, or whose view a read takes (see docs/memory-model.md).
AgentId = Field(
    None,
    min_length=1,
    max_length=256,
    description="The agent: on a write, the item is private to it (its own without a user); "
    "on a read, what it sees (the user's shared items and its own).",
)
#: A page's fields besides its rows, copied as they are into the response body.
PAGE_POSITION = {"total", "limit", "offset", "next_offset", "next_cursor"}


class ErrorDetail(BaseModel):
    """What went wrong."""

    type: str
    message: str


class ErrorBody(BaseModel):
    """Every error response: ``{"error": {"type", "message"}}``."""

    error: ErrorDetail


class PageBody(BaseModel, Generic[T]):
    """One page of a listing, out of ``total`` matching rows; ``next_offset`` and
    ``next_cursor`` are None on the last page."""

    data: list[T]
    total: int = Field(description="How many rows match the listing, on every page.")
    limit: int
    offset: int
    next_offset: int | None = None
    next_cursor: str | None = Field(
        default=None,
        description="Opaque cursor of the next page (send it back as `cursor`); it stays "
        "right while rows are written between pages. None on the last page.",
    )

    @classmethod
    def of(cls, page: ListPage[T]) -> Self:
        """The response body of a page ``Memory`` listed."""
        return cls(data=page.items, **page.model_dump(include=PAGE_POSITION))


if TYPE_CHECKING:  # a type checker sees their base; FastAPI the models of the table
    MemoryCreate = BaseModel
    MemoryPatch = BaseModel
else:
    MemoryCreate = body(
        "MemoryCreate",
        "A memory to store.",
        create_fields(),
        ConfigDict(extra="forbid", json_schema_extra=USER_OR_AGENT),
        __name__,
    )
    MemoryPatch = body(
        "MemoryPatch",
        "Fields of a memory to change (at least one).",
        patch_fields(),
        ConfigDict(extra="forbid"),
        __name__,
    )


class MemoryPage(PageBody[MemoryItem]):
    """A page of memories, newest first."""


class MessagePage(PageBody[Message]):
    """A page of turns, in conversation order."""


class HistoryList(BaseModel):
    """Every change of one memory, oldest first."""

    data: list[HistoryEntry]


class MessagesCreate(BaseModel):
    """Turns to store for one user and session."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=USER_OR_AGENT)

    user_id: str | None = UserId
    session_id: str = Field("default", min_length=1, max_length=256)
    messages: list[MessageIn] = Field(min_length=1, max_length=1000)
    expires_at: str | None = Field(
        None,
        description="When the turns expire (ISO-8601; a turn's own expiry wins).",
        json_schema_extra=DATE_TIME,
    )
    ttl_seconds: int | None = Field(
        None, ge=1, le=MAX_TTL_SECONDS, description="Expire the turns this many seconds from now."
    )
    agent_id: str | None = AgentId


class MessagesCreated(BaseModel):
    """Ids of the stored turns, in order."""

    ids: list[str]


#: The ``filters`` field of the bodies that take one (docs/memory-model.md, "Filters"); the
#: keys it lists are the filterable fields of :mod:`mnemo.memory_fields`.
FILTERS = Field(None, description=FILTERS_HELP)


class SearchResults(BaseModel):
    """Hits, best first."""

    data: list[Hit]


class ContextRequestBody(BaseModel):
    """What to assemble the context of: the search fields of
    :class:`~mnemo.search_query.SearchQuery` a context takes, and its layout options
    (:class:`~mnemo.context.options.ContextOptions`)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=USER_OR_AGENT)

    query: QueryText
    user_id: UserRef = None
    session_id: SessionRef = None
    agent_id: AgentRef = None
    budget_tokens: BudgetTokens | None = Field(
        None, description="Token budget of the block (default: `context_budget_tokens`)."
    )
    location: str | None = Field(None, description="The user's location (`llmplatform`).")
    top_k: TopK | None = Field(
        None, description="Hits each search of the layout takes (default: the layout's)."
    )
    as_of: AsOf = None
    now: Now = None
    filters: Filters = None

    def search(self) -> SearchQuery:
        """The search of this context call."""
        return SearchQuery(**self.model_dump(include=set(SearchQuery.model_fields)))


class MemorySelection(BaseModel):
    """The live memories of one user (of one session) that match ``filters`` (all of them
    without one): what ``/v1/memories/count`` counts and ``/v1/memories/delete`` deletes.
    ``agent_id`` alone: the agent's own memories. ``user_id`` and ``agent_id``: count counts
    what the agent sees of the user (as listing does), delete deletes only the user's items
    private to that agent, never the shared ones (docs/memory-model.md, "Scopes")."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=USER_OR_AGENT)

    user_id: str | None = UserId
    session_id: str | None = None
    agent_id: str | None = AgentId
    filters: dict[str, Any] | None = FILTERS


class MemoryCount(BaseModel):
    """How many live memories match."""

    count: int


class MemoriesDeleted(BaseModel):
    """How many memories were soft-deleted (each keeps its history)."""

    deleted: int


class ProfileResponse(BaseModel):
    """A user's active profile facts with importance >= ``min_importance``."""

    user_id: str
    facts: list[dict[str, Any]]


class ErasedResponse(ErasedUser):
    """Rows erased per table."""


class AgentErasedResponse(ErasedAgent):
    """Rows of one agent erased per table."""


class UserPage(PageBody[UserSummary]):
    """A page of the tenant's users, by id."""


class SessionList(BaseModel):
    """A user's sessions, the most recently active first."""

    user_id: str
    data: list[SessionSummary]


class JobList(PageBody[Job]):
    """The tenant's background jobs, newest first."""


class Swept(BaseModel):
    """Expired rows removed for good, per table."""

    swept: dict[str, int]


class JobsRequeued(BaseModel):
    """How many dead jobs went back to the queue."""

    requeued: int


class QueryRequest(BaseModel):
    """`llmplatform`'s ``/query`` body."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1)
    user_id: str = Id
    session_id: str = Field("default", min_length=1, max_length=256)
    use_memory: bool = True
    top_k: int = Field(8, ge=1, le=100)
    location: str | None = None


class QueryResponse(BaseModel):
    """`llmplatform`'s ``/query`` answer."""

    response: str
    citations: list[dict[str, Any]]
    memory_context: dict[str, Any]
    intent: str
    agents_used: list[str]
    need_memory: bool
    memory_reason: str
    answered_by: str = Field(description="`llm`, or `rules` when no LLM answered.")


class Health(BaseModel):
    """Liveness and the main settings."""

    status: str
    version: str
    preset: str
    embedder: str
    llm: bool
    upstream: bool
    auth: bool
