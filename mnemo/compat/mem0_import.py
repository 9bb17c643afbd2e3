"""Bring a mem0 store's memories into mnemo: :func:`import_mem0` reads what mem0's
``get_all`` returns (``{"results": [item, ...]}``, a bare list of items, or a JSON file of
either) and stores each item as a mnemo memory, keeping

* its scope: ``user_id``, ``agent_id`` (private to that agent, or the agent's own memory
  without a user) and ``run_id`` (the session);
* its metadata, with mem0's id added as ``metadata["mem0_id"]``, by which
  :class:`mnemo.compat.mem0.Memory` still finds it (``m.get(<mem0 id>)``, ``update``,
  ``delete``, ``history``);
* its ``created_at`` (mnemo sets ``updated_at`` to the time of the import).

Checked first: every item is validated before the first one is written, so a bad item 251
writes nothing. Safe to re-run: an item whose ``mem0_id`` is already stored in its scope is
skipped, so a run killed halfway is finished by running it again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.memory.facade import Memory

#: The metadata key holding a memory's mem0 id.
MEM0_ID = "mem0_id"


@dataclass
class Mem0Import:
    """What :func:`import_mem0` did: memories ``imported`` and ``skipped`` (already there)."""

    imported: int = 0
    skipped: int = 0


def mem0_items(source: Any) -> list[dict[str, Any]]:
    """The items of a mem0 dump: ``{"results": [...]}``, a list, or the path of a JSON file
    holding either; ValidationError naming the first bad item."""
    if isinstance(source, str | Path):
        try:
            source = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValidationError(f"cannot read the mem0 dump {str(source)!r}: {exc}") from None
    if isinstance(source, Mapping):
        source = source.get("results")
    if not isinstance(source, list):
        raise ValidationError('a mem0 dump is {"results": [...]} or a list of memories')
    for n, raw in enumerate(source):
        where = f"mem0 item {n}"
        if not isinstance(raw, Mapping):
            raise ValidationError(f"{where} is not an object")
        if not isinstance(raw.get("id"), str) or not raw["id"].strip():
            raise ValidationError(f"{where} has no id")
        if not isinstance(raw.get("memory"), str) or not raw["memory"].strip():
            raise ValidationError(f"{where} ({raw['id']}) has no memory text")
        if not raw.get("user_id") and not raw.get("agent_id"):
            raise ValidationError(f"{where} ({raw['id']}) has neither user_id nor agent_id")
        if raw.get("metadata") is not None and not isinstance(raw["metadata"], Mapping):
            raise ValidationError(f"{where} ({raw['id']}) has metadata that is not an object")
        for key in ("user_id", "agent_id", "run_id"):
            if raw.get(key):
                check.identifier(str(raw[key]), f"{where}.{key}")
        check.created_text(raw.get("created_at"), f"{where}.created_at")
    return [dict(raw) for raw in source]


def import_mem0(
    memory: Memory, source: Any, *, progress: Callable[[int], None] | None = None
) -> Mem0Import:
    """Store the memories of a mem0 dump (see the module docstring) in ``memory``'s tenant;
    nothing is written when any item is bad. ``progress(1)`` is called after each item."""
    done = Mem0Import()
    for raw in mem0_items(source):
        if _import_one(memory, raw):
            done.imported += 1
        else:
            done.skipped += 1
        if progress is not None:
            progress(1)
    return done


def _import_one(memory: Memory, raw: Mapping[str, Any]) -> bool:
    """Store one checked mem0 item; False when its mem0 id is already stored in its scope."""
    user, agent = raw.get("user_id") or None, raw.get("agent_id") or None
    mem0_id = raw["id"].strip()
    if memory.count(user, agent_id=agent, filters={MEM0_ID: mem0_id}):
        return False
    memory.add(
        raw["memory"],
        user,
        session_id=raw.get("run_id") or None,
        metadata={**(raw.get("metadata") or {}), MEM0_ID: mem0_id},
        created_at=raw.get("created_at"),
        agent_id=agent,
        actor="mem0-import",
    )
    return True


__all__ = ["MEM0_ID", "Mem0Import", "import_mem0", "mem0_items"]
