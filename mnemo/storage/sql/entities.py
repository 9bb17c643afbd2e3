"""The entity index in SQL (``store.entities``): tables ``entities`` and ``entity_mentions``
(migration 0015); the port (:class:`~mnemo.storage.ports.entities.EntityStore`) documents
every method.

A mention is written only for a turn that is still stored, and an entity only with a mention:
a job that reads turns, then finds their user erased, writes nothing (and, inside a job, the
user's lock raises ``UserErased`` first). Erasure removes both tables' rows with the user
(:data:`~mnemo.storage.sql.stats.USER_TABLES`) and a turn's mentions with the turn.
"""

from __future__ import annotations

import json
from collections import defaultdict

from mnemo.storage.ports.entities import (
    EntityLookup,
    EntityRecord,
    EntityStore,
    EntityView,
    EntityWrite,
    entity_id,
)
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import reads, stamped
from mnemo.storage.sql.tx import Row, Tx
from mnemo.storage.sql.user_lock import lock_user
from mnemo.text.entity_rules import ENTITY_KINDS, Detected

#: How many ids go into one ``IN (...)`` list.
CHUNK = 500
_MENTION_COLUMNS = ("entity_id", "message_id", "tenant", "user_id")


def _record(r: Row) -> EntityRecord:
    return EntityRecord(
        id=r["id"],
        tenant=r["tenant"],
        user_id=r["user_id"],
        name=r["name"],
        kind=r["kind"],
        aliases=tuple(json.loads(r["aliases"])),
        mentions=int(r["n"]),
        created_at=r["created_at"],
        updated_at=r["updated_at"],
    )


def _stored_turns(c: Tx, write: EntityWrite) -> set[str]:
    """The turns of ``write`` still stored for its user."""
    q, ids, out = c.dialect.mark, list(write.found), set()
    for i in range(0, len(ids), CHUNK):
        chunk = ids[i : i + CHUNK]
        out |= {
            r[0]
            for r in c.execute(
                f"SELECT id FROM messages WHERE tenant={q} AND user_id={q}"
                f" AND id IN ({c.dialect.marks(len(chunk))})",
                [write.tenant, write.user_id, *chunk],
            )
        }
    return out


def _upsert(c: Tx, write: EntityWrite, d: Detected, now: str) -> str:
    """Write one detected entity (merged into the stored one of its name); its id."""
    q, key = c.dialect.mark, entity_id(write.tenant, write.user_id, d.name)
    old = c.execute(f"SELECT kind, aliases FROM entities WHERE id={q}", (key,)).fetchone()
    if old is None:
        c.execute(
            c.dialect.insert(
                "entities",
                ("id", "tenant", "user_id", "name", "kind", "aliases", "created_at", "updated_at"),
            ),
            (key, write.tenant, write.user_id, d.name, d.kind, json.dumps(d.aliases), now, now),
        )
        return key
    aliases = list(dict.fromkeys([*json.loads(old["aliases"]), *d.aliases]))
    kind = min(old["kind"], d.kind, key=ENTITY_KINDS.index)
    c.execute(
        f"UPDATE entities SET kind={q}, aliases={q}, updated_at={q} WHERE id={q}",
        (kind, json.dumps(aliases), now, key),
    )
    return key


def record(c: Tx, now: str, write: EntityWrite) -> int:
    """Write the entities and mentions of ``write`` (the port's ``record_entities``)."""
    lock_user(c, write.tenant, write.user_id)
    stored = _stored_turns(c, write)
    insert = c.dialect.insert_ignore("entity_mentions", _MENTION_COLUMNS)
    new = 0
    for message_id, found in write.found.items():
        if message_id not in stored:
            continue
        for d in found:
            key = _upsert(c, write, d, now)
            cur = c.execute(insert, (key, message_id, write.tenant, write.user_id))
            new += max(cur.rowcount, 0)
    return new


def view(c: Tx, lookup: EntityLookup) -> EntityView:
    """The entities, mentions and turns ``lookup`` asks for (the port's ``entity_view``)."""
    q, scope = c.dialect.mark, (lookup.tenant, lookup.user_id)
    counted = "(SELECT count(*) FROM entity_mentions m WHERE m.entity_id = e.id)"
    order = " ORDER BY n DESC, e.name" if lookup.counted else ""
    entities = tuple(
        _record(r)
        for r in c.execute(
            f"SELECT e.*, {counted if lookup.counted else '0'} AS n FROM entities e"
            f" WHERE e.tenant={q} AND e.user_id={q}{order}",
            scope,
        )
    )
    mentions: defaultdict[str, set[str]] = defaultdict(set)
    ids = list(dict.fromkeys(lookup.message_ids))
    for i in range(0, len(ids), CHUNK):
        chunk = ids[i : i + CHUNK]
        for r in c.execute(
            f"SELECT message_id, entity_id FROM entity_mentions WHERE tenant={q} AND user_id={q}"
            f" AND message_id IN ({c.dialect.marks(len(chunk))})",
            [*scope, *chunk],
        ):
            mentions[r[0]].add(r[1])
    turns: tuple[str, ...] = ()
    if lookup.entity is not None:
        turns = tuple(
            r[0]
            for r in c.execute(
                "SELECT m.message_id FROM entity_mentions m JOIN messages t"
                " ON t.id = m.message_id"
                f" WHERE m.tenant={q} AND m.user_id={q} AND m.entity_id={q}"
                " ORDER BY t.created_at, t.seq",
                (*scope, lookup.entity),
            )
        )
    return EntityView(entities, {k: frozenset(v) for k, v in mentions.items()}, turns)


class SQLEntities(SQLRole, EntityStore):
    """:class:`~mnemo.storage.ports.entities.EntityStore` over the store's core."""

    @stamped()
    def record_entities(self, c: Tx, now: str, write: EntityWrite) -> int:
        return record(c, now, write)

    @reads
    def entity_view(self, c: Tx, lookup: EntityLookup) -> EntityView:
        return view(c, lookup)


__all__ = ["SQLEntities", "record", "view"]
