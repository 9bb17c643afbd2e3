"""Who is in a tenant, for :class:`mnemo.Memory`: its users and their sessions, and its
background jobs, as plain lists and as paged listings (:class:`~mnemo.memory.paging.Page`,
``cursor=`` as in :meth:`~mnemo.memory.records.Records.list_page`)."""

from __future__ import annotations

import builtins
from typing import Any

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.memory import cursors
from mnemo.memory.paging import MAX_ROWS, Page, check_window, page_of
from mnemo.memory.tenant import TenantService
from mnemo.schemas import Job, SessionSummary, UserSummary, format_time


def _after_session(s: SessionSummary, key: tuple[Any, ...]) -> bool:
    """Whether session ``s`` comes after the sort key ``(last_at, session_id)`` in the
    sessions' order (the most recently active first, then by id)."""
    last = format_time(s.last_at)
    return last < key[0] or (last == key[0] and s.session_id > str(key[1]))


class Directory(TenantService):
    """The users, sessions and jobs of one tenant (``settings.tenant``)."""

    def users(self, *, limit: int = 100, offset: int = 0) -> builtins.list[UserSummary]:
        """The tenant's users by id, with their sessions, turns, live memories and last
        activity."""
        limit, offset = check_window(limit, offset)
        return self.store.rows.list_users(self.tenant, limit, offset)

    def sessions(self, user_id: str) -> builtins.list[SessionSummary]:
        """A user's sessions (conversations), the most recently active first."""
        return self.store.rows.list_sessions(self.tenant, check.identifier(user_id, "user_id"))

    def users_page(
        self, *, limit: int = 100, offset: int = 0, cursor: str | None = None
    ) -> Page[UserSummary]:
        """:meth:`users` as a :class:`~mnemo.memory.paging.Page` (``cursor=`` as in
        :meth:`~mnemo.memory.records.Records.list_page`)."""
        limit, offset = check_window(limit, offset)
        at = cursors.resume(cursor, "users", self.tenant, {}, offset)
        after = None if at is None else str(at.key[0])
        return page_of(
            lambda n, _: self.store.rows.list_users(self.tenant, n, offset, after=after),
            lambda: self.store.rows.stats(self.tenant).users,
            limit,
            offset if at is None else at.position,
            lambda u, pos: cursors.mark("users", self.tenant, {}, (u.user_id,), pos),
        )

    def sessions_page(
        self, user_id: str, *, limit: int = 100, offset: int = 0, cursor: str | None = None
    ) -> Page[SessionSummary]:
        """:meth:`sessions` as a :class:`~mnemo.memory.paging.Page` (``cursor=`` as in
        :meth:`~mnemo.memory.records.Records.list_page`)."""
        limit, offset = check_window(limit, offset)
        every = self.sessions(user_id)  # every one: a user has few
        query = {"user_id": user_id}
        at = cursors.resume(cursor, "sessions", self.tenant, query, offset)
        found = every if at is None else [s for s in every if _after_session(s, at.key)]
        return page_of(
            lambda n, _: found[offset : offset + n],
            lambda: len(every),
            limit,
            offset if at is None else at.position,
            lambda s, pos: cursors.mark(
                "sessions", self.tenant, query, (format_time(s.last_at), s.session_id), pos
            ),
        )

    def jobs_page(
        self,
        status: str | None = None,
        *,
        limit: int = 100,
        offset: int = 0,
        cursor: str | None = None,
    ) -> Page[Job]:
        """The tenant's background jobs, newest first, as a
        :class:`~mnemo.memory.paging.Page`; by offset the newest 10,000 can be paged through,
        by cursor (``cursor=`` as in :meth:`~mnemo.memory.records.Records.list_page`) every one."""
        if status is not None:
            status = check.job_status(status)
        limit, offset = check_window(limit, offset)
        if offset + limit > MAX_ROWS:
            raise ValidationError(f"jobs can be listed up to the newest {MAX_ROWS}")
        query = {"status": status}
        at = cursors.resume(cursor, "jobs", self.tenant, query, offset)
        before = None if at is None else int(at.key[0])
        counts = self.store.rows.stats(self.tenant).jobs
        return page_of(
            lambda n, _: self.store.jobs.list_jobs(
                status, offset + n, tenant=self.tenant, before=before
            )[offset:],
            lambda: counts.get(status, 0) if status else sum(counts.values()),
            limit,
            offset if at is None else at.position,
            lambda j, pos: cursors.mark("jobs", self.tenant, query, (j.id,), pos),
        )


__all__ = ["Directory"]
