"""Routes over one tenant's data: memories CRUD, search, turns, context, users and topics.

Handlers are plain functions: FastAPI runs them in its thread pool, over the sync core.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query

from mnemo import validation as check
from mnemo.api import links
from mnemo.api.deps import MemoryDep, StateDep
from mnemo.api.models import (
    ContextRequestBody,
    ErasedResponse,
    ErrorBody,
    HistoryList,
    MemoryCreate,
    MemoryPage,
    MemoryPatch,
    MessagePage,
    MessagesCreate,
    MessagesCreated,
    ProfileResponse,
    SearchRequest,
    SearchResults,
    SessionList,
    UserPage,
)
from mnemo.errors import NotFoundError
from mnemo.ids import MEMORY_PREFIX
from mnemo.memory.facade import Memory
from mnemo.memory.idempotency import MAX_KEY_CHARS
from mnemo.schemas import ContextBundle, MemoryItem

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 404, 422, 503)
}
router = APIRouter(prefix="/v1", responses=ERRORS)

Limit = Annotated[int, Query(ge=1, le=1000)]
Offset = Annotated[int, Query(ge=0, le=10_000_000)]


def _memory(mem: Memory, memory_id: str) -> MemoryItem:
    if not memory_id.startswith(MEMORY_PREFIX):
        raise NotFoundError(f"no memory with id {memory_id!r}")
    item = mem.get(memory_id)
    assert isinstance(item, MemoryItem)
    return item


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


@router.post(
    "/memories",
    status_code=201,
    response_model=MemoryItem,
    tags=["memories"],
    responses=links.CREATED_MEMORY,
)
def create_memory(
    body: MemoryCreate, mem: MemoryDep, idempotency_key: IdempotencyKey = None
) -> MemoryItem:
    """Store a memory (a fact by default); retry-safe with an `Idempotency-Key` header."""
    return mem.add(**body.model_dump(), idempotency_key=idempotency_key)


@router.get("/memories", response_model=MemoryPage, tags=["memories"])
def list_memories(
    mem: MemoryDep,
    user_id: str | None = None,
    session_id: str | None = None,
    kind: str | None = None,
    tag: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> MemoryPage:
    """Memories, newest first, filtered and paginated."""
    items = mem.list(
        user_id,
        session_id=session_id,
        kind=kind,
        tag=tag,
        since=since,
        until=until,
        limit=limit + 1,
        offset=offset,
    )
    more = len(items) > limit
    return MemoryPage(
        data=items[:limit], limit=limit, offset=offset, next_offset=offset + limit if more else None
    )


@router.get("/memories/{memory_id}", response_model=MemoryItem, tags=["memories"])
def get_memory(memory_id: str, mem: MemoryDep) -> MemoryItem:
    """One live memory."""
    return _memory(mem, memory_id)


@router.patch(
    "/memories/{memory_id}",
    response_model=MemoryItem,
    tags=["memories"],
    responses=links.UPDATED_MEMORY,
)
def update_memory(memory_id: str, body: MemoryPatch, mem: MemoryDep) -> MemoryItem:
    """Change a memory's content, tags, metadata, importance or confidence."""
    _memory(mem, memory_id)
    return mem.update(memory_id, **body.model_dump(exclude_none=True))


@router.delete("/memories/{memory_id}", response_model=MemoryItem, tags=["memories"])
def delete_memory(memory_id: str, mem: MemoryDep) -> MemoryItem:
    """Soft-delete a memory; its history keeps it."""
    _memory(mem, memory_id)
    return mem.delete(memory_id)


@router.get("/memories/{memory_id}/history", response_model=HistoryList, tags=["memories"])
def memory_history(memory_id: str, mem: MemoryDep) -> HistoryList:
    """Every change of a memory, oldest first."""
    if not memory_id.startswith(MEMORY_PREFIX):
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return HistoryList(data=mem.history(memory_id))


@router.post("/search", response_model=SearchResults, tags=["search"])
def search(body: SearchRequest, mem: MemoryDep) -> SearchResults:
    """The memories and turns most relevant to a query, best first."""
    hits = mem.search(
        body.query, body.user_id, body.session_id, body.limit, body.kinds, body.explain
    )
    return SearchResults(data=hits)


