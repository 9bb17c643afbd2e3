"""mem0's OSS ``Memory`` API over a mnemo store: change ``from mem0 import Memory`` to
``from mnemo.compat.mem0 import Memory`` and the rest of the code runs.

The names, arguments and return shapes are mem0's (``mem0/memory/main.py``):

* ``add(messages, user_id=, agent_id=, run_id=, metadata=, infer=)`` ->
  ``{"results": [{"id", "memory", "event"}]}``, ``event`` one of ADD, UPDATE, DELETE (and
  ``previous_memory`` on an UPDATE or DELETE, as mem0 gives);
* ``search(query, filters=, top_k=, threshold=)`` and ``get_all(filters=, top_k=)`` ->
  ``{"results": [item, ...]}``; an item is ``{"id", "memory", "hash", "metadata",
  "created_at", "updated_at"}`` plus ``"score"`` in a search, and ``user_id`` / ``agent_id`` /
  ``run_id`` when the memory has them; mem0 1.x's top-level ``user_id=`` / ``agent_id=`` /
  ``run_id=`` and ``limit=`` are accepted too;
* ``get(id)`` (an item, or None), ``update(id, text=|data=, metadata=)``, ``delete(id)``,
  ``delete_all(user_id=, agent_id=, run_id=)`` -> ``{"message": ...}``; ``history(id)`` -> mem0's
  history rows; ``reset()`` erases the whole tenant.

How the scopes map (:mod:`mnemo.compat.mem0_scope`): as in mem0, a filter is a conjunction
over ``user_id``, ``agent_id``, ``run_id`` and the metadata, so ``{"user_id": U, "agent_id":
A}`` is only U's memories stored with A, ``{"agent_id": A}`` every memory stored with A, and
``run_id`` (mnemo's ``session_id``) narrows search as it narrows ``get_all``; every other
filter key is a metadata key. Writes use mnemo's scopes (docs/memory-model.md, "Scopes"); a
run lives inside a user or an agent, so ``run_id`` alone is a ValidationError.

What a caller says is kept as conversation turns (:mod:`mnemo.compat.mem0_said`): each
message is a turn (its time, speaker and session) with a stand-in memory whose id the API
returns, and ``search`` reads the turns and the facts, so the turn signals apply and, with no
LLM, what was said stays searchable. With ``infer=True`` the fact tier then extracts and
*reconciles* facts with the user's existing ones, so an add can UPDATE or DELETE a memory
instead of stacking a contradicting one; the events returned are the changes that add made.
``score`` is mnemo's calibrated relevance and ``threshold`` cuts on it (the default is no
threshold). The caller's metadata is shown without the keys mnemo's engine writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.compat.mem0_async_methods import AsyncMem0Methods
from mnemo.compat.mem0_memory import Memory
from mnemo.compat.mem0_scope import Mem0Scope
from mnemo.compat.mem0_shapes import history_row, item, turns


class AsyncMemory(AsyncMem0Methods):
    """mem0's ``AsyncMemory``: :class:`Memory` with every method awaitable, generated from
    it by ``scripts/gen_async.py`` (the same names, arguments, results and exceptions, each
    call on a thread of this object's pool; see :mod:`mnemo.memory.threaded`)."""

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> AsyncMemory:
        """:meth:`Memory.from_config`, served awaitable (a classmethod, as in mem0)."""
        return cls.wrap(Memory.from_config(config_dict))


__all__ = ["AsyncMemory", "Mem0Scope", "Memory", "history_row", "item", "turns"]
