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

from mnemo.memory_fields import MemoryField
from mnemo.storage.base import MemoryVersion
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.expiry import live
from mnemo.storage.sql.rows import HIT_FIELDS, TURN_ONLY, loaded
from mnemo.storage.sql.tx import Row, Tx

#: The hit fields a version reads from the live row (history does not record them).
LIVE_COLUMNS = ", ".join(f"m.{f.column} AS {f.name}" for f in HIT_FIELDS if not f.history)


def memory_versions(
    c: Tx, tenant: str, user_id: str, at: str, *, live_at: str
) -> list[MemoryVersion]:
    """The memories of a user created at or before ``at`` that were updated or deleted after
    it, each in its version current at ``at``; a memory expired at ``live_at`` (the store
    clock's now) is left out, as every read leaves it out."""
    q = c.dialect.mark
    found = c.execute(
        f"SELECT m.rowid, {LIVE_COLUMNS}, h.old"
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
        fields = {f.name: version_value(f, r, old) for f in HIT_FIELDS}
        out[r["rowid"]] = MemoryVersion(r["rowid"], {**fields, **TURN_ONLY})
    return list(out.values())


def version_value(f: MemoryField, r: Row, old: dict[str, Any]) -> Any:
    """A hit field of a memory's version: from its history snapshot ``old`` when history
    records the field (none there: the field's empty value), else from the live row ``r``
    (the fields no change touches: id, user, agent, creation time, sources)."""
    if not f.history:
        return loaded(f, r[f.name])
    value = old.get(f.name)
    return f.empty() if value is None else value


def current_fact(d: Dialect, at: str) -> tuple[str, list[Any]]:
    """The condition (and its arguments) of the profile facts current at ``at``."""
    q = d.mark
    return (
        f"coalesce(observed_at, created_at) <= {q}"
        f" AND (superseded_at IS NULL OR superseded_at > {q})",
        [at, at],
    )


__all__ = ["LIVE_COLUMNS", "current_fact", "memory_versions", "version_value"]
