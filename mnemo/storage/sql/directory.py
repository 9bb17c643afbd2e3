"""Who is in a tenant: its users with their counts, and a user's sessions (both stores).

A user's last activity is the newest of their turns' and live memories' times; times are
fixed-width UTC text, so the larger text is the later time.
"""

from __future__ import annotations

from mnemo.schemas import SessionSummary, UserSummary, parse_time
from mnemo.storage.base import MEMORY
from mnemo.storage.sql.scoping import kept
from mnemo.storage.sql.tx import Tx


def users(
    c: Tx, tenant: str, limit: int, offset: int, after: str | None = None
) -> list[UserSummary]:
    """The users of ``tenant`` by id (those after the id ``after``, a page cursor's), with
    their sessions, turns, live memories and last activity; the reserved key of agents' own
    memories (``""``) is no user."""
    q = c.dialect.mark
    own = "x.tenant = u.tenant AND x.user_id = u.user_id"
    live = f"{own} AND {kept(MEMORY, 'x')}"
    sql = (
        "SELECT u.user_id, u.created_at,"
        f" (SELECT count(DISTINCT x.session_id) FROM messages x WHERE {own}) AS sessions,"
        f" (SELECT count(*) FROM messages x WHERE {own}) AS messages,"
        f" (SELECT count(*) FROM memories x WHERE {live}) AS memories,"
        f" (SELECT max(x.created_at) FROM messages x WHERE {own}) AS last_turn,"
        f" (SELECT max(x.updated_at) FROM memories x WHERE {live}) AS last_memory"
        f" FROM users u WHERE u.tenant = {q} AND u.user_id <> ''"
        + ("" if after is None else f" AND u.user_id > {q}")
        + f" ORDER BY u.user_id LIMIT {q} OFFSET {q}"
    )
    args = [tenant] + ([] if after is None else [after])
    out = []
    for r in c.execute(sql, (*args, limit, offset)):
        last = max((t for t in (r["last_turn"], r["last_memory"]) if t), default=None)
        out.append(
            UserSummary(
                user_id=r["user_id"],
                created_at=parse_time(r["created_at"]),
                sessions=int(r["sessions"]),
                messages=int(r["messages"]),
                memories=int(r["memories"]),
                last_active_at=None if last is None else parse_time(last),
            )
        )
    return out


def sessions(c: Tx, tenant: str, user_id: str) -> list[SessionSummary]:
    """A user's sessions, the most recently active first."""
    q = c.dialect.mark
    sql = (
        "SELECT session_id, count(*) AS n, min(created_at) AS first_at,"
        " max(created_at) AS last_at FROM messages"
        f" WHERE tenant = {q} AND user_id = {q} GROUP BY session_id"
        " ORDER BY last_at DESC, session_id"
    )
    return [
        SessionSummary(
            session_id=r["session_id"],
            messages=int(r["n"]),
            first_at=parse_time(r["first_at"]),
            last_at=parse_time(r["last_at"]),
        )
        for r in c.execute(sql, (tenant, user_id))
    ]
