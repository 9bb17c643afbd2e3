"""Pages about people: the tenant's users, one user's overview (sessions, profile with its
inactive history, topics, episodes, summaries), a conversation's turns, and erasing a user
behind a confirmation step."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from mnemo.errors import NotFoundError, ValidationError
from mnemo.ids import MESSAGE_PREFIX
from mnemo.schemas import Message, SessionSummary
from mnemo.ui.access import Viewer
from mnemo.ui.deps import Cursor, PostedDep, ViewerDep
from mnemo.ui.render import linker, page

router = APIRouter(include_in_schema=False)
USERS_PAGE = 50
TURNS_PAGE = 100
#: The most turns a session page looks through to find the page of one turn.
MAX_SESSION_SCAN = 10_000
UserId = Annotated[str, Query(min_length=1, max_length=256)]
Offset = Annotated[int, Query(ge=0, le=10_000_000)]


@router.get("/users")
def users_page(
    request: Request, who: ViewerDep, offset: Offset = 0, cursor: Cursor = None
) -> Response:
    """The tenant's users with their counts, and what the store holds."""
    listed = who.memory.users_page(limit=USERS_PAGE, offset=offset, cursor=cursor)
    return page(request, "users.html", who, page=listed, stats=who.memory.stats())


def held_user(who: Viewer, user_id: str) -> list[SessionSummary]:
    """The sessions of a user the viewer's tenant holds (turns, profile facts or memories);
    NotFoundError otherwise, so no page offers to show or erase a user that is not there."""
    mem = who.memory
    sessions = mem.sessions(user_id)
    held = sessions or mem.profile(user_id, include_inactive=True) or mem.list(user_id, limit=1)
    if not held:
        raise NotFoundError(f"no user {user_id!r} in tenant {who.tenant!r}")
    return sessions


@router.get("/user")
def user_page(request: Request, who: ViewerDep, user_id: UserId) -> Response:
    """One user: sessions, profile (active, then replaced values), topics, episodes and
    summaries."""
    sessions = held_user(who, user_id)
    mem = who.memory
    profile = mem.profile(user_id, include_inactive=True)
    facts = mem.list(user_id, kind="fact", limit=1)
    return page(
        request,
        "user.html",
        who,
        user_id=user_id,
        sessions=sessions,
        active=[f for f in profile if f.active],
        inactive=[f for f in profile if not f.active],
        topics=mem.topics(user_id, include_inactive=True),
        episodes=mem.list(user_id, kind="episode", limit=20),
        summaries=mem.list(user_id, kind="summary", limit=20),
        has_facts=bool(facts),
    )


@router.get("/session")
def session_page(
    request: Request,
    who: ViewerDep,
    user_id: UserId,
    session_id: Annotated[str, Query(min_length=1, max_length=256)],
    offset: Offset = 0,
    cursor: Cursor = None,
) -> Response:
    """A conversation's turns, in order, a page at a time."""
    turns = who.memory.messages_page(
        user_id, session_id=session_id, limit=TURNS_PAGE, offset=offset, cursor=cursor
    )
    if not turns.total:
        raise NotFoundError(f"no session {session_id!r} of user {user_id!r}")
    return page(request, "session.html", who, user_id=user_id, session_id=session_id, page=turns)


@router.get("/turns/{message_id}")
def turn_link(request: Request, who: ViewerDep, message_id: str) -> Response:
    """A turn in its conversation: the session page that holds it, scrolled to it."""
    if not message_id.startswith(MESSAGE_PREFIX):
        raise NotFoundError(f"no turn with id {message_id!r}")
    turn = who.memory.get(message_id)
    assert isinstance(turn, Message)
    around = who.memory.messages(turn.user_id, session_id=turn.session_id, limit=MAX_SESSION_SCAN)
    index = next((i for i, m in enumerate(around) if m.id == message_id), 0)
    href = linker(request)
    target = href(
        "/session",
        user_id=turn.user_id,
        session_id=turn.session_id,
        offset=(index // TURNS_PAGE) * TURNS_PAGE or None,
    )
    return RedirectResponse(f"{target}#{message_id}", status_code=303)


@router.get("/user/erase")
def erase_form(request: Request, who: ViewerDep, user_id: UserId) -> Response:
    """The confirmation step before erasing a user: what goes, and the id to type (a 404 for
    a user the tenant does not hold, as on the user's page)."""
    sessions = held_user(who, user_id)
    return page(
        request,
        "user_erase.html",
        who,
        user_id=user_id,
        sessions=len(sessions),
        turns=sum(s.messages for s in sessions),
        error=None,
    )


@router.post("/user/erase")
def erase(request: Request, form: PostedDep) -> Response:
    """Erase every row of the user once the typed id matches."""
    user_id = form.fields.get("user_id", "")
    if not user_id:
        raise ValidationError("user_id is missing")
    if form.fields.get("confirm_user_id", "") != user_id:
        sessions = form.viewer.memory.sessions(user_id)
        return page(
            request,
            "user_erase.html",
            form.viewer,
            422,
            user_id=user_id,
            sessions=len(sessions),
            turns=sum(s.messages for s in sessions),
            error="The typed id does not match; nothing was erased.",
        )
    counts = form.viewer.memory.delete_user(user_id)
    return page(request, "user_erased.html", form.viewer, user_id=user_id, counts=counts)


__all__ = ["router"]
