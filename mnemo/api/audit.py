"""Routes of the memory audit (docs/audit.md): a user's findings, and their fixes applied."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, ConfigDict, Field

from mnemo.api.deps import MemoryDep
from mnemo.api.models import ErrorBody
from mnemo.ops.audit.findings import AuditReport

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 404, 422, 503)
}
router = APIRouter(prefix="/v1/users", tags=["audit"], responses=ERRORS)


class AuditFix(BaseModel):
    """Which fixes to apply: the safe ones (``safe``), and those of the findings named by id
    in ``apply`` whatever their safety (a person's decision)."""

    model_config = ConfigDict(extra="forbid")

    safe: bool = True
    apply: list[Annotated[str, Field(max_length=64)]] = Field(default_factory=list, max_length=1000)


@router.get("/{user_id}/audit", response_model=AuditReport)
def audit(user_id: str, mem: MemoryDep) -> AuditReport:
    """The user's audit: near-duplicate facts, contradictions, stale values and junk, each
    finding with the memories it names and a fix; nothing is changed. 404 for a user the
    tenant holds nothing of."""
    return mem.audit(user_id=user_id)


@router.post("/{user_id}/audit/fix", response_model=AuditReport)
def audit_fix(
    user_id: str, mem: MemoryDep, body: Annotated[AuditFix | None, Body()] = None
) -> AuditReport:
    """Audit the user and apply fixes through history: the safe ones (unless ``safe`` is
    false) and those of the findings in ``apply``; each finding's ``applied`` says which ran
    (404 for an unknown user)."""
    given = body or AuditFix()
    return mem.audit(user_id=user_id, fix=given.safe, apply=given.apply)


__all__ = ["AuditFix", "router"]
