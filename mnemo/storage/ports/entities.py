"""The entities port (``store.entities``): a user's entity index, written by the background
fact job (:mod:`mnemo.tiers.entities`) and read by the surfaces and the ranking.

An entity is one name a user talks about (a person, pet, place, organisation or thing), its
aliases and the turns that mention it. Its id is stable (:func:`entity_id`): the same user
and name give the same id, so a job that writes a name twice writes it once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from mnemo.ids import stable_id
from mnemo.text.entity_rules import Detected

#: Every entity id starts with it.
ENTITY_PREFIX = "ent_"


def entity_id(tenant: str, user_id: str, name: str) -> str:
    """The id of the entity ``name`` (compared case-blind) of one user."""
    return stable_id(ENTITY_PREFIX, tenant, user_id, name.lower())


@dataclass(frozen=True)
class EntityRecord:
    """One stored entity: who it belongs to, its name, kind and aliases, how many turns
    mention it, and when it was first and last seen (times in the store's text form)."""

    id: str
    tenant: str
    user_id: str
    name: str
    kind: str
    aliases: tuple[str, ...]
    mentions: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class EntityWrite:
    """What the fact job found in a user's turns: each turn's id -> the entities it names
    (turns naming none may be left out)."""

    tenant: str
    user_id: str
    found: Mapping[str, tuple[Detected, ...]]


@dataclass(frozen=True)
class EntityLookup:
    """What to read of a user's entity index: every entity, the entities each of
    ``message_ids`` mentions, and (``entity``, an id) the turns that mention that one. With
    ``counted`` False the entities' ``mentions`` are 0 and come in no particular order (the
    counts cost a pass over the user's mentions: the job and a search need none)."""

    tenant: str
    user_id: str
    message_ids: tuple[str, ...] = ()
    entity: str | None = None
    counted: bool = True


@dataclass(frozen=True)
class EntityView:
    """A user's entities (most mentioned first), the entities each asked turn mentions (turn
    id -> entity ids; turns that mention none left out) and the ids of the turns mentioning
    the asked entity, oldest first."""

    entities: tuple[EntityRecord, ...]
    mentions: Mapping[str, frozenset[str]] = field(default_factory=dict)
    turns: tuple[str, ...] = ()


class EntityStore(Protocol):
    """A user's entity index: written by the fact job, read in one snapshot."""

    def record_entities(self, write: EntityWrite) -> int:
        """Add the entities of ``write`` (a name seen before gains the new aliases, and the
        stronger kind, :data:`~mnemo.text.entity_rules.ENTITY_KINDS`) and their mentions,
        under the user's lock (a job's write after its user was erased raises
        ``UserErased``); how many mentions were new."""
        ...

    def entity_view(self, lookup: EntityLookup) -> EntityView:
        """What ``lookup`` asks of one user's index, from one snapshot."""
        ...


class HasEntities(Protocol):
    """A store's entity index (``store.entities``)."""

    @property
    def entities(self) -> EntityStore:
        """The per-user index of entities and the turns that mention them."""
        ...


__all__ = [
    "ENTITY_PREFIX",
    "EntityLookup",
    "EntityRecord",
    "EntityStore",
    "EntityView",
    "EntityWrite",
    "HasEntities",
    "entity_id",
]
