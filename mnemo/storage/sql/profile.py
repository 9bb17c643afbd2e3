"""Statements of the conversation tiers: profile facts, session reads and eviction.

Functions take an open :class:`~mnemo.storage.sql.tx.Tx` (inside the caller's transaction), so
each store keeps one method per operation and this module holds the SQL of both dialects.
"""

from __future__ import annotations

import json
from typing import Any

from mnemo.schemas import ProfileFact
from mnemo.storage.agent_scope import exactly
from mnemo.storage.base import MEMORY, MESSAGE, NewProfileFact, ProfileDecide, ProfileDecision
from mnemo.storage.ports.conversation import Eviction, ProfileQuery
from mnemo.storage.sql.asof import current_fact
from mnemo.storage.sql.rows import record
from mnemo.storage.sql.scoping import agent_where, kept
from mnemo.storage.sql.tx import Row, Tx


def profile_fact(r: Row) -> ProfileFact:
    """A ProfileFact from a ``profile_facts`` row."""
    times = ("observed_at", "created_at", "updated_at", "superseded_at")
    return record(ProfileFact, r, ("source_message_ids",), times, active=bool(r["active"]))


#: The fields of a profile fact that history records before and after a change, in order.
FACT_SNAPSHOT_FIELDS = ("id", "category", "key", "value", "confidence", "importance", "active")


def fact_snapshot(f: ProfileFact) -> dict[str, Any]:
    """The :data:`FACT_SNAPSHOT_FIELDS` of a profile fact, for history."""
    return {name: getattr(f, name) for name in FACT_SNAPSHOT_FIELDS}


def select_facts(c: Tx, pq: ProfileQuery) -> list[ProfileFact]:
    """The facts ``pq`` selects: active ones by importance (then key), history rows after,
    oldest first. With its ``as_of``, the facts current at that time instead of the active
    ones (see :func:`mnemo.storage.sql.asof.current_fact`), listed as active. Only those its
    agent view ``agents`` sees (None: every one)."""
    q = c.dialect.mark
    where = [f"tenant = {q}", f"user_id = {q}"]
    args: list[Any] = [pq.tenant, pq.user_id]
    if pq.as_of is not None:
        cond, more = current_fact(c.dialect, pq.as_of)
        where.append(cond)
        args += more
    elif not pq.include_inactive:
        where.append("active = 1")
    for cond, value in (
        (f"importance >= {q}", pq.min_importance),
        (f"category = {q}", pq.category),
    ):
        if value is not None:
            where.append(cond)
            args.append(value)
    seen = agent_where(pq.agents, c.dialect)
    if seen:
        where.append(seen.sql)
        args += seen.args
    sql = (
        f"SELECT * FROM profile_facts WHERE {' AND '.join(where)}"
        " ORDER BY active DESC, CASE WHEN active = 1 THEN -importance ELSE 0 END,"
        " category, key, rowid"
    )
    found = [profile_fact(r) for r in c.execute(sql, args)]
    return found if pq.as_of is None else [f.model_copy(update={"active": True}) for f in found]


def put_fact(
    c: Tx, row: NewProfileFact, actor: str, decide: ProfileDecide, now: str
) -> tuple[ProfileDecision, ProfileFact | None]:
    """Apply ``decide(current active fact, its observed_seq)`` to one candidate.

    ``ADD`` inserts; ``UPDATE`` marks the current row inactive and inserts the new one;
    ``REFRESH`` raises confidence/importance of the current row in place; ``END`` marks the
    current row inactive (superseded at the candidate's observed time) and inserts nothing
    (a DELETE in history); ``NONE`` writes nothing. Every write is recorded in ``history``
    under the fact's id.
    """
    d = c.dialect
    q = d.mark
    done = c.execute(f"SELECT * FROM profile_facts WHERE id={q}", (row.id,)).fetchone()
    if done is not None:  # this very candidate was applied before: a re-run changes nothing
        return "NONE", profile_fact(done)
    same_agent = agent_where(exactly(row.agent_id), d)
    cur = c.execute(
        f"SELECT * FROM profile_facts WHERE tenant={q} AND user_id={q} AND category={q}"
        f" AND key={q} AND active=1 AND {same_agent.sql}",
        (row.tenant, row.user_id, row.category, row.key, *same_agent.args),
    ).fetchone()
    old = profile_fact(cur) if cur else None
    decision = decide(old, int(cur["observed_seq"]) if cur else 0)
    if decision == "NONE":
        return decision, old
    if decision == "END" and old is not None:
        c.execute(
            f"UPDATE profile_facts SET active=0, updated_at={q}, superseded_at={q} WHERE id={q}",
            (now, row.observed_at or now, old.id),
        )
        ended = _fact(c, old.id)
        _history(c, ended, "DELETE", fact_snapshot(old), fact_snapshot(ended), actor, row, now)
        return decision, None
    if decision == "REFRESH" and old is not None:
        sources = list(dict.fromkeys([*old.source_message_ids, *row.source_message_ids]))
        c.execute(
            f"UPDATE profile_facts SET confidence={d.greatest}(confidence, {q}),"
            f" importance={d.greatest}(importance, {q}), source_message_ids={q},"
            f" updated_at={q} WHERE id={q}",
            (row.confidence, row.importance, json.dumps(sources), now, old.id),
        )
        new = _fact(c, old.id)
        _history(c, new, "UPDATE", fact_snapshot(old), fact_snapshot(new), actor, row, now)
        return decision, new
    if old is not None:
        c.execute(
            f"UPDATE profile_facts SET active=0, updated_at={q}, superseded_at={q} WHERE id={q}",
            (now, row.observed_at or now, old.id),
        )
    c.execute(
        "INSERT INTO profile_facts (id, tenant, user_id, category, key, value, confidence,"
        " importance, active, source_message_ids, created_at, updated_at, observed_at,"
        f" observed_seq, agent_id) VALUES ({d.marks(8)}, 1, {d.marks(6)})",
        (
            row.id,
            row.tenant,
            row.user_id,
            row.category,
            row.key,
            row.value,
            row.confidence,
            row.importance,
            json.dumps(row.source_message_ids),
            now,
            now,
            row.observed_at,
            row.observed_seq,
            row.agent_id,
        ),
    )
    new = _fact(c, row.id)
    event: ProfileDecision = "ADD" if old is None else "UPDATE"
    before = None if old is None else {**fact_snapshot(old), "active": False}
    _history(c, new, event, before, fact_snapshot(new), actor, row, now)
    return event, new


