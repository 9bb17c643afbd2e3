"""Pages of a user's entity index: the people, pets, places, organisations and things the
user talks about, and one of them with its facts and the turns that mention it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from mnemo.ui.deps import ViewerDep
from mnemo.ui.render import page

router = APIRouter(include_in_schema=False)
UserId = Annotated[str, Query(min_length=1, max_length=256)]


@router.get("/entities")
def entities_page(request: Request, who: ViewerDep, user_id: UserId) -> Response:
    """A user's entities, the most mentioned first."""
    found = who.memory.entities(user_id)
    return page(request, "entities.html", who, user_id=user_id, entities=found)


@router.get("/entity")
def entity_page(
    request: Request,
    who: ViewerDep,
    user_id: UserId,
    name: Annotated[str, Query(min_length=1, max_length=1000)],
) -> Response:
    """One entity (by id, name or alias): its kind and aliases, the live facts that name it,
    the turns that mention it (a 404 page when the user has none of that name)."""
    detail = who.memory.entity(user_id, name)
    return page(request, "entity.html", who, user_id=user_id, detail=detail)


__all__ = ["entities_page", "entity_page", "router"]
