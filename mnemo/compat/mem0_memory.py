"""mem0's ``Memory`` over a mnemo store (the sync class; :mod:`mnemo.compat.mem0` is the
public module, and its docstring says how mem0's names, arguments and shapes map to mnemo's),
with the helpers that give mnemo's records mem0's shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.compat import mem0_said as said
from mnemo.compat.mem0_import import MEM0_ID
from mnemo.compat.mem0_said import ACTOR, MAX_ROWS
from mnemo.compat.mem0_scope import Mem0Scope
from mnemo.compat.mem0_shapes import (
    DEFAULT_SESSION,
    INFERRED,
    TURN,
    caller_metadata,
    checked_metadata,
    engine_metadata,
    history_row,
    item,
    turns,
)
from mnemo.config.settings import Settings
from mnemo.errors import ConfigError, NotFoundError, ValidationError
from mnemo.ids import MEMORY_PREFIX
from mnemo.memory.facade import Memory as Mnemo
from mnemo.schemas import MemoryItem

#: mem0 config keys that configure mem0's own providers; mnemo has its own settings.
MEM0_KEYS = frozenset(
    {"llm", "embedder", "vector_store", "graph_store", "history_db_path", "reranker"}
)
#: mem0 config keys that configure nothing mnemo has, accepted and ignored: ``version``, the
#: mem0 API version (``"v1.1"``) that mem0 configs commonly carry.
IGNORED_KEYS = frozenset({"version"})
#: The actor of the metadata an inferred add puts on the facts it made (mem0 writes the
#: caller's metadata with the memory; here it follows the fact tier's ADD, and mem0's
#: ``history`` leaves that step out).
STAMP = "mem0-compat-metadata"
#: What ``get_all`` lists: not the stand-ins of inferred turns (mem0 lists what it inferred).
LISTED = {"NOT": {f"metadata.{INFERRED}": {"exists": True}}}


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
        SQLite or PostgreSQL database and takes its models from its own settings. mem0's
        ``version`` (:data:`IGNORED_KEYS`) is accepted and ignored."""
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
        return cls(**{k: v for k, v in config_dict.items() if k not in IGNORED_KEYS})

    def _id(self, memory_id: str) -> str:
        """mnemo's id of ``memory_id``: itself; for a turn's id (``msg_...``) the memory
        standing for it (:mod:`mnemo.compat.mem0_said`); for the id of a memory imported
        from mem0 (:mod:`mnemo.compat.mem0_import`, a UUID) the memory that keeps it as
        ``mem0_id``."""
        if not isinstance(memory_id, str) or memory_id.startswith(MEMORY_PREFIX):
            return memory_id
        either = {"OR": [{f"metadata.{TURN}": memory_id}, {f"metadata.{MEM0_ID}": memory_id}]}
        found = self.mnemo.list(filters=either, limit=1)
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
        scope = Mem0Scope.of(user_id, agent_id, run_id)
        user, agent = scope.user_id, scope.agent_id
        rows, given = turns(messages), checked_metadata(metadata)
        session = scope.run_id or DEFAULT_SESSION
        if not infer:
            added = said.write_turns(self.mnemo, rows, user, agent, session, given, False)
            return {"results": [{"id": a.id, "memory": a.content, "event": "ADD"} for a in added]}
        before = self._live(user, agent)
        stand_ins = said.write_turns(self.mnemo, rows, user, agent, session, given, True)
        self.mnemo.drain()
        said_now = {t for s in stand_ins for t in s.source_message_ids}
        events = self._changes(before, self._live(user, agent), said_now)
        if given:  # mem0 puts the caller's metadata on the memories it writes
            for e in events:
                if e["event"] != "DELETE":
                    kept = self.mnemo.get_memory(e["id"]).metadata
                    self.mnemo.update(e["id"], metadata={**kept, **given}, actor=STAMP)
        return {"results": events}

    def _live(self, user: str | None, agent: str | None) -> dict[str, MemoryItem]:
        """The scope's live facts by id (the snapshot ``add`` diffs: the fact tier writes
        facts only)."""
        found = self.mnemo.list(user, agent_id=agent, filters={"kind": "fact"}, limit=MAX_ROWS)
        return {m.id: m for m in found}

    def _changes(
        self,
        before: dict[str, MemoryItem],
        after: dict[str, MemoryItem],
        said_now: set[str] | None = None,
    ) -> list[dict[str, Any]]:
        """mem0's events between two snapshots: new ids ADD (those drawn from the turns
        ``said_now``, when given: the queue may hold earlier turns' jobs), changed text
        UPDATE (with ``previous_memory``), gone ids DELETE."""
        events: list[dict[str, Any]] = []
        for id, now in after.items():
            old = before.get(id)
            if old is None and said_now is not None and not said_now & set(now.source_message_ids):
                continue
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
        """Change a memory's text (``text``, or mem0's older ``data``) and/or metadata (the
        caller's metadata is replaced, as in mem0); ``{"message": "Memory updated
        successfully!"}``. NotFoundError for an unknown id."""
        text = text if text is not None else data
        given = checked_metadata(metadata)
        if text is None and given is None:
            raise ValidationError("At least one of text or metadata must be provided.")
        target = self._id(memory_id)
        now = self.mnemo.get_memory(target)
        engine = engine_metadata(now.metadata)
        if text is not None and text != now.content:
            engine = said.freed(engine)
        if given is not None or engine != engine_metadata(now.metadata):
            given = {**(caller_metadata(now.metadata) if given is None else given), **engine}
        self.mnemo.update(target, content=text, metadata=given, actor=ACTOR)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str) -> dict[str, str]:
        """Delete one memory (its history keeps it); ``{"message": ...}``."""
        self.mnemo.delete(self._id(memory_id), actor=ACTOR)
        return {"message": "Memory deleted successfully!"}

    def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, str]:
        """Delete every memory the scope selects, as mem0 does (a user's, an agent's across
        its users, one run of either); the turns stay in mnemo's event log (erase a user
        with ``self.mnemo.delete_user(user_id)``). ``{"message": ...}``."""
        scope = Mem0Scope.of(user_id, agent_id, run_id)
        for owner in self._owners(scope):
            agent = None if owner else scope.agent_id
            self.mnemo.delete_all(owner or None, agent_id=agent, filters=scope.where(),
                                  actor=ACTOR)  # fmt: skip
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
    def _owners(self, scope: Mem0Scope) -> list[str]:
        """The user keys a scope's memories live under: its user; for an agent alone, every
        user with a memory of the agent (``""``: the agent's own memories)."""
        if scope.user_id is not None:
            return [scope.user_id]
        found = self.mnemo.list(filters=scope.where(), limit=MAX_ROWS)
        return sorted({m.user_id for m in found})

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
        """The memories the scope and filters select, newest first (at most ``top_k``,
        default 20 as in mem0); ``{"results": [item, ...]}``. As in mem0, ``agent_id`` is
        the memories stored with that agent (with ``user_id``: of that user only)."""
        n = _limit(top_k, limit, 20)
        scope = Mem0Scope.of(user_id, agent_id, run_id, filters)
        if n == 0:
            return {"results": []}
        found = self.mnemo.list(scope.user_id, filters=scope.where(LISTED), limit=n)
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
        """The memories the scope and filters select, most relevant to ``query`` first (at
        most ``top_k``, default 20), with mnemo's search over what was said (the turns, each
        shown as the memory standing for it) and the facts; ``{"results": [item with
        "score", ...]}``. ``score`` is mnemo's calibrated relevance in [0, 1] and
        ``threshold`` drops results scoring below it."""
        n = _limit(top_k, limit, 20)
        if threshold is not None and (
            isinstance(threshold, bool) or not isinstance(threshold, int | float)
        ):
            raise ValidationError(f"threshold must be a number, got {threshold!r}")
        scope = Mem0Scope.of(user_id, agent_id, run_id, filters)
        if n == 0:
            return {"results": []}
        wanted = min(max(2 * n, n + 10), 1000)  # room for turns that map to one memory
        found: list[dict[str, Any]] = []
        owners = self._owners(scope)
        passes = 0
        for owner in owners:
            agent = None if owner else scope.agent_id
            for kinds, where in self._passes(owner, agent, scope):
                hits = self.mnemo.search(query, owner or None, None, wanted, kinds=kinds,
                                         agent_id=agent, filters=where)  # fmt: skip
                found += said.results(self.mnemo, hits, owner, threshold)
                passes += 1
        if passes > 1:  # results of several searches, merged by score
            found.sort(key=lambda r: -float(r["score"]))
        return {"results": found[:n]}

    def _passes(
        self, owner: str, agent: str | None, scope: Mem0Scope
    ) -> list[tuple[tuple[str, ...], dict[str, Any] | None]]:
        """The searches of one owner, as (kinds, filter): the turns and facts, and the notes
        that stand for no turn when the owner has any (:mod:`mnemo.compat.mem0_said`)."""
        out: list[tuple[tuple[str, ...], dict[str, Any] | None]] = [
            (said.SEARCH_KINDS, scope.where())
        ]
        free = scope.where(said.FREE_NOTES)
        if self.mnemo.count(owner or None, agent_id=agent, filters=free):
            out.append((("note",), free))
        return out

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """Every change of a memory, oldest first, as mem0's history rows (the caller's
        metadata put on a fact by the add that made it is part of its ADD, as in mem0)."""
        changes = self.mnemo.history(self._id(memory_id))
        return [history_row(h) for h in changes if h.actor != STAMP]

    def close(self) -> None:
        """Close the mnemo Memory underneath."""
        self.mnemo.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["LISTED", "MEM0_KEYS", "STAMP", "Memory"]