@router.post(
    "/messages",
    status_code=201,
    response_model=MessagesCreated,
    tags=["messages"],
    responses=links.CREATED_MESSAGES,
)
def add_messages(
    body: MessagesCreate,
    mem: MemoryDep,
    state: StateDep,
    idempotency_key: IdempotencyKey = None,
) -> MessagesCreated:
    """Store turns (and queue their follow-up jobs) in one transaction; retry-safe with an
    `Idempotency-Key` header."""
    turns = [m.model_dump(exclude_none=True) for m in body.messages]
    ids = mem.add_messages(
        turns,
        user_id=body.user_id,
        session_id=body.session_id,
        idempotency_key=idempotency_key,
    )
    state.metrics.turns.inc(len(ids))
    return MessagesCreated(ids=ids)


@router.get("/messages", response_model=MessagePage, tags=["messages"])
def list_messages(
    mem: MemoryDep,
    user_id: str | None = None,
    session_id: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> MessagePage:
    """Stored turns in conversation order, filtered and paginated."""
    items = mem.messages(
        user_id, session_id=session_id, since=since, until=until, limit=limit + 1, offset=offset
    )
    more = len(items) > limit
    return MessagePage(
        data=items[:limit], limit=limit, offset=offset, next_offset=offset + limit if more else None
    )


@router.post("/context", response_model=ContextBundle, tags=["context"])
def context(body: ContextRequestBody, mem: MemoryDep) -> ContextBundle:
    """The memory a prompt about ``query`` gets, within a token budget, in the preset's format."""
    budget = body.budget_tokens or mem.settings.context_budget_tokens
    return mem.context(
        body.query,
        body.user_id,
        body.session_id,
        budget,
        location=body.location,
        top_k=body.top_k,
    )


@router.get("/users", response_model=UserPage, tags=["users"])
def list_users(mem: MemoryDep, limit: Limit = 100, offset: Offset = 0) -> UserPage:
    """The tenant's users by id, with their sessions, turns, live memories and last activity."""
    items = mem.users(limit=limit + 1, offset=offset)
    more = len(items) > limit
    return UserPage(
        data=items[:limit], limit=limit, offset=offset, next_offset=offset + limit if more else None
    )


@router.get("/users/{user_id}/sessions", response_model=SessionList, tags=["users"])
def list_sessions(user_id: str, mem: MemoryDep) -> SessionList:
    """A user's sessions, the most recently active first."""
    return SessionList(user_id=user_id, data=mem.sessions(user_id))


@router.get("/users/{user_id}/profile", response_model=ProfileResponse, tags=["users"])
def profile(
    user_id: str,
    mem: MemoryDep,
    min_importance: Annotated[float | None, Query(ge=0, le=1)] = None,
) -> ProfileResponse:
    """The user's active profile facts (empty until the profile tier has run); by default
    stage 1 of retrieval: importance >= ``profile_context_min_importance`` (`tiered`)."""
    user_id = check.identifier(user_id, "user_id")
    floor = min_importance
    if floor is None:
        floor = mem.settings.profile_context_min_importance
    fn = getattr(mem, "profile", None)
    facts = [] if fn is None else fn(user_id, min_importance=floor)
    rows = [f.model_dump(mode="json") if hasattr(f, "model_dump") else dict(vars(f)) for f in facts]
    return ProfileResponse(user_id=user_id, facts=rows)


@router.delete("/users/{user_id}", response_model=ErasedResponse, tags=["users"])
def erase_user(user_id: str, mem: MemoryDep) -> ErasedResponse:
    """Erase every row of a user in the caller's tenant."""
    return ErasedResponse(user_id=user_id, deleted=mem.delete_user(user_id))


def topics_router() -> APIRouter | None:
    """``GET /v1/topics`` when this mnemo has the topics tier, else None."""
    if not hasattr(Memory, "topics"):
        return None
    extra = APIRouter(prefix="/v1", responses=ERRORS)

    @extra.get("/topics", tags=["topics"])
    def topics(mem: MemoryDep, user_id: str, session_id: str | None = None) -> dict[str, Any]:
        """The user's topics (`topics`)."""
        list_topics: Any = getattr(mem, "topics", None)  # typed once the topics tier merges
        found = list_topics(user_id, session_id=session_id)
        data = [t.model_dump(mode="json") if hasattr(t, "model_dump") else t for t in found]
        return {"data": data}

    return extra


__all__ = ["router", "topics_router"]
