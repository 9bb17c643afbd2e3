"""The audit page of a user (docs/audit.md): findings with links to their memories, a button
per finding that applies its fix, and one that applies every safe fix."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from mnemo.errors import ValidationError
from mnemo.ops.audit.findings import FINDING_KINDS
from mnemo.ui.deps import PostedDep, ViewerDep
from mnemo.ui.render import linker, page
from mnemo.ui.users import UserId, held_user

router = APIRouter(include_in_schema=False)


@router.get("/user/audit")
def audit_page(
    request: Request,
    who: ViewerDep,
    user_id: UserId,
    applied: Annotated[int | None, Query(ge=0)] = None,
) -> Response:
    """The user's findings by kind, each naming its memories and its fix (nothing changes)."""
    held_user(who, user_id)
    report = who.memory.audit(user_id=user_id)
    return page(
        request, "audit.html", who, user_id=user_id, report=report, kinds=FINDING_KINDS,
        applied=applied,
    )  # fmt: skip


@router.post("/user/audit/fix")
def audit_fix(request: Request, form: PostedDep) -> Response:
    """Apply the safe fixes (no ``finding`` field) or one finding's fix, then show the
    audit again with how many were applied."""
    user_id = form.fields.get("user_id", "")
    if not user_id:
        raise ValidationError("user_id is missing")
    one = form.fields.get("finding", "")
    report = form.viewer.memory.audit(user_id=user_id, fix=not one, apply=[one] if one else ())
    target = linker(request)("/user/audit", user_id=user_id, applied=report.applied)
    return RedirectResponse(target, status_code=303)


__all__ = ["router"]
