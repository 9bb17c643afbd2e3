"""mem0's self-hosted server routes under ``/mem0``, over the caller's tenant.

The paths, bodies and answers of mem0's ``server/main.py`` (``POST /memories``,
``GET /memories``, ``GET|PUT|DELETE /memories/{memory_id}``,
``GET /memories/{memory_id}/history``, ``POST /search``, ``DELETE /memories``,
``POST /reset``), so a mem0 REST client needs only its base URL changed to
``http://<mnemo>/mem0``. Each route calls :class:`mnemo.compat.mem0.Memory` over the tenant's
Memory, behind mnemo's keys (``X-API-Key`` or ``Authorization: Bearer``) and tenants; errors
are mnemo's (422 with a message for bad input, 404 for an unknown id, which mem0 answers with
``null``). ``POST /mem0/reset`` erases the caller's whole tenant (see
:meth:`mnemo.compat.mem0.Memory.reset`). One route is mnemo's own: ``POST /mem0/import``
brings a mem0 store's memories over (:func:`mnemo.compat.mem0_import.import_mem0`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Query
from pydantic import BaseModel, Field

from mnemo.api.deps import MemoryDep
from mnemo.api.memories import ERRORS
from mnemo.compat.mem0 import Memory as Mem0
from mnemo.compat.mem0_import import import_mem0
from mnemo.errors import NotFoundError

router = APIRouter(prefix="/mem0", tags=["mem0"], responses=ERRORS)


def mem0_memory(mem: MemoryDep) -> Mem0:
    """mem0's Memory over the caller's tenant's Memory (never closed here: the app owns it)."""
    return Mem0(memory=mem)


Mem0Dep = Annotated[Mem0, Depends(mem0_memory)]


class Mem0Message(BaseModel):
    """One message of ``POST /mem0/memories``."""

    role: str = Field(..., description="Role of the message (user or assistant).")
    content: str = Field(..., description="Message content.")


class MemoryCreate(BaseModel):
    """The body of ``POST /mem0/memories`` (mem0's ``MemoryCreate``)."""

    messages: list[Mem0Message] = Field(..., description="List of messages to store.")
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any] | None = None
    infer: bool | None = Field(None, description="Extract facts from the messages (default).")
    memory_type: str | None = Field(None, description="mem0's procedural memory: refused.")
    prompt: str | None = Field(None, description="mem0's extraction prompt: refused.")


class MemoryUpdate(BaseModel):
    """The body of ``PUT /mem0/memories/{memory_id}`` (mem0's ``MemoryUpdate``)."""

    text: str | None = Field(None, description="New content of the memory.")
    metadata: dict[str, Any] | None = Field(None, description="Metadata to set.")


class SearchRequest(BaseModel):
    """The body of ``POST /mem0/search`` (mem0's ``SearchRequest``)."""

    query: str = Field(..., description="Search query.")
    user_id: str | None = None
    run_id: str | None = None
    agent_id: str | None = None
    filters: dict[str, Any] | None = None
    top_k: int | None = Field(None, description="Maximum number of results (default 20).")
    threshold: float | None = Field(None, description="Minimum score (mnemo's scores).")


Ids = Annotated[str | None, Query()]


@router.post("/memories")
def add_memory(body: MemoryCreate, m0: Mem0Dep) -> dict[str, Any]:
    """Store messages: ``{"results": [{"id", "memory", "event"}]}``."""
    return m0.add(
        [message.model_dump() for message in body.messages],
        user_id=body.user_id,
        agent_id=body.agent_id,
        run_id=body.run_id,
        metadata=body.metadata,
        infer=True if body.infer is None else body.infer,
        memory_type=body.memory_type,
        prompt=body.prompt,
    )


@router.get("/memories")
def get_all_memories(
    m0: Mem0Dep,
    user_id: Ids = None,
    run_id: Ids = None,
    agent_id: Ids = None,
    top_k: Annotated[int | None, Query(ge=0, le=1000)] = None,
) -> dict[str, Any]:
    """A scope's memories, newest first: ``{"results": [item, ...]}``."""
    return m0.get_all(user_id=user_id, agent_id=agent_id, run_id=run_id, top_k=top_k)


@router.get("/memories/{memory_id}")
def get_memory(memory_id: str, m0: Mem0Dep) -> dict[str, Any]:
    """One memory in mem0's item shape; 404 for an unknown or deleted id."""
    found = m0.get(memory_id)
    if found is None:
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return found


@router.post("/search")
def search_memories(body: SearchRequest, m0: Mem0Dep) -> dict[str, Any]:
    """The scope's memories most relevant to the query: ``{"results": [item + score]}``."""
    return m0.search(
        body.query,
        filters=body.filters,
        top_k=body.top_k,
        threshold=body.threshold,
        user_id=body.user_id,
        agent_id=body.agent_id,
        run_id=body.run_id,
    )


@router.put("/memories/{memory_id}")
def update_memory(memory_id: str, body: MemoryUpdate, m0: Mem0Dep) -> dict[str, str]:
    """Change a memory's text and/or metadata."""
    return m0.update(memory_id, text=body.text, metadata=body.metadata)


@router.get("/memories/{memory_id}/history")
def memory_history(memory_id: str, m0: Mem0Dep) -> list[dict[str, Any]]:
    """Every change of a memory, oldest first, as mem0's history rows."""
    return m0.history(memory_id)


@router.delete("/memories/{memory_id}")
def delete_memory(memory_id: str, m0: Mem0Dep) -> dict[str, str]:
    """Delete one memory (its history keeps it)."""
    m0.delete(memory_id)
    return {"message": "Memory deleted successfully"}


@router.delete("/memories")
def delete_all_memories(
    m0: Mem0Dep, user_id: Ids = None, run_id: Ids = None, agent_id: Ids = None
) -> dict[str, str]:
    """Delete every memory of a scope (its turns stay)."""
    m0.delete_all(user_id=user_id, agent_id=agent_id, run_id=run_id)
    return {"message": "All relevant memories deleted"}


@router.post("/reset")
def reset_memory(m0: Mem0Dep) -> dict[str, str]:
    """ERASE EVERYTHING OF THE CALLER'S TENANT, for good (every user and agent)."""
    m0.reset()
    return {"message": "All memories reset"}


class Mem0Imported(BaseModel):
    """What ``POST /mem0/import`` stored."""

    imported: int = Field(description="Memories stored by this call.")
    skipped: int = Field(description="Memories already there (an earlier import): skipped.")


@router.post("/import")
def import_dump(
    body: Annotated[
        dict[str, Any] | list[dict[str, Any]],
        Body(description='What mem0\'s get_all returned: {"results": [...]} or the list.'),
    ],
    mem: MemoryDep,
) -> Mem0Imported:
    """Bring a mem0 store's memories into the caller's tenant (not a mem0 route): ids (as
    ``metadata.mem0_id``, by which these routes still find them), scopes, metadata and
    ``created_at`` kept; every item checked first (422 naming the bad one, nothing written);
    a repeated call skips what is already there."""
    done = import_mem0(mem, body)
    return Mem0Imported(imported=done.imported, skipped=done.skipped)


__all__ = ["Mem0Imported", "router"]
