"""Routes over a user's entity index: the people, pets, places, organisations and things the
user talks about, and what is known about one of them (docs/entities.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from mnemo.api.deps import MemoryDep
from mnemo.api.models import ErrorBody
from mnemo.schemas import Entity, EntityDetail

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 404, 422, 503)
}
router = APIRouter(prefix="/v1/users/{user_id}/entities", tags=["entities"], responses=ERRORS)


class EntityList(BaseModel):
    """A user's entities, the most mentioned first."""

    user_id: str
    data: list[Entity]


@router.get("", response_model=EntityList)
def list_entities(user_id: str, mem: MemoryDep) -> EntityList:
    """The people, pets, places, organisations and things the user talks about, with their
    aliases and how many turns mention each (empty until the fact job has run)."""
    return EntityList(user_id=user_id, data=mem.entities(user_id))


@router.get("/{name_or_id}", response_model=EntityDetail)
def get_entity(user_id: str, name_or_id: str, mem: MemoryDep) -> EntityDetail:
    """What is known about one entity, named by its id, its name or an alias ("Raj",
    "my husband"): the entity, the live facts that name it and the turns that mention it;
    404 when the user has none of that name."""
    return mem.entity(user_id, name_or_id)


__all__ = ["EntityList", "router"]
