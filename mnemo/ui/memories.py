"""Pages about memories: the list, one memory with its history and provenance (the turns it
came from), and editing or deleting it -- each change behind a confirmation step."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from mnemo.errors import NotFoundError, ValidationError
from mnemo.filters.text import filter_from_json
from mnemo.list_query import MAX_OFFSET, MemoryQuery
from mnemo.memory import records
from mnemo.memory.facade import Memory
from mnemo.schemas import MEMORY_KINDS, MemoryItem, Message
from mnemo.ui.deps import Cursor, PostedDep, ViewerDep
from mnemo.ui.forms import tag_list, unit_number
from mnemo.ui.render import linker, page

router = APIRouter(include_in_schema=False)
PAGE = 50
ACTOR = "ui"
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]
FilterParam = Annotated[str | None, Query(max_length=256)]
#: The filter box: a filter as JSON (mem0's syntax); its size is checked by the filter's limits.
WhereParam = Annotated[str | None, Query(alias="filter", max_length=65_536)]


def provenance(mem: Memory, ids: list[str]) -> list[tuple[str, Message | None]]:
    """The turns a memory came from, by id; None for a turn no longer stored."""
    out: list[tuple[str, Message | None]] = []
    for message_id in ids:
        try:
            found = mem.get(message_id)
        except NotFoundError:
            out.append((message_id, None))
            continue
        out.append((message_id, found if isinstance(found, Message) else None))
    return out


@router.get("/memories")
def memories_page(
    request: Request,
    who: ViewerDep,
    user_id: FilterParam = None,
    kind: FilterParam = None,
    include_deleted: bool = False,
    offset: Offset = 0,
    cursor: Cursor = None,
    agent_id: FilterParam = None,
    where: WhereParam = None,
) -> Response:
    """Memories, newest first, filtered by user, kind, agent (what that agent sees; alone, its
    own memories) and the filter box (a filter as JSON; a bad one, like a bad cursor, is shown
    above the list, which stays empty, with status 422)."""
    form: dict[str, Any] = {
        "user_id": user_id or "",
        "kind": kind or "",
        "agent_id": agent_id or "",
        "kinds": MEMORY_KINDS,
        "include_deleted": include_deleted,
        "where": where or "",
    }
    try:
        q = MemoryQuery.of(
            user_id or None, kind=kind or None, include_deleted=include_deleted, limit=PAGE,
            offset=offset, cursor=cursor, agent_id=agent_id or None,
            filters=filter_from_json(where, "filter"),
        )  # fmt: skip
        listed = who.memory.list_page(q)
    except ValidationError as exc:
        return page(request, "memories.html", who, code=422, page=None, error=str(exc), **form)
    return page(request, "memories.html", who, page=listed, error=None, **form)


@router.get("/memories/{memory_id}")
def memory_page(request: Request, who: ViewerDep, memory_id: str) -> Response:
    """One memory: its fields, the turns it came from, and every change (a deleted memory
    shows its history)."""
    history = who.memory.history(records.memory_id(memory_id))  # NotFoundError: unknown id
    item: MemoryItem | None
    try:
        item = who.memory.get_memory(memory_id)
    except NotFoundError:
        item = None  # deleted: the history tells what it was
    sources = list(item.source_message_ids) if item else []
    for entry in history:
        sources += [m for m in entry.source_message_ids if m not in sources]
    return page(
        request,
        "memory.html",
        who,
        memory_id=memory_id,
        item=item,
        history=history,
        sources=provenance(who.memory, sources),
        last=history[-1] if history else None,
    )


@router.get("/memories/{memory_id}/edit")
def edit_form(request: Request, who: ViewerDep, memory_id: str) -> Response:
    """The edit form of a live memory."""
    item = who.memory.get_memory(memory_id)
    values = {
        "content": item.content,
        "tags": ", ".join(item.tags),
        "importance": f"{item.importance:g}",
    }
    return page(request, "memory_edit.html", who, item=item, values=values, error=None)


def changes_of(item: MemoryItem, fields: dict[str, str]) -> dict[str, Any]:
    """The fields the form changes (content, tags, importance); ValidationError for bad
    input or no change (:func:`mnemo.memory.records.check_changes`)."""
    changes: dict[str, Any] = {}
    content = fields.get("content", "")
    if not content.strip():
        raise ValidationError("content must not be empty")
    if content != item.content:
        changes["content"] = content
    tags = tag_list(fields)
    if tags != item.tags:
        changes["tags"] = tags
    importance = unit_number(fields, "importance", "importance")
    if importance is not None and importance != item.importance:
        changes["importance"] = importance
    return records.check_changes(changes)


@router.post("/memories/{memory_id}/edit")
def edit(request: Request, form: PostedDep, memory_id: str) -> Response:
    """First post: review the change. Second post (``confirm=yes``): save it."""
    mem = form.viewer.memory
    item = mem.get_memory(memory_id)

    def edit_again(exc: ValidationError) -> Response:
        """The edit form once more, with the values given and why they were refused."""
        return page(
            request,
            "memory_edit.html",
            form.viewer,
            422,
            item=item,
            values=form.fields,
            error=str(exc),
        )

    try:
        changes = changes_of(item, form.fields)
    except ValidationError as exc:
        return edit_again(exc)
    if form.fields.get("confirm") != "yes":
        return page(
            request,
            "memory_review.html",
            form.viewer,
            item=item,
            changes=changes,
            values=form.fields,
        )
    try:
        mem.update(memory_id, actor=ACTOR, **changes)
    except ValidationError as exc:  # e.g. content over max_content_chars
        return edit_again(exc)
    target = linker(request)(f"/memories/{memory_id}", done="updated")
    return RedirectResponse(target, status_code=303)


@router.get("/memories/{memory_id}/delete")
def delete_form(request: Request, who: ViewerDep, memory_id: str) -> Response:
    """The confirmation step before deleting a memory."""
    item = who.memory.get_memory(memory_id)
    return page(request, "memory_delete.html", who, item=item)


@router.post("/memories/{memory_id}/delete")
def delete(request: Request, form: PostedDep, memory_id: str) -> Response:
    """Delete the memory (a soft delete: its history keeps it)."""
    item = form.viewer.memory.get_memory(memory_id)
    form.viewer.memory.delete(memory_id, actor=ACTOR)
    target = linker(request)("/memories", user_id=item.user_id, done="deleted")
    return RedirectResponse(target, status_code=303)


__all__ = ["changes_of", "provenance", "router"]
