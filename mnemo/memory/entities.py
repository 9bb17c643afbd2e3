"""A user's entity index, for :class:`mnemo.Memory`: ``entities(user_id)``, and
``entity(user_id, name_or_id)``: "what do we know about Raj" (the entity, the live facts that
name it, the turns that mention it).

The index is written by the background fact job (:mod:`mnemo.tiers.entities.tier`); here it
is only read. A name is resolved as a search resolves it (:mod:`mnemo.index.entities`: case
and possessive blind, by name before alias).
"""

from __future__ import annotations

import builtins
import dataclasses

from mnemo import validation as check
from mnemo.errors import NotFoundError, ValidationError
from mnemo.index.entities import dictionary, match_text
from mnemo.memory.tenant import TenantService
from mnemo.schemas import Entity, EntityDetail, MemoryItem, Message
from mnemo.storage.base import ListFilter
from mnemo.storage.ports.entities import ENTITY_PREFIX, EntityLookup, EntityRecord
from mnemo.storage.scope import ReadScope

#: The newest live facts of a user read for those that name an entity.
FACT_SCAN = 2000
#: The most turns an entity's detail lists (its newest).
MAX_TURNS = 100


def entity_of(r: EntityRecord) -> Entity:
    """The public record of a stored entity."""
    fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(r)}
    return Entity.model_validate(fields | {"aliases": list(r.aliases)})


def resolve(records: tuple[EntityRecord, ...], name_or_id: str) -> EntityRecord | None:
    """The entity ``name_or_id`` names: by id, else the one the text names first (by name
    before alias), else None."""
    by_id = {r.id: r for r in records}
    if name_or_id in by_id:
        return by_id[name_or_id]
    matches = match_text(name_or_id, dictionary(records))
    best = sorted(matches, key=lambda m: not m.by_name)
    return by_id[best[0].entity_id] if best else None


class Entities(TenantService):
    """The entity index of one tenant's users (read only)."""

    def entities(self, user_id: str) -> builtins.list[Entity]:
        """The people, pets, places, organisations and things ``user_id`` talks about, the
        most mentioned first (an empty list before the fact job has run)."""
        user_id = check.identifier(user_id, "user_id")
        view = self.store.entities.entity_view(EntityLookup(self.tenant, user_id))
        return [entity_of(r) for r in view.entities]

    def entity(self, user_id: str, name_or_id: str) -> EntityDetail:
        """What is known about one entity of ``user_id``, named by its id, its name or an
        alias ("Raj", "raj's", "my husband"): the entity, the user's live facts that name it
        and the turns that mention it (the newest ``MAX_TURNS``), oldest first.
        NotFoundError when no entity of the user has that id, name or alias."""
        user_id = check.identifier(user_id, "user_id")
        if not isinstance(name_or_id, str) or not name_or_id.strip():
            raise ValidationError("name_or_id must be a non-empty string")
        index = self.store.entities.entity_view(EntityLookup(self.tenant, user_id))
        found = resolve(index.entities, name_or_id.strip())  # counted: the entity shows it
        if found is None:
            what = "id" if name_or_id.startswith(ENTITY_PREFIX) else "name"
            raise NotFoundError(f"user {user_id!r} has no entity of that {what}: {name_or_id!r}")
        view = self.store.entities.entity_view(EntityLookup(self.tenant, user_id, entity=found.id))
        return EntityDetail(
            entity=entity_of(found),
            facts=self._facts(user_id, found),
            turns=self._turns(view.turns[-MAX_TURNS:]),
        )

    def _facts(self, user_id: str, found: EntityRecord) -> builtins.list[MemoryItem]:
        """The user's live facts that name ``found`` (its name or an alias), oldest first."""
        names = dictionary([found])
        scope = ReadScope(self.tenant, user_id, kinds=("fact",))
        facts = self.store.rows.list_memories(ListFilter(scope, limit=FACT_SCAN))
        return sorted(
            (f for f in facts if match_text(f.content, names)), key=lambda f: f.created_at
        )

    def _turns(self, ids: tuple[str, ...]) -> builtins.list[Message]:
        """The stored turns of ``ids``, in that order."""
        found = (self.store.rows.get_message(self.tenant, i) for i in ids)
        return [m for m in found if m is not None]


__all__ = ["FACT_SCAN", "MAX_TURNS", "Entities", "entity_of", "resolve"]
