"""Turn statements shared by both stores: writing turns (with per-session ``seq``) and reading
them back one by one or by a list filter."""

from __future__ import annotations

import json
from dataclasses import replace

from mnemo.schemas import Message
from mnemo.storage.base import MESSAGE, ListFilter, NewMessage
from mnemo.storage.ports.conversation import SessionTurns
from mnemo.storage.sql import expiry, keyset, rows
from mnemo.storage.sql.memories import own_user
from mnemo.storage.sql.tx import Tx

#: Columns a Message is read from.
MESSAGE_COLS = (
    "rowid, id, tenant, user_id, session_id, seq, role, name, content, created_at, metadata,"
    " topic_id, evicted_at, expires_at, ttl_seconds, agent_id"
)
INSERT_COLUMNS = (
    "id",
    "tenant",
    "user_id",
    "session_id",
    "seq",
    "role",
    "name",
    "content",
    "created_at",
    "metadata",
    "content_hash",
    "embedder",
    "embedding",
    "key_vectors",
    "expires_at",
    "ttl_seconds",
    "agent_id",
    "turn_rules",
    "turn_kind",
    "name_cues",
)
#: Orders of :func:`listed`: conversation order, and newest first.
FORWARD = "created_at, session_id, seq"
BACKWARD = "created_at DESC, session_id DESC, seq DESC"


def insert(c: Tx, new: list[NewMessage], now: str) -> list[Message]:
    """Insert turns, each numbered after the last ``seq`` of its session; the users' locks are
    taken first, in a fixed order."""
    d = c.dialect
    q = d.mark
    for tenant, user_id in sorted({(m.tenant, m.user_id) for m in new}):
        own_user(c, tenant, user_id, now)
    next_seq: dict[tuple[str, str, str], int] = {}
    params, out = [], []
    for m in new:
        key = (m.tenant, m.user_id, m.session_id)
        if key not in next_seq:
            row = c.execute(
                f"SELECT coalesce(max(seq), 0) FROM messages"
                f" WHERE tenant={q} AND user_id={q} AND session_id={q}",
                key,
            ).fetchone()
            next_seq[key] = int(row[0]) + 1
        seq = next_seq[key]
        next_seq[key] = seq + 1
        params.append(
            (
                m.id,
                m.tenant,
                m.user_id,
                m.session_id,
                seq,
                m.role,
                m.name,
                m.content,
                m.created_at,
                json.dumps(m.metadata),
                m.content_hash,
                m.embedder,
                d.vector(m.embedding),
                rows.key_blob(m.key_vectors),
                m.expires_at,
                m.ttl_seconds,
                m.agent_id,
                *(
                    (None, None, None)
                    if m.rules is None
                    else (m.rules.version, m.rules.kind, m.rules.cues_text)
                ),
            )
        )
        out.append(rows.message_from_new(m, seq))
    c.executemany(d.insert("messages", INSERT_COLUMNS), params)
    return out


def find(c: Tx, tenant: str, message_id: str) -> Message | None:
    """One message by id, or None."""
    q = c.dialect.mark
    sql = f"SELECT {MESSAGE_COLS} FROM messages WHERE tenant={q} AND id={q}"
    r = c.execute(sql, (tenant, message_id)).fetchone()
    return rows.message(r) if r else None


def listed(c: Tx, flt: ListFilter, order: str) -> list[Message]:
    """Messages matching ``flt`` in ``order`` (:data:`FORWARD` or :data:`BACKWARD`)."""
    q = c.dialect.mark
    where, args = rows.list_where(logged(flt), MESSAGE, c.dialect)
    after, after_args = keyset.messages_after(flt, c.dialect, order == FORWARD)
    where, args = [*where, *after], [*args, *after_args]
    sql = (
        f"SELECT {MESSAGE_COLS} FROM messages WHERE {' AND '.join(where)}"
        f" ORDER BY {order} LIMIT {q} OFFSET {q}"
    )
    return [rows.message(r) for r in c.execute(sql, [*args, flt.limit, flt.offset])]


def counted(c: Tx, flt: ListFilter) -> int:
    """How many messages ``flt`` selects (its limit and offset aside)."""
    where, args = rows.list_where(logged(flt), MESSAGE, c.dialect)
    sql = f"SELECT count(*) FROM messages WHERE {' AND '.join(where)}"
    return int(c.execute(sql, args).fetchone()[0])


def logged(flt: ListFilter) -> ListFilter:
    """``flt`` over the event log: a listing of turns shows evicted turns too (eviction takes
    a turn out of search, never out of the log)."""
    return replace(flt, scope=replace(flt.scope, evicted=True))


def session(c: Tx, span: SessionTurns, live_at: str) -> list[Message]:
    """Messages of one session after ``after_seq`` (or with the given ids), by seq; those
    expired at ``live_at`` left out."""
    d = c.dialect
    q = d.mark
    sql = (
        f"SELECT {MESSAGE_COLS} FROM messages"
        f" WHERE tenant={q} AND user_id={q} AND session_id={q} AND seq>{q}"
        f" AND {expiry.live(d)}"
    )
    args: list[object] = [span.tenant, span.user_id, span.session_id, span.after_seq, live_at]
    if span.ids is not None:
        if not span.ids:
            return []
        sql += f" AND id IN ({d.marks(len(span.ids))})"
        args += span.ids
    return [rows.message(r) for r in c.execute(sql + " ORDER BY seq", args)]
