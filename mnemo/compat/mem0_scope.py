"""mem0's scope and filters in mnemo's terms: what one mem0 read or write selects.

mem0 keeps ``user_id``, ``agent_id`` and ``run_id`` in each memory's payload and a filter is a
conjunction over that payload (``mem0/memory/main.py``: ``_build_filters_and_metadata``,
``search``, ``get_all``): ``{"user_id": "alice", "agent_id": "coach"}`` is exactly the memories
stored with both, ``{"agent_id": "coach"}`` every memory stored with that agent, whatever its
user, and ``run_id`` narrows every read. Every other filter key names a metadata key.

mnemo's own scopes differ (docs/memory-model.md, "Scopes": an agent sees the user's shared
memories too; an agent alone reads its own memories), so a :class:`Mem0Scope` reads through
mnemo's *user* scope only and says the rest as a filter: ``agent_id`` and ``session_id`` (the
run) conditions, and the caller's filter with its keys turned into mnemo's (``category`` ->
``metadata.category``, ``run_id`` -> ``session_id``). Writes use mnemo's scopes as they are
(a user and an agent is an item of the user private to the agent; an agent alone its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mnemo.errors import ValidationError

#: The scope keys of a mem0 filter, taken out of it before the rest goes to mnemo.
SCOPE_KEYS = ("user_id", "agent_id", "run_id")
#: mem0's logical keys, which hold filters rather than name a key.
LOGICAL = ("AND", "OR", "NOT")
#: What a call given none of the scope keys is told (mem0 refuses it the same way).
NO_IDS = (
    "at least one of user_id, agent_id or run_id must be given (top-level or in filters); "
    "mnemo needs user_id or agent_id among them"
)
#: What a call given a run_id alone is told.
NO_RUN_OWNER = (
    "give user_id or agent_id with run_id (top-level or in filters); mnemo keeps a run_id "
    "inside a user or an agent, so run_id alone does not say whose memories these are"
)
#: Keys of a mem0 filter that name a field of the memory rather than a metadata key.
FIELDS = {"agent_id": "agent_id", "run_id": "session_id", "created_at": "created_at",
          "updated_at": "updated_at"}  # fmt: skip


def mnemo_filter(mem0: Any, path: str = "filters") -> Any:
    """A mem0 filter with its keys in mnemo's filter language: a field key
    (:data:`FIELDS`) becomes the field, any other key the metadata key it names in mem0,
    logical keys recurse; values and operators are the same syntax. ``user_id`` stays as it
    is (mnemo refuses it inside a filter with a ValidationError: it is a scope)."""
    if isinstance(mem0, list):
        return [mnemo_filter(f, f"{path}[{i}]") for i, f in enumerate(mem0)]
    if not isinstance(mem0, Mapping):
        raise ValidationError(f"{path} must be an object such as {{'key': value}}, got {mem0!r}")
    out: dict[str, Any] = {}
    for key, value in mem0.items():
        if key in LOGICAL:
            out[key] = mnemo_filter(value, f"{path}.{key}")
        elif key == "user_id" or str(key).startswith("metadata."):
            out[key] = value
        else:
            out[FIELDS.get(key, f"metadata.{key}")] = value
    return out


@dataclass(frozen=True)
class Mem0Scope:
    """What a mem0 call names: ``user_id``, ``agent_id``, ``run_id`` (checked, stripped) and
    the rest of its filter (in mem0's syntax). At least a user or an agent is given."""

    user_id: str | None
    agent_id: str | None
    run_id: str | None
    rest: Mapping[str, Any] | None = None

    @classmethod
    def of(
        cls,
        user_id: Any = None,
        agent_id: Any = None,
        run_id: Any = None,
        filters: Any = None,
    ) -> Mem0Scope:
        """The scope of mem0's arguments: the scope keys may come top-level (mem0 1.x) or in
        ``filters`` (mem0 2.x); at least a user or an agent is needed (mnemo keeps a run
        inside one): a ValidationError says :data:`NO_IDS` when none is given, as mem0 does,
        :data:`NO_RUN_OWNER` for a run alone, and that an id is empty for one given as ``""``
        or blank. A ``filters`` that is not a dict is a ValidationError."""
        if filters is not None and not isinstance(filters, Mapping):
            raise ValidationError(
                f"filters must be an object such as {{'user_id': 'alice'}}, got {filters!r}"
            )
        rest = dict(filters or {})
        ids: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
        for key in SCOPE_KEYS:
            if key in rest and not isinstance(rest[key], Mapping):
                given = rest.pop(key)
                if ids[key] is not None and ids[key] != given:
                    raise ValidationError(f"{key} given twice with different values")
                ids[key] = given
            if ids[key] is not None:
                ids[key] = str(ids[key]).strip()
                if not ids[key]:
                    raise ValidationError(f"{key} is empty: give an id, or leave {key} out")
        if not ids["user_id"] and not ids["agent_id"]:
            raise ValidationError(NO_RUN_OWNER if ids["run_id"] else NO_IDS)
        return cls(ids["user_id"], ids["agent_id"], ids["run_id"], rest or None)

    def where(self, *extra: Mapping[str, Any]) -> dict[str, Any] | None:
        """The mnemo filter of a read inside the user (or across the tenant, for an agent
        alone): the agent and the run as conditions, the caller's filter, and ``extra``."""
        parts: list[Mapping[str, Any]] = []
        if self.agent_id is not None:
            parts.append({"agent_id": self.agent_id})
        if self.run_id is not None:
            parts.append({"session_id": self.run_id})
        if self.rest:
            parts.append(mnemo_filter(self.rest))
        parts.extend(extra)
        if not parts:
            return None
        return dict(parts[0]) if len(parts) == 1 else {"AND": parts}


__all__ = [
    "FIELDS",
    "LOGICAL",
    "NO_IDS",
    "NO_RUN_OWNER",
    "SCOPE_KEYS",
    "Mem0Scope",
    "mnemo_filter",
]
