"""mem0's shapes of mnemo's records: a memory as mem0's item, a change as a row of mem0's
history table, mem0's ``messages`` as mnemo turns, and the caller's metadata kept apart from
the keys mnemo and this layer write into a memory's metadata."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mnemo.errors import ValidationError
from mnemo.schemas import HistoryEntry, MemoryItem

#: The session of turns added without a ``run_id`` (shown as no ``run_id``).
DEFAULT_SESSION = "default"
#: The metadata key of a memory standing for one turn added through this layer: the turn's id.
TURN = "mem0_turn"
#: The metadata key marking such a memory as a turn of an inferred add (out of ``get_all``).
INFERRED = "mem0_inferred"
#: The metadata key of a stand-in the caller rewrote: the turn it no longer stands for.
REWRITTEN = "mem0_rewritten"
#: The metadata keys mnemo's engine and this layer write, never shown as the caller's: the
#: fact tier's provenance (``extracted_by``, ``mode``, ``fallback``) and this layer's own.
ENGINE_KEYS = frozenset({"extracted_by", "mode", "fallback", TURN, INFERRED, REWRITTEN})
#: The keys of a mem0 message that become the turn's (``created_at`` is mnemo's: the time it
#: was said, when the caller knows it).
MESSAGE_KEYS = ("role", "content", "name", "created_at")


def _time(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def caller_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The caller's part of a memory's metadata: every key but :data:`ENGINE_KEYS`."""
    return {k: v for k, v in metadata.items() if k not in ENGINE_KEYS}


def engine_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's part of a memory's metadata (:data:`ENGINE_KEYS`), kept across a mem0
    ``update`` that replaces the caller's."""
    return {k: v for k, v in metadata.items() if k in ENGINE_KEYS}


def checked_metadata(metadata: Any) -> dict[str, Any] | None:
    """mem0's ``metadata`` argument: a dict (or None); anything else is a ValidationError."""
    if metadata is not None and not isinstance(metadata, Mapping):
        raise ValidationError(f"metadata must be an object, got {type(metadata).__name__}")
    return None if metadata is None else dict(metadata)


def item(m: MemoryItem, score: float | None = None, with_score: bool = False) -> dict[str, Any]:
    """A memory in mem0's item shape: ``id``, ``memory``, ``hash`` (md5 of the text, as mem0
    computes it), ``metadata`` (the caller's, None when empty), ``created_at``,
    ``updated_at`` (ISO 8601), ``score`` when ``with_score``, and ``user_id`` / ``agent_id``
    / ``run_id`` when set."""
    out: dict[str, Any] = {
        "id": m.id,
        "memory": m.content,
        "hash": hashlib.md5(m.content.encode("utf-8")).hexdigest(),
        "metadata": caller_metadata(m.metadata) or None,
    }
    if with_score:
        out["score"] = score
    out["created_at"] = _time(m.created_at)
    out["updated_at"] = _time(m.updated_at)
    run = None if m.session_id == DEFAULT_SESSION else m.session_id
    for key, value in (("user_id", m.user_id), ("agent_id", m.agent_id), ("run_id", run)):
        if value:  # an agent's own memory has the reserved empty user key: no user_id
            out[key] = value
    return out


def history_row(h: HistoryEntry) -> dict[str, Any]:
    """A history entry in the shape of mem0's history table: ``id``, ``memory_id``,
    ``old_memory``, ``new_memory``, ``event``, ``created_at``, ``updated_at``, ``is_deleted``,
    ``actor_id``, ``role``."""
    return {
        "id": str(h.id),
        "memory_id": h.memory_id,
        "old_memory": (h.old or {}).get("content"),
        "new_memory": (h.new or {}).get("content"),
        "event": h.event,
        "created_at": _time(h.at),
        "updated_at": _time(h.at) if h.event != "ADD" else None,
        "is_deleted": int(h.event == "DELETE"),
        "actor_id": None,
        "role": None,
    }


def turns(messages: Any) -> list[dict[str, Any]]:
    """mem0's ``messages`` (a string, one message dict or a list of them) as mnemo turns
    (their :data:`MESSAGE_KEYS`)."""
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    elif isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise ValidationError("messages must be str, dict, or list[dict]")
    if not messages:
        raise ValidationError("messages is empty: nothing to add")
    return [{k: m[k] for k in MESSAGE_KEYS if k in m} for m in messages]


__all__ = [
    "DEFAULT_SESSION",
    "ENGINE_KEYS",
    "INFERRED",
    "MESSAGE_KEYS",
    "REWRITTEN",
    "TURN",
    "caller_metadata",
    "checked_metadata",
    "engine_metadata",
    "history_row",
    "item",
    "turns",
]
