"""Statements of "as of" reads (both dialects): the version of each memory that was current at
a time T, and the condition selecting the profile facts current at T.

A memory's version at T is read from ``history``: when an UPDATE or DELETE of the memory was
recorded after T, the ``old`` snapshot of the first such event is the memory as it stood at T;
otherwise the live row is (and a memory deleted at or before T is gone at T). A memory exists
at T when its ``created_at`` (the time the caller gave, else the clock) is at or before T.

A profile fact is current at T when it was observed at or before T (``observed_at``, else
``created_at``) and not superseded by then (``superseded_at`` NULL or after T; migration 0013
backfills it for facts replaced before that column existed).
"""

from __future__ import annotations

import json
from typing import Any

from mnemo.storage.base import MemoryVersion
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.expiry import live
from mnemo.storage.sql.tx import Tx


def memory_versions(
    c: Tx, tenant: str, user_id: str, at: str, *, live_at: str
) -> list[MemoryVersion]:
    """The memories of a user created at or before ``at`` that were updated or deleted after
    it, each in its version current at ``at``; a memory expired at ``live_at`` (the store
    clock's now) is left out, as every read leaves it out."""
    q = c.dialect.mark
    found = c.execute(
        "SELECT m.rowid, m.id, m.created_at, m.user_id, m.source_message_ids, m.agent_id, h.old"
        " FROM history h JOIN memories m ON m.tenant = h.tenant AND m.id = h.memory_id"
        f" WHERE h.tenant={q} AND h.user_id={q} AND h.event IN ('UPDATE', 'DELETE')"
        f" AND h.at > {q} AND m.created_at <= {q} AND {live(c.dialect, 'm.expires_at')}"
        " ORDER BY h.rowid",
        (tenant, user_id, at, at, live_at),
    ).fetchall()
    out: dict[int, MemoryVersion] = {}
    for r in found:
        if r["rowid"] in out or r["old"] is None:
            continue  # the first change after ``at`` holds the version current at ``at``
        old = json.loads(r["old"])
        out[r["rowid"]] = MemoryVersion(
            r["rowid"],
            {
                "id": r["id"],
                "kind": old["kind"],
                "content": old["content"],
                "created_at": r["created_at"],
                "user_id": r["user_id"],
                "agent_id": r["agent_id"],  # an item's agent never changes
                "session_id": old.get("session_id"),
                "role": None,
                "name": None,
                "metadata": old.get("metadata") or {},
                "tags": old.get("tags") or [],
                "source_message_ids": json.loads(r["source_message_ids"]),
                "seq": None,
            },
        )
    return list(out.values())


def current_fact(d: Dialect, at: str) -> tuple[str, list[Any]]:
    """The condition (and its arguments) of the profile facts current at ``at``."""
    q = d.mark
    return (
        f"coalesce(observed_at, created_at) <= {q}"
        f" AND (superseded_at IS NULL OR superseded_at > {q})",
        [at, at],
    )


__all__ = ["current_fact", "memory_versions"]
