"""Routes over the caller's tenant's background jobs: list them, re-queue the dead ones."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from mnemo.api.deps import MemoryDep
from mnemo.api.memories import Cursor
from mnemo.api.models import ErrorBody, JobList, JobsRequeued
from mnemo.schemas import JobStatus

ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody} for code in (401, 422, 503)}
router = APIRouter(prefix="/v1/jobs", tags=["jobs"], responses=ERRORS)


@router.get("", response_model=JobList)
def list_jobs(
    mem: MemoryDep,
    status: JobStatus | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=9_999)] = 0,
    cursor: Cursor = None,
) -> JobList:
    """The tenant's jobs, newest first, paginated (by offset the newest 10,000, by cursor
    all); a dead job keeps its last error."""
    return JobList.of(mem.jobs_page(status, limit=limit, offset=offset, cursor=cursor))


@router.post("/requeue-dead", response_model=JobsRequeued)
def requeue_dead(mem: MemoryDep) -> JobsRequeued:
    """Put the tenant's dead jobs back in the queue (due now, attempts reset); the worker
    runs them again."""
    return JobsRequeued(requeued=mem.requeue_dead_jobs())


__all__ = ["router"]
