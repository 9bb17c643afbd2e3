"""mem0's ``Memory`` over a mnemo store (the sync class; :mod:`mnemo.compat.mem0` is the
public module, and its docstring says how mem0's names, arguments and shapes map to mnemo's),
with the helpers that give mnemo's records mem0's shapes."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mnemo.compat.mem0_import import MEM0_ID
from mnemo.config.settings import Settings
from mnemo.errors import ConfigError, NotFoundError, ValidationError
from mnemo.ids import MEMORY_PREFIX
from mnemo.memory.facade import Memory as Mnemo
from mnemo.schemas import MEMORY_KINDS, HistoryEntry, Hit, MemoryItem

#: The largest listing one call reads (mnemo's listing window).
MAX_ROWS = 10_000
#: mem0 config keys that configure mem0's own providers; mnemo has its own settings.
MEM0_KEYS = frozenset(
    {"llm", "embedder", "vector_store", "graph_store", "history_db_path", "reranker", "version"}
)
#: The scope keys of a mem0 filter, taken out of it before the rest goes to mnemo.
SCOPE_KEYS = ("user_id", "agent_id", "run_id")

#: The session of turns added without a ``run_id`` (shown as no ``run_id``).
DEFAULT_SESSION = "default"


def _time(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def item(m: MemoryItem, score: float | None = None, with_score: bool = False) -> dict[str, Any]:
    """A memory in mem0's item shape: ``id``, ``memory``, ``hash`` (md5 of the text, as mem0
    computes it), ``metadata`` (None when empty), ``created_at``, ``updated_at`` (ISO 8601),
    ``score`` when ``with_score``, and ``user_id`` / ``agent_id`` / ``run_id`` when set."""
    out: dict[str, Any] = {
        "id": m.id,
        "memory": m.content,
        "hash": hashlib.md5(m.content.encode("utf-8")).hexdigest(),
        "metadata": dict(m.metadata) or None,
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
    """mem0's ``messages`` (a string, one message dict or a list of them) as mnemo turns."""
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    elif isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise ValidationError("messages must be str, dict, or list[dict]")
    if not messages:
        raise ValidationError("messages is empty: nothing to add")
    keep = ("role", "content", "name")
    return [{k: m[k] for k in keep if k in m} for m in messages]


def scope(
    user_id: Any, agent_id: Any, run_id: Any, filters: Mapping[str, Any] | None
) -> tuple[str | None, str | None, str | None, dict[str, Any] | None]:
    """``(user_id, agent_id, session_id, rest of filters)`` from mem0's arguments: the scope
    keys may come top-level (mem0 1.x) or in ``filters`` (mem0 2.x); at least a user or an
    agent is needed (mnemo keeps a run inside one)."""
    rest = dict(filters or {})
    ids: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
    for key in SCOPE_KEYS:
        if key in rest and not isinstance(rest[key], dict):
            given = rest.pop(key)
            if ids[key] is not None and ids[key] != given:
                raise ValidationError(f"{key} given twice with different values")
            ids[key] = given
        if ids[key] is not None:
            ids[key] = str(ids[key]).strip()
    if not ids["user_id"] and not ids["agent_id"]:
        raise ValidationError(
            "give user_id or agent_id (top-level or in filters); mnemo keeps a run_id inside "
            "a user or an agent, so run_id alone does not say whose memories these are"
        )
    return ids["user_id"] or None, ids["agent_id"] or None, ids["run_id"] or None, rest or None


def _limit(top_k: int | None, limit: int | None, default: int) -> int:
    n = top_k if top_k is not None else limit if limit is not None else default
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValidationError(f"top_k must be a non-negative integer, got {n!r}")
    return n


