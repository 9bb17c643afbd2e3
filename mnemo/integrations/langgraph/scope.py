"""The rows of one LangGraph store in mnemo: :class:`ItemScope` finds, lists, scores and
refreshes the memories holding a store's items (laid out as
:mod:`mnemo.integrations.langgraph.items` says) in one mnemo scope."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mnemo.integrations.langgraph import items
from mnemo.integrations.langgraph.matching import string_equalities, value_matches
from mnemo.memory.facade import Memory
from mnemo.schemas import MemoryItem

#: The actor recorded in the history of every change a store makes.
ACTOR = "langgraph"
#: Rows read per page when a store lists its items.
PAGE = 500

Block = dict[str, Any]


class ItemScope:
    """The store items of one mnemo scope (``user_id``, ``agent_id``) in ``memory``."""

    def __init__(self, memory: Memory, user_id: str, agent_id: str | None) -> None:
        self.memory = memory
        self.user_id = user_id
        self.agent_id = agent_id

    def cosines(
        self, query: str, listed: list[tuple[Block, str]]
    ) -> list[tuple[float | None, Block, str]]:
        """Items the hybrid search did not return, with the cosine of their stored vector to
        the query's (LangGraph's score), best first."""
        if not listed:
            return []
        rows = [self.memory.get_memory(i) for _, i in listed]
        vectors = self.memory.embed([r.content for r in rows])
        scores = vectors @ self.memory.embedder.embed_query(query)
        scored = [(float(c), b, i) for c, (b, i) in zip(scores, listed, strict=True)]
        return sorted(scored, key=lambda t: -(t[0] or 0.0))

    def add_parts(
        self,
        namespace: tuple[str, ...],
        texts: list[str],
        meta: dict[str, Any],
        expiry: Mapping[str, Any],
    ) -> None:
        """Store an item's texts after the first as its parts (see items)."""
        ttl = {k: v for k, v in expiry.items() if k != "clear_expiry"}
        for n, text in enumerate(texts, 1):
            self.memory.add(
                text[: self.memory.settings.max_content_chars],
                self.user_id,
                kind=items.KIND,
                session_id=items.namespace_session(namespace),
                metadata={items.FIELD: {**meta[items.FIELD], "part": n}},
                actor=ACTOR,
                agent_id=self.agent_id,
                **ttl,
            )

    def part_ids(self, namespace: tuple[str, ...], key: str) -> list[str]:
        """The memory ids of an item's parts."""
        rows = self.memory.list(
            self.user_id, session_id=items.namespace_session(namespace), kind=items.KIND,
            agent_id=self.agent_id, filters=items.key_filter(key, parts=True), limit=1000,
        )  # fmt: skip
        return [r.id for r in rows if (b := items.stored(r)) and items.namespace_of(b) == namespace]

    def drop_parts(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete an item's parts."""
        for memory_id in self.part_ids(namespace, key):
            self.memory.delete(memory_id, actor=ACTOR)

    def find(self, namespace: tuple[str, ...], key: str) -> MemoryItem | None:
        """The live memory holding the item (namespace, key), if any."""
        rows = self.memory.list(
            self.user_id, session_id=items.namespace_session(namespace), kind=items.KIND,
            agent_id=self.agent_id, filters=items.key_filter(key), limit=10,
        )  # fmt: skip
        for row in rows:
            block = items.stored(row)
            if block and block["key"] == key and items.namespace_of(block) == namespace:
                return row
        return None

    def namespace_seq(self, namespace: tuple[str, ...]) -> int | None:
        """When the namespace's oldest live item was first put (None: it holds none)."""
        rows = self.memory.list(
            self.user_id, session_id=items.namespace_session(namespace), kind=items.KIND,
            agent_id=self.agent_id, filters=items.NOT_PARTS, limit=1,
        )  # fmt: skip
        block = items.stored(rows[0]) if rows else None
        return None if block is None else int(block["nseq"])

    def block(self, memory_id: str) -> Block | None:
        """The item block of one memory of the scope (None when it holds none)."""
        row = self.memory.get_memory(memory_id, user_id=self.user_id, agent_id=self.agent_id)
        return items.stored(row)

    def rows(self, filters: Mapping[str, Any]) -> Iterator[tuple[Block, str]]:
        """Every live store item matching the mnemo ``filters``, with its memory id."""
        cursor: str | None = None
        while True:
            page = self.memory.list_page(
                self.user_id, kind=items.KIND, agent_id=self.agent_id,
                filters={**filters, **items.NOT_PARTS},
                limit=PAGE, cursor=cursor,
            )  # fmt: skip
            for row in page.items:
                block = items.stored(row)
                if block is not None:
                    yield block, row.id
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def scan(
        self, prefix: tuple[str, ...], flt: Mapping[str, Any] | None
    ) -> list[tuple[Block, str]]:
        """The items under ``prefix`` matching ``flt``, in listing order."""
        narrowed = {**items.prefix_filter(prefix), **items.value_filter(string_equalities(flt))}
        found = [(b, i) for b, i in self.rows(narrowed) if self.inside(b, prefix, flt)]
        found.sort(key=lambda pair: items.order_key(pair[0]))
        return found

    @staticmethod
    def inside(block: Block, prefix: tuple[str, ...], flt: Mapping[str, Any] | None) -> bool:
        """Whether a stored item lies under ``prefix`` and its value matches ``flt``."""
        namespace = items.namespace_of(block)
        return namespace[: len(prefix)] == prefix and value_matches(block["value"], flt)

    def refresh(self, blocks: list[Block], ids: list[str]) -> None:
        """Move the expiry of the items among these that have a ttl to now + their ttl."""
        with_ttl = [i for b, i in zip(blocks, ids, strict=True) if b.get("ttl") is not None]
        for b in blocks:  # an item with parts: the item and all its parts
            if b.get("ttl") is not None and b.get("parts"):
                namespace = items.namespace_of(b)
                row = self.find(namespace, b["key"])
                with_ttl += [*([row.id] if row else []), *self.part_ids(namespace, b["key"])]
        if with_ttl:
            self.memory.refresh_expiry(with_ttl)


__all__ = ["ACTOR", "PAGE", "Block", "ItemScope"]
