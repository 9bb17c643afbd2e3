"""The entity index, kept by the background fact job: after the fact tier has run on a
``turns.facts`` job, the job's user turns are read for the entities they name
(:func:`~mnemo.text.entity_rules.detect_entities`, the one detector) and the user's index
gains them and their mentions (``store.entities.record_entities``).

It runs in the job (the worker, or ``drain()``), never inside ``add_messages`` or a search.
A re-run of a job writes nothing new (an entity's id is its user and name; a mention is
written once). Without a fact job (``fact_extraction = "off"``) there is no entity index.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from mnemo.index.entities import dictionary, match_text
from mnemo.schemas import Message
from mnemo.storage.ports.entities import EntityLookup, EntityRecord, EntityWrite, entity_id
from mnemo.storage.ports.unions import EntityTierStore
from mnemo.text.entity_rules import Detected, detect_entities, merged
from mnemo.tiers.facts.tier import JOB_KIND

Handler = Callable[[dict[str, Any]], Any]
#: The roles whose turns are read for mentions of the entities the index knows.
READ_ROLES = frozenset({"user", "assistant"})


def detects(m: Message) -> bool:
    """Whether a turn may add entities to the index: what the user says, and what a named
    speaker says (a person in the conversation), not an unnamed assistant (a model that may
    list places the user never spoke of); any read turn may mention a known one."""
    return m.role == "user" or (m.role == "assistant" and bool(m.name))


class EntityTier:
    """The fact tier's ``turns.facts`` handler (``facts``: the handlers registered so far),
    followed by the entity index of its turns; no handler without a fact tier."""

    def __init__(self, store: EntityTierStore, tenant: str, facts: Mapping[str, Handler]):
        self.store, self.tenant, self.facts = store, tenant, facts

    def handlers(self) -> dict[str, Handler]:
        """The fact tier's handlers, ``turns.facts`` indexing entities after the facts."""
        out = dict(self.facts)
        fact_job = out.get(JOB_KIND)
        if fact_job is None:
            return out

        def facts_then_entities(payload: dict[str, Any]) -> Any:
            done = fact_job(payload)
            self.index([i for i in payload.get("message_ids", []) if isinstance(i, str)])
            return done

        out[JOB_KIND] = facts_then_entities
        return out

    def index(self, message_ids: list[str]) -> int:
        """Record the entities the turns among ``message_ids`` name, per user: those
        :func:`detect_entities` finds by their cues (in the turns that :func:`detects`), and
        those the user's index already knows, by name (capitalised) or alias
        (:func:`match_text`); how many mentions were new."""
        by_user: defaultdict[str, list[Message]] = defaultdict(list)
        for m in self._turns(message_ids):
            by_user[m.user_id].append(m)
        new = 0
        for user_id, turns in by_user.items():
            detected = {m.id: detect_entities(m.content) if detects(m) else [] for m in turns}
            lookup = EntityLookup(self.tenant, user_id, counted=False)
            known = self.store.entities.entity_view(lookup)
            records = {e.id: e for e in known.entities}
            for d in (d for found in detected.values() for d in found):
                e = self._unstored(user_id, d)
                records.setdefault(e.id, e)
            names = dictionary(records.values())
            found: dict[str, tuple[Detected, ...]] = {}
            for m in turns:
                named = [
                    Detected(records[x.entity_id].name, records[x.entity_id].kind)
                    for x in match_text(m.content, names, cased=True)
                    if x.entity_id in records
                ]
                if both := merged(detected[m.id] + named):
                    found[m.id] = tuple(both)
            if found:
                write = EntityWrite(self.tenant, user_id, found)
                new += self.store.entities.record_entities(write)
        return new

    def _unstored(self, user_id: str, d: Detected) -> EntityRecord:
        """A detected entity as the record it will be (other turns of the job may name it)."""
        key = entity_id(self.tenant, user_id, d.name)
        return EntityRecord(key, self.tenant, user_id, d.name, d.kind, d.aliases, 0, "", "")

    def _turns(self, message_ids: list[str]) -> list[Message]:
        """The stored turns of :data:`READ_ROLES` among ``message_ids`` (an erased user's
        are gone)."""
        found = (self.store.rows.get_message(self.tenant, i) for i in message_ids)
        return [m for m in found if m is not None and m.role in READ_ROLES]


__all__ = ["READ_ROLES", "EntityTier", "detects"]