class Memory:
    """mem0's ``Memory`` over a mnemo store (:mod:`mnemo.compat.mem0` says how it maps).

    ``Memory()`` opens mnemo's default store (``MNEMO_PATH`` / ``MNEMO_DATABASE_URL``, the
    config file), as ``mnemo.Memory()`` does; keyword arguments are mnemo's
    (``Memory(path="x.db", embedder="hashing")``) and ``Memory(memory=m)`` serves an open
    ``mnemo.Memory``. ``.mnemo`` is the mnemo Memory underneath, for all mem0 does not have.

    >>> m = Memory(path=":memory:", embedder="hashing")
    >>> m.add("I like green tea", user_id="alice", infer=False)["results"][0]["event"]
    'ADD'
    >>> m.search("tea", filters={"user_id": "alice"}, top_k=1)["results"][0]["memory"]
    'I like green tea'
    """

    def __init__(self, *, memory: Mnemo | None = None, **settings: Any) -> None:
        if memory is not None and settings:
            raise ValidationError("give an open mnemo Memory or settings, not both")
        #: The mnemo Memory every call goes through.
        self.mnemo = memory if memory is not None else Mnemo(**settings)

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> Memory:
        """A Memory from mnemo settings (``{"path": ..., "embedder": ...}``, the names of
        docs/configuration.md). mem0's provider sections (``llm``, ``embedder`` as a dict,
        ``vector_store``, ...) are refused with a ConfigError: mnemo stores in its own
        SQLite or PostgreSQL database and takes its models from its own settings."""
        if not isinstance(config_dict, Mapping):
            raise ConfigError("from_config takes a dict of mnemo settings")
        foreign = sorted(
            k
            for k, v in config_dict.items()
            if k in MEM0_KEYS and (k != "embedder" or isinstance(v, Mapping))
        )
        if foreign:
            raise ConfigError(
                f"{foreign} configure mem0's own providers; mnemo takes its settings instead "
                "(path or database_url, embedder, llm_provider, ...: see "
                "docs/configuration.md and docs/coming-from-mem0.md)"
            )
        return cls(**dict(config_dict))

    def _id(self, memory_id: str) -> str:
        """mnemo's id of ``memory_id``: itself, or for the id of a memory imported from mem0
        (:mod:`mnemo.compat.mem0_import`, a UUID) the memory that keeps it as ``mem0_id``."""
        if not isinstance(memory_id, str) or memory_id.startswith(MEMORY_PREFIX):
            return memory_id
        found = self.mnemo.list(filters={MEM0_ID: memory_id}, limit=1)
        return found[0].id if found else memory_id

    @property
    def settings(self) -> Settings:
        """The mnemo settings in force."""
        return self.mnemo.settings

    # ---- writing ---------------------------------------------------------------------------
    def add(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        """Remember ``messages`` (a string, a message dict or a list of ``{role, content}``);
        ``{"results": [{"id", "memory", "event"}, ...]}``.

        ``infer=True``: the turns are stored (``run_id`` is their session) and the fact tier
        runs at once; the results are the memories it added, updated or deleted.
        ``infer=False``: each message is stored as a memory verbatim (one ADD each).
        ``memory_type`` (mem0's procedural memory) and ``prompt`` (mem0's extraction prompt)
        have no mnemo counterpart: a value is a ValidationError rather than ignored."""
        if memory_type is not None or prompt is not None:
            raise ValidationError(
                "memory_type and prompt are mem0 features mnemo does not have; mnemo's fact "
                "prompts are set by its settings (docs/coming-from-mem0.md)"
            )
        user, agent, run, _ = scope(user_id, agent_id, run_id, None)
        rows = turns(messages)
        if not infer:
            added = [
                self.mnemo.add(
                    str(m.get("content", "")),
                    user,
                    session_id=run,
                    metadata=metadata,
                    agent_id=agent,
                    actor="mem0-compat",
                )
                for m in rows
            ]
            return {"results": [{"id": a.id, "memory": a.content, "event": "ADD"} for a in added]}
        if metadata:
            rows = [{**m, "metadata": dict(metadata)} for m in rows]
        before = self._live(user, agent)
        self.mnemo.add_messages(rows, user, run or DEFAULT_SESSION, agent_id=agent)
        self.mnemo.drain()
        events = self._changes(before, self._live(user, agent))
        if metadata:  # mem0 puts the caller's metadata on the memories it writes
            for e in events:
                if e["event"] != "DELETE":
                    kept = self.mnemo.get_memory(e["id"]).metadata
                    self.mnemo.update(e["id"], metadata={**kept, **metadata}, actor="mem0-compat")
        return {"results": events}

    def _live(self, user: str | None, agent: str | None) -> dict[str, MemoryItem]:
        """The scope's live memories by id (the snapshot ``add`` diffs)."""
        found = self.mnemo.list(user, agent_id=agent, limit=MAX_ROWS)
        return {m.id: m for m in found}

    def _changes(
        self, before: dict[str, MemoryItem], after: dict[str, MemoryItem]
    ) -> list[dict[str, Any]]:
        """mem0's events between two snapshots: new ids ADD, changed text UPDATE (with
        ``previous_memory``), gone ids DELETE."""
        events: list[dict[str, Any]] = []
        for id, now in after.items():
            old = before.get(id)
            if old is None:
                events.append({"id": id, "memory": now.content, "event": "ADD"})
            elif old.content != now.content:
                events.append(
                    {"id": id, "memory": now.content, "event": "UPDATE",
                     "previous_memory": old.content}
                )  # fmt: skip
        for id, old in before.items():
            if id not in after and self._gone(id):  # not merely out of the listing window
                events.append({"id": id, "memory": old.content, "event": "DELETE"})
        return events

    def _gone(self, memory_id: str) -> bool:
        """Whether a memory is no longer live (deleted, or expired)."""
        try:
            self.mnemo.get_memory(memory_id)
        except NotFoundError:
            return True
        return False

    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
        data: str | None = None,
    ) -> dict[str, str]:
        """Change a memory's text (``text``, or mem0's older ``data``) and/or metadata;
        ``{"message": "Memory updated successfully!"}``. NotFoundError for an unknown id."""
        text = text if text is not None else data
        if text is None and metadata is None:
            raise ValidationError("At least one of text or metadata must be provided.")
        self.mnemo.update(self._id(memory_id), content=text, metadata=metadata, actor="mem0-compat")
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str) -> dict[str, str]:
        """Delete one memory (its history keeps it); ``{"message": ...}``."""
        self.mnemo.delete(self._id(memory_id), actor="mem0-compat")
        return {"message": "Memory deleted successfully!"}

    def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, str]:
        """Delete every memory of the scope (a user, an agent, a run of either); the turns
        stay (erase a user with ``self.mnemo.delete_user(user_id)``). ``{"message": ...}``."""
        user, agent, run, _ = scope(user_id, agent_id, run_id, None)
        self.mnemo.delete_all(user, agent_id=agent, session_id=run, actor="mem0-compat")
        return {"message": "Memories deleted successfully!"}

    def reset(self) -> None:
        """ERASE EVERYTHING OF THIS TENANT: every user's turns, memories, history and jobs,
        and every agent's own memories, for good (as ``mnemo.Memory.delete_user`` does; no
        undo). mem0's ``reset`` drops its whole collection; this is its counterpart, bounded
        by the tenant (other tenants of the store are untouched)."""
        while users := self.mnemo.users(limit=100):
            for u in users:
                self.mnemo.delete_user(u.user_id)
        while left := self.mnemo.list(limit=100):
            agents = {m.agent_id for m in left if m.agent_id}
            if not agents:
                break
            for agent in agents:
                self.mnemo.delete_agent(agent)

    # ---- reading ---------------------------------------------------------------------------
    def get(self, memory_id: str) -> dict[str, Any] | None:
        """One memory in mem0's item shape, or None when there is no such (live) memory."""
        try:
            found = self.mnemo.get_memory(self._id(memory_id))
        except NotFoundError:
            return None
        return item(found)

    def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """The scope's memories, newest first (at most ``top_k``, default 20 as in mem0);
        ``{"results": [item, ...]}``."""
        n = _limit(top_k, limit, 20)
        user, agent, run, rest = scope(user_id, agent_id, run_id, filters)
        if n == 0:
            return {"results": []}
        found = self.mnemo.list(user, agent_id=agent, session_id=run, filters=rest, limit=n)
        return {"results": [item(m) for m in found]}

    def search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        filters: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """The scope's memories most relevant to ``query``, best first (at most ``top_k``,
        default 20), with mnemo's hybrid search; ``{"results": [item with "score", ...]}``.
        ``threshold`` drops results scoring below it (mnemo's scores, not mem0's cosine)."""
        n = _limit(top_k, limit, 20)
        if threshold is not None and (
            isinstance(threshold, bool) or not isinstance(threshold, int | float)
        ):
            raise ValidationError(f"threshold must be a number, got {threshold!r}")
        user, agent, run, rest = scope(user_id, agent_id, run_id, filters)
        if n == 0:
            return {"results": []}
        hits = self.mnemo.search(
            query, user, run, n, kinds=MEMORY_KINDS, agent_id=agent, filters=rest
        )
        return {"results": [r for h in hits if (r := self._scored(h, threshold)) is not None]}

    def _scored(self, hit: Hit, threshold: float | None) -> dict[str, Any] | None:
        """A hit as a mem0 search result (None below ``threshold`` or gone meanwhile)."""
        if threshold is not None and hit.score < threshold:
            return None
        try:
            return item(self.mnemo.get_memory(hit.id), hit.score, with_score=True)
        except NotFoundError:
            return None

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """Every change of a memory, oldest first, as mem0's history rows."""
        return [history_row(h) for h in self.mnemo.history(self._id(memory_id))]

    def close(self) -> None:
        """Close the mnemo Memory underneath."""
        self.mnemo.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["DEFAULT_SESSION", "MAX_ROWS", "Memory", "history_row", "item", "scope", "turns"]
