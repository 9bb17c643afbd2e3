"""The jobs page: the tenant's background jobs by state, dead ones with their errors, and a
button that puts the dead ones back in the queue."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from mnemo.schemas import JOB_STATUSES, JobStatus
from mnemo.ui.deps import Cursor, PostedDep, ViewerDep
from mnemo.ui.render import linker, page

router = APIRouter(include_in_schema=False)
PAGE = 200


@router.get("/jobs")
def jobs_page(
    request: Request,
    who: ViewerDep,
    status: JobStatus | None = None,
    requeued: Annotated[int | None, Query(ge=0)] = None,
    offset: Annotated[int, Query(ge=0, le=10_000 - PAGE)] = 0,
    cursor: Cursor = None,
) -> Response:
    """Jobs, newest first (optionally of one state), a page at a time, and the count of each
    state."""
    return page(
        request,
        "jobs.html",
        who,
        page=who.memory.jobs_page(status, limit=PAGE, offset=offset, cursor=cursor),
        counts=who.memory.stats().jobs,
        status=status or "",
        statuses=JOB_STATUSES,
        requeued=requeued,
    )


@router.post("/jobs/requeue-dead")
def requeue_dead(request: Request, form: PostedDep) -> Response:
    """Put the tenant's dead jobs back in the queue, then show the jobs."""
    n = form.viewer.memory.requeue_dead_jobs()
    return RedirectResponse(linker(request)("/jobs", requeued=n), status_code=303)


__all__ = ["router"]