def _fact(c: Tx, fact_id: str) -> ProfileFact:
    sql = f"SELECT * FROM profile_facts WHERE id={c.dialect.mark}"
    return profile_fact(c.execute(sql, (fact_id,)).fetchone())


def _history(
    c: Tx,
    fact: ProfileFact,
    event: str,
    old: dict[str, Any] | None,
    new: dict[str, Any],
    actor: str,
    row: NewProfileFact,
    now: str,
) -> None:
    if row.note:
        new = {**new, "note": row.note}
    c.execute(
        "INSERT INTO history (tenant, user_id, memory_id, event, old, new, actor, at,"
        f" source_message_ids) VALUES ({c.dialect.marks(9)})",
        (
            fact.tenant,
            fact.user_id,
            fact.id,
            event,
            None if old is None else json.dumps(old),
            json.dumps(new),
            actor,
            now,
            json.dumps(row.source_message_ids),
        ),
    )


def profile_history(c: Tx, tenant: str, user_id: str) -> list[Row]:
    """History rows of every profile fact of a user, oldest first."""
    d = c.dialect
    q = d.mark
    found = c.execute(
        f"SELECT id FROM profile_facts WHERE tenant={q} AND user_id={q}", (tenant, user_id)
    )
    fact_ids = [r[0] for r in found]
    if not fact_ids:
        return []
    return c.execute(
        f"SELECT * FROM history WHERE tenant={q}"
        f" AND memory_id IN ({d.marks(len(fact_ids))}) ORDER BY rowid",
        [tenant, *fact_ids],
    ).fetchall()


def evict_oldest(c: Tx, e: Eviction, now: str) -> tuple[list[str], list[str]]:
    """Take the oldest entries of a conversation out of the working set until at most
    ``max_entries`` remain. Entries are live turns plus live memories of ``kinds``; turns get
    ``evicted_at`` (the row stays), memories are soft-deleted. Returns (message ids, memory ids).
    """
    d = c.dialect
    q = d.mark
    conversation = (e.tenant, e.user_id, e.session_id)
    entries = c.execute(
        "SELECT 'm' AS t, id, created_at, seq AS pos FROM messages"
        f" WHERE tenant={q} AND user_id={q} AND session_id={q} AND {kept(MESSAGE)}"
        " UNION ALL SELECT 'x', id, created_at, rowid FROM memories"
        f" WHERE tenant={q} AND user_id={q} AND session_id={q} AND {kept(MEMORY)}"
        f" AND kind IN ({d.marks(len(e.kinds))})"
        " ORDER BY created_at, t, pos",
        [*conversation, *conversation, *e.kinds],
    ).fetchall()
    overflow = entries[: max(len(entries) - e.max_entries, 0)]
    msg_ids = [r["id"] for r in overflow if r["t"] == "m"]
    mem_ids = [r["id"] for r in overflow if r["t"] == "x"]
    for start in range(0, len(msg_ids), 500):
        chunk = msg_ids[start : start + 500]
        c.execute(
            f"UPDATE messages SET evicted_at={q} WHERE id IN ({d.marks(len(chunk))})",
            [now, *chunk],
        )
    return msg_ids, mem_ids
