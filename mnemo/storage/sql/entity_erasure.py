"""What erasing turns leaves of the entity index: an entity no stored turn mentions any more
is forgotten, so a name known only from erased (or expired) turns does not stay behind."""

from __future__ import annotations

from collections.abc import Iterable

from mnemo.storage.sql.tx import Tx


def forget_unmentioned(c: Tx, users: Iterable[tuple[str, str]]) -> int:
    """Delete the entities of each (tenant, user) that no mention points at; how many."""
    q, n = c.dialect.mark, 0
    for tenant, user_id in users:
        cur = c.execute(
            f"DELETE FROM entities WHERE tenant={q} AND user_id={q} AND NOT EXISTS"
            " (SELECT 1 FROM entity_mentions m WHERE m.entity_id = entities.id)",
            (tenant, user_id),
        )
        n += max(cur.rowcount, 0)
    return n


__all__ = ["forget_unmentioned"]
