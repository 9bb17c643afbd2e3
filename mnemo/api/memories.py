"""Routes over one tenant's data: memories CRUD, search, turns, context, users and topics.

Handlers are plain functions: FastAPI runs them in its thread pool, over the sync core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Header, Query
from pydantic import BaseModel

from mnemo.api import links
from mnemo.api.deps import MemoryDep, StateDep
from mnemo.api.list_params import MemoryParams, MessageParams
from mnemo.api.models import (
    AgentErasedResponse,
    ContextRequestBody,
    ErasedResponse,
    ErrorBody,
    HistoryList,
    MemoriesDeleted,
    MemoryCount,
    MemoryCreate,
    MemoryPage,
    MemoryPatch,
    MemorySelection,
    MessagePage,
    MessagesCreate,
    MessagesCreated,
    ProfileResponse,
    SearchResults,
    SessionList,
    Swept,
    UserPage,
)
from mnemo.memory import cursors, records
from mnemo.memory.idempotency import MAX_KEY_CHARS
from mnemo.schemas import ContextBundle, MemoryItem
from mnemo.search_query import SearchQuery

Handler = TypeVar("Handler", bound=Callable[..., Any])
#: OpenAPI's extra responses of a route, by status.
Responses = dict[int | str, dict[str, Any]]
ERRORS: Responses = {code: {"model": ErrorBody} for code in (401, 404, 422, 503)}
router = APIRouter(prefix="/v1", responses=ERRORS)

Limit = Annotated[int, Query(ge=1, le=1000)]
Offset = Annotated[int, Query(ge=0, le=10_000_000)]
Cursor = Annotated[
    str | None,
    Query(
        max_length=cursors.MAX_CHARS,
        description="A page's `next_cursor`: the page after it (not with `offset`).",
    ),
]
#: The agent whose view a read takes (see docs/memory-model.md, "Scopes").
AgentQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=256,
        description="Only what this agent sees: the user's shared items and those private "
        "to it (without user_id: its own memories).",
    ),
]


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=MAX_KEY_CHARS,
        description="Makes the write safe to retry: a request with a key already used (by "
        "this tenant, within `idempotency_ttl_s`) and the same body writes nothing and returns "
        "the first result; the same key with another body is a 422.",
    ),
]


def creating(
    path: str, model: type[BaseModel], tag: str, responses: Responses
) -> Callable[[Handler], Handler]:
    """The decorator of a route that creates: ``POST path``, answering 201 with ``model``,
    the links of what it made in ``responses``."""
    return router.post(path, status_code=201, response_model=model, tags=[tag], responses=responses)


@creating("/memories", MemoryItem, "memories", links.CREATED_MEMORY)
def create_memory(
    body: MemoryCreate, mem: MemoryDep, idempotency_key: IdempotencyKey = None
) -> MemoryItem:
    """Store a memory (a fact by default); retry-safe with an `Idempotency-Key` header."""
    return mem.add(**body.model_dump(), idempotency_key=idempotency_key)


@router.get("/memories", response_model=MemoryPage, tags=["memories"])
def list_memories(mem: MemoryDep, params: Annotated[MemoryParams, Query()]) -> MemoryPage:
    """Memories, newest first, filtered and paginated; ``filters`` holds a filter as JSON."""
    return MemoryPage.of(mem.list_page(params.query()))


@router.post("/memories/count", response_model=MemoryCount, tags=["memories"])
def count_memories(body: MemorySelection, mem: MemoryDep) -> MemoryCount:
    """How many live memories of a user (of a session, in an agent's view) match ``filters``;
    ``agent_id`` alone: the agent's own memories."""
    n = mem.count(
        body.user_id, agent_id=body.agent_id, session_id=body.session_id, filters=body.filters
    )
    return MemoryCount(count=n)


@router.post("/memories/delete", response_model=MemoriesDeleted, tags=["memories"])
def delete_memories(body: MemorySelection, mem: MemoryDep) -> MemoriesDeleted:
    """Soft-delete every live memory of a user (of a session) that matches ``filters`` (all of
    them without one), each as ``DELETE /v1/memories/{id}`` does; turns stay. With
    ``agent_id``: only the user's items private to that agent (never the shared ones); alone,
    the agent's own memories."""
    deleted = mem.delete_all(
        body.user_id, agent_id=body.agent_id, session_id=body.session_id, filters=body.filters
    )
    return MemoriesDeleted(deleted=deleted)


@router.get("/memories/{memory_id}", response_model=MemoryItem, tags=["memories"])
def get_memory(
    memory_id: str, mem: MemoryDep, user_id: str | None = None, agent_id: AgentQuery = None
) -> MemoryItem:
    """One live memory; with `user_id` and/or `agent_id`, a 404 unless it is in that scope."""
    return mem.get_memory(memory_id, user_id=user_id, agent_id=agent_id)


@router.patch(
    "/memories/{memory_id}",
    response_model=MemoryItem,
    tags=["memories"],
    responses=links.UPDATED_MEMORY,
)
def update_memory(memory_id: str, body: MemoryPatch, mem: MemoryDep) -> MemoryItem:
    """Change a memory's content, tags, metadata, importance, confidence or expiry."""
    mem.get_memory(memory_id)
    return mem.update(memory_id, **body.model_dump(exclude_none=True))


@router.delete("/memories/{memory_id}", response_model=MemoryItem, tags=["memories"])
def delete_memory(memory_id: str, mem: MemoryDep) -> MemoryItem:
    """Soft-delete a memory; its history keeps it."""
    mem.get_memory(memory_id)
    return mem.delete(memory_id)


@router.get("/memories/{memory_id}/history", response_model=HistoryList, tags=["memories"])
def memory_history(memory_id: str, mem: MemoryDep) -> HistoryList:
    """Every change of a memory, oldest first."""
    return HistoryList(data=mem.history(records.memory_id(memory_id)))


@router.post("/search", response_model=SearchResults, tags=["search"])
def search(body: SearchQuery, mem: MemoryDep) -> SearchResults:
    """The memories and turns most relevant to a query, best first."""
    return SearchResults(data=mem.search(body))


@creating("/messages", MessagesCreated, "messages", links.CREATED_MESSAGES)
def add_messages(
    body: MessagesCreate,
    mem: MemoryDep,
    state: StateDep,
    idempotency_key: IdempotencyKey = None,
) -> MessagesCreated:
    """Store turns (and queue their follow-up jobs) in one transaction; retry-safe with an
    `Idempotency-Key` header."""
    turns = [m.model_dump(exclude_none=True) for m in body.messages]
    given = body.model_dump(exclude={"messages"})  # the scope and expiry of every turn
    ids = mem.add_messages(turns, idempotency_key=idempotency_key, **given)
    state.metrics.turns.inc(len(ids))
    return MessagesCreated(ids=ids)


@router.get("/messages", response_model=MessagePage, tags=["messages"])
def list_messages(mem: MemoryDep, params: Annotated[MessageParams, Query()]) -> MessagePage:
    """Stored turns in conversation order, filtered and paginated; ``filters`` holds a
    filter as JSON."""
    return MessagePage.of(mem.messages_page(params.query()))


@router.post("/context", response_model=ContextBundle, tags=["context"])
def context(body: ContextRequestBody, mem: MemoryDep) -> ContextBundle:
    """The memory a prompt about ``query`` gets, within a token budget, in the preset's format."""
    budget = body.budget_tokens or mem.settings.context_budget_tokens
    return mem.context(
        body.search(), budget_tokens=budget, location=body.location, top_k=body.top_k
    )


@router.get("/users", response_model=UserPage, tags=["users"])
def list_users(
    mem: MemoryDep, limit: Limit = 100, offset: Offset = 0, cursor: Cursor = None
) -> UserPage:
    """The tenant's users by id, with their sessions, turns, live memories and last activity."""
    return UserPage.of(mem.users_page(limit=limit, offset=offset, cursor=cursor))


@router.get("/users/{user_id}/sessions", response_model=SessionList, tags=["users"])
def list_sessions(user_id: str, mem: MemoryDep) -> SessionList:
    """A user's sessions, the most recently active first."""
    return SessionList(user_id=user_id, data=mem.sessions(user_id))


@router.get("/users/{user_id}/profile", response_model=ProfileResponse, tags=["users"])
def profile(
    user_id: str,
    mem: MemoryDep,
    min_importance: Annotated[float | None, Query(ge=0, le=1)] = None,
    agent_id: AgentQuery = None,
) -> ProfileResponse:
    """The user's active profile facts (empty until the profile tier has run); by default
    stage 1 of retrieval: importance >= ``profile_context_min_importance`` (`tiered`)."""
    facts = mem.profile_view(user_id, min_importance=min_importance, agent_id=agent_id)
    return ProfileResponse(user_id=user_id, facts=[f.model_dump(mode="json") for f in facts])


@router.delete("/users/{user_id}", response_model=ErasedResponse, tags=["users"])
def erase_user(user_id: str, mem: MemoryDep) -> ErasedResponse:
    """Erase every row of a user in the caller's tenant."""
    return ErasedResponse(user_id=user_id, deleted=mem.delete_user(user_id))


@router.delete("/agents/{agent_id}", response_model=AgentErasedResponse, tags=["users"])
def erase_agent(agent_id: str, mem: MemoryDep) -> AgentErasedResponse:
    """Erase every row tagged with an agent in the caller's tenant: its own memories and the
    items private to it in every user (shared items stay)."""
    return AgentErasedResponse(agent_id=agent_id, deleted=mem.delete_agent(agent_id))


@router.post("/sweep", response_model=Swept, tags=["jobs"])
def sweep(mem: MemoryDep) -> Swept:
    """Remove the tenant's expired turns and memories for good (full-text rows, vectors,
    files and history too); the worker also does it every `sweep_interval_s`."""
    return Swept(swept=mem.sweep())


@router.get("/topics", tags=["topics"])
def topics(mem: MemoryDep, user_id: str, session_id: str | None = None) -> dict[str, Any]:
    """The user's topics (`topics`)."""
    found = mem.topics(user_id, session_id=session_id)
    return {"data": [t.model_dump(mode="json") for t in found]}


__all__ = ["router"]
