"""LangGraph's ``BaseStore`` over a :class:`mnemo.Memory`: :class:`MnemoStore` (its asyncio
twin is :mod:`mnemo.integrations.langgraph.async_store`).

Every item is a mnemo memory in one scope (``user_id``, and ``agent_id`` when given), laid out
as :mod:`mnemo.integrations.langgraph.items` says, so a LangGraph agent's long-term memory
sits on any mnemo store (SQLite or PostgreSQL) with mnemo's history, expiry, erasure and UI.

Semantics are LangGraph's (its documentation and ``InMemoryStore``): a batch answers its gets,
searches and listings first, then applies its puts, the last put of a (namespace, key)
winning; ``put(..., None)`` deletes; a search without a query (or in a store without an
index) lists matching items namespace by namespace in the order their keys were first put,
with ``score`` None. A search with a query ranks the indexed items by **mnemo's hybrid
search** (BM25 + dense + mnemo's ranking signals, ``Memory.search``), best first, and
``score`` is LangGraph's measure, the cosine of the query's and the item's vectors
(``hit.scores["dense"]``; 0.0 for an item only BM25 found): absolute, so scores of different
searches compare, though a hit that BM25 lifts can rank above one of higher cosine. Items the
hybrid search does not reach at all (no shared word and no positive cosine) follow by their
own cosine, then, as in ``InMemoryStore``, items without indexed text (``score``
None) fill what is left of ``limit``. Filters follow :mod:`mnemo.integrations.langgraph.matching`.

TTLs are LangGraph's, in minutes: ``ttl={"default_ttl": m, "refresh_on_read": True}`` and
``put(..., ttl=m)``; an expired item leaves every read at once (mnemo's expiry), ``get`` and
``search`` move a returned item's expiry to now + its ttl unless ``refresh_ttl=False``, and
:meth:`MnemoStore.sweep_ttl` (or the thread of :meth:`MnemoStore.start_ttl_sweeper`) erases
expired items for good.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from langgraph.store.base import (
    BaseStore,
    Embeddings,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from mnemo import validation as check
from mnemo.errors import ValidationError
from mnemo.integrations.langgraph import items
from mnemo.integrations.langgraph.embeddings import as_embeddings, index_memory
from mnemo.integrations.langgraph.matching import (
    check_filter,
    namespace_matches,
    string_equalities,
)
from mnemo.integrations.langgraph.scope import ACTOR, Block, ItemScope
from mnemo.integrations.langgraph.sweeping import ThreadSweeper, interval
from mnemo.memory.async_memory import AsyncMemory
from mnemo.memory.closing import Closing
from mnemo.memory.facade import Memory

#: The most hits one mnemo search returns.
MAX_HITS = 1000


#: Puts of every MnemoStore in this process, one batch at a time: a key's lookup and its write
#: happen together, so two stores over one database never both add the same new key.
_WRITING = threading.RLock()


class MnemoStore(BaseStore, Closing):
    """A LangGraph ``BaseStore`` keeping its items in a :class:`mnemo.Memory`.

    ``index`` is LangGraph's ``IndexConfig`` (``dims``, ``embed``, ``fields``; see
    :mod:`mnemo.integrations.langgraph.embeddings` for ``embed``), None for a store without
    semantic search; ``ttl`` its ``TTLConfig``. All items live in the mnemo scope ``user_id``
    (and ``agent_id``), so several graphs can share one database without seeing each other's
    items. The caller keeps ownership of ``memory``: :meth:`close` does not close it.

    >>> from mnemo import Memory
    >>> store = MnemoStore(Memory(":memory:", embedder="hashing"), index={"fields": ["text"]})
    >>> store.put(("users", "ann"), "m1", {"text": "Ann plays the cello"})
    >>> store.search(("users",), query="cello")[0].key
    'm1'
    """

    supports_ttl = True

    def __init__(
        self,
        memory: Memory | AsyncMemory,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        user_id: str = "langgraph",
        agent_id: str | None = None,
    ) -> None:
        base = memory.sync if isinstance(memory, AsyncMemory) else memory
        self.memory: Memory = base
        self.user_id = check.identifier(user_id, "user_id")
        self.agent_id = None if agent_id is None else check.identifier(agent_id, "agent_id")
        self.index_config: IndexConfig | None = None if index is None else dict(index)  # type: ignore[assignment]
        self.ttl_config: TTLConfig | None = ttl
        self._fields: list[str] = ["$"]
        self._mem = base
        #: the LangChain ``Embeddings`` the index embeds with (None without an index)
        self.embeddings: Embeddings | None = None
        if index is not None:
            fields = index.get("fields") or ["$"]
            if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
                raise ValidationError("index fields must be a list of JSON paths")
            self._fields = list(fields)
            self._mem = index_memory(base, index)
            self.embeddings = as_embeddings(self._mem.embedder)
        self._scope = ItemScope(self._mem, self.user_id, self.agent_id)
        self._sweeper = ThreadSweeper()

    # ---- the one abstract pair ------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order (reads see the store as it was before the batch's puts),
        then apply the puts, the last of each (namespace, key) winning."""
        ops = list(ops)
        for op in ops:  # every window checked before any op runs
            if isinstance(op, SearchOp | ListNamespacesOp):
                _check_window(op)
        results: list[Result] = [None] * len(ops)
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                results[i] = self._get(op)
            elif isinstance(op, SearchOp):
                results[i] = self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
            elif isinstance(op, PutOp):
                puts[(tuple(op.namespace), op.key)] = op
            else:
                raise ValueError(f"Unknown operation type: {type(op)}")
        if puts:
            # each put's texts once: checked before anything is written, embedded in one call
            texts = {place: self._texts(op) for place, op in puts.items() if op.value is not None}
            with _WRITING, self._mem.prefetch_embeddings([t for ts in texts.values() for t in ts]):
                first_puts: dict[tuple[str, ...], int] = {}
                for place, op in puts.items():
                    self._put(op, texts.get(place, []), first_puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread."""
        return await asyncio.to_thread(self.batch, list(ops))

    # ---- operations ---------------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        row = self._scope.find(tuple(op.namespace), op.key)
        if row is None:
            return None
        block = items.stored(row)
        assert block is not None  # _find returns store items only
        if op.refresh_ttl:
            self._scope.refresh([block], [row.id])
        return items.to_item(block)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        check_filter(op.filter)
        prefix = tuple(op.namespace_prefix)
        if op.query and self.index_config is not None:
            found = self._ranked(op.query, prefix, op.filter, op.offset, op.limit)
        else:
            listed = self._scope.scan(prefix, op.filter)
            found = [(None, b, i) for b, i in listed[op.offset : op.offset + op.limit]]
        if op.refresh_ttl:
            self._scope.refresh([b for _, b, _ in found], [i for _, _, i in found])
        return [items.to_search_item(b, score) for score, b, _ in found]

    def _ranked(
        self,
        query: str,
        prefix: tuple[str, ...],
        flt: Mapping[str, Any] | None,
        offset: int,
        limit: int,
    ) -> list[tuple[float | None, Block, str]]:
        """The indexed items by mnemo's hybrid search, then the indexed items it did not reach
        (score 0.0), positions ``offset`` to ``offset + limit`` of those kept, then unindexed
        ones (score None) up to ``limit`` (both 0 or more: :func:`_check_window`)."""
        start, want = offset, offset + limit
        narrowed = {
            **items.prefix_filter(prefix),
            **items.value_filter(string_equalities(flt)),
            f"metadata.{items.FIELD}.indexed": True,
        }
        n = min(max(want, 10), MAX_HITS)
        while True:
            hits = self._mem.search(
                query, self.user_id, limit=n, kinds=[items.KIND], agent_id=self.agent_id,
                filters=narrowed,
            )  # fmt: skip
            ranked: list[tuple[float | None, Block, str]] = []
            at: dict[tuple[tuple[str, ...], str], int] = {}  # where each item is in ranked
            for hit in hits:
                score = float(hit.scores.get("dense", 0.0))
                for memory_id in (hit.id, *hit.duplicates):
                    block = (
                        items.stored(hit) if memory_id == hit.id else self._scope.block(memory_id)
                    )
                    if block is None or not self._scope.inside(block, prefix, flt):
                        continue
                    place = (items.namespace_of(block), block["key"])
                    if place in at:  # another of its texts: the item scores as its best
                        best, first, first_id = ranked[at[place]]
                        ranked[at[place]] = (max(best or 0.0, score), first, first_id)
                        continue
                    at[place] = len(ranked)
                    ranked.append((score, block, memory_id))
            if len(ranked) >= want or len(hits) < n or n >= MAX_HITS:
                break
            n = min(n * 4, MAX_HITS)
        kept = ranked[start:want]
        if len(kept) < limit:
            listed = self._scope.scan(prefix, flt)
            unreached = self._scope.cosines(
                query,
                [
                    (b, i)
                    for b, i in listed
                    if b["indexed"] and (items.namespace_of(b), b["key"]) not in at
                ],
            )
            skip = max(0, start - len(ranked))
            kept.extend(unreached[skip : max(skip, want - len(ranked))])
            if len(kept) < limit:
                unindexed = [(None, b, i) for b, i in listed if not b["indexed"]]
                kept.extend(unindexed[: limit - len(kept)])
        return kept

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = list(op.match_conditions or ())
        pushed: dict[str, Any] = {}
        for cond in conditions:
            if cond.match_type == "prefix":
                pushed.update(
                    {
                        f"metadata.{items.FIELD}.path.n{i}": label
                        for i, label in enumerate(cond.path)
                        if label != "*"
                    }
                )
        if not pushed:
            pushed = items.prefix_filter(())
        spaces = {items.namespace_of(b) for b, _ in self._scope.rows(pushed)}
        for cond in conditions:
            path = tuple(cond.path)
            spaces = {ns for ns in spaces if namespace_matches(ns, cond.match_type, path)}
        if op.max_depth is not None:
            spaces = {ns[: op.max_depth] for ns in spaces}
        return sorted(spaces)[op.offset : op.offset + op.limit]

    def _put(self, op: PutOp, texts: list[str], first_puts: dict[tuple[str, ...], int]) -> None:
        namespace = tuple(op.namespace)
        row = self._scope.find(namespace, op.key)
        if op.value is None:
            if row is not None:
                self._mem.delete(row.id, actor=ACTOR)
                self._scope.drop_parts(namespace, op.key)
            return
        content = items.content_of(op.value, texts, self._mem.settings.max_content_chars)
        indexed, parts = bool(texts), max(0, len(texts) - 1)
        ttl = _minutes(op.ttl)
        expiry: dict[str, Any] = {} if ttl is None else {"ttl_seconds": max(1, math.ceil(ttl * 60))}
        now = items.now_text()
        if row is not None:
            old = items.stored(row)
            assert old is not None
            meta = items.item_meta(
                namespace, op.key, op.value, indexed=indexed, parts=parts, ttl=ttl,
                seq=old["seq"], nseq=old["nseq"], created_at=old["created_at"], updated_at=now,
            )  # fmt: skip
            if ttl is None and (row.expires_at is not None or row.ttl_seconds is not None):
                expiry = {"clear_expiry": True}
            self._mem.update(
                row.id,
                content=None if content == row.content else content,
                metadata=meta,
                actor=ACTOR,
                **expiry,
            )
            if old.get("parts") or parts:
                self._scope.drop_parts(namespace, op.key)
                self._scope.add_parts(namespace, texts[1:], meta, expiry)
            return
        seq = items.next_seq()
        nseq = first_puts.get(namespace) or self._scope.namespace_seq(namespace) or seq
        first_puts[namespace] = nseq
        meta = items.item_meta(
            namespace, op.key, op.value, indexed=indexed, parts=parts, ttl=ttl, seq=seq,
            nseq=nseq, created_at=now, updated_at=now,
        )  # fmt: skip
        self._mem.add(
            content,
            self.user_id,
            kind=items.KIND,
            session_id=items.namespace_session(namespace),
            metadata=meta,
            actor=ACTOR,
            agent_id=self.agent_id,
            **expiry,
        )
        self._scope.add_parts(namespace, texts[1:], meta, expiry)

    def _texts(self, op: PutOp) -> list[str]:
        """The texts a put indexes (its value checked first)."""
        if not isinstance(op.value, Mapping):
            raise ValidationError(f"a store value is a JSON object, got {type(op.value).__name__}")
        check.json_object(dict(op.value), "value", self._mem.settings.max_metadata_bytes)
        fields: list[str] = []
        if self.index_config is not None and op.index is not False:
            fields = self._fields if op.index is None else list(op.index)
        return items.index_texts(op.value, fields) if fields else []

    # ---- TTL sweeping -----------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Erase every expired item for good (all of the Memory's expired rows go, as
        ``Memory.sweep`` does); returns how many memories went."""
        return int(self._mem.sweep().get("memories", 0))

    def start_ttl_sweeper(
        self, sweep_interval_minutes: int | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep every ``sweep_interval_minutes`` (default: the TTL config's, else 5) on a
        daemon thread until :meth:`stop_ttl_sweeper`; the future completes when it stops.
        Without a TTL config nothing starts (the future is already done)."""
        minutes = interval(self.ttl_config, sweep_interval_minutes)
        return self._sweeper.start(minutes, self.sweep_ttl, enabled=bool(self.ttl_config))

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; False if it was still running after ``timeout`` s."""
        return self._sweeper.stop(timeout)

    def close(self) -> None:
        """Stop the sweeper (the Memory stays open: it is the caller's)."""
        self.stop_ttl_sweeper()


def _check_window(op: SearchOp | ListNamespacesOp) -> None:
    """ValidationError unless ``op``'s ``limit`` and ``offset`` are integers, 0 or more.

    LangGraph's own stores disagree on negative values: ``InMemoryStore`` slices a listing as a
    Python list (``limit=-1``: all but the last) but keeps nothing of a ranking, SqliteStore
    hands them to SQLite (``limit=-1``: no limit; ``offset=-1``: none), and PostgresStore's
    database refuses them. A negative window is almost always a bug, so MnemoStore refuses it
    as PostgresStore does, with and without a query, in words of its own."""
    call, things = (
        ("search", "items") if isinstance(op, SearchOp) else ("list_namespaces", "namespaces")
    )
    for name, value in (("limit", op.limit), ("offset", op.offset)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValidationError(
                f"{call}: {name} is a number of {things}, an integer of 0 or more, got {value!r}"
            )


def _minutes(ttl: Any) -> float | None:
    """A put's ttl in minutes (None: no expiry); ValidationError unless a positive number."""
    if ttl is None or isinstance(ttl, NotProvided):
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not ttl > 0:
        raise ValidationError(f"ttl is a positive number of minutes, got {ttl!r}")
    return float(ttl)


__all__ = ["ACTOR", "MnemoStore"]
