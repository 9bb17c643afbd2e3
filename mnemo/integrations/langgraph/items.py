"""How a LangGraph item lives in mnemo: one memory of kind ``note`` per (namespace, key).

The memory holds the item in ``metadata["langgraph"]``::

    {"path": {"n0": "users", "n1": "alice"},   # the namespace, one label per depth
     "depth": 2, "key": "prefs", "value": {...},  # the item
     "indexed": true, "parts": 0,               # in the semantic ranking; extra texts
     "ttl": 60.0,                               # minutes (LangGraph's unit), or null
     "seq": 1732..., "nseq": 1732...,           # when it, and its namespace, were first put
     "created_at": "...", "updated_at": "..."}  # LangGraph's timestamps (UTC)

Its ``content`` is the text LangGraph would embed: the first text at the index fields
(``["$"]``: the whole value as JSON); each further text (two fields, ``messages[*].content``)
is a **part**, a memory of its own in the same namespace holding the same block plus
``"part": i``, so each text has its own vector and the item scores as its best one, as
LangGraph's max over an item's vectors. An item with no text there (or put with
``index=False``, or in a store without an index) holds its value's JSON and is left out of the
semantic ranking. Its ``session_id`` names its namespace (:func:`namespace_session`), so the
item of a key is found among its namespace's memories only; ``seq`` and ``nseq`` give the
order LangGraph's ``InMemoryStore`` lists items in (namespace by namespace, each in the order
its keys were first put). Everything else is mnemo's own: history, expiry, erasure, the UI.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import Item, SearchItem, get_text_at_path, tokenize_path

from mnemo.schemas import Hit, MemoryItem

#: The metadata key holding the item.
FIELD = "langgraph"
#: The memory kind of store items.
KIND = "note"

_seq_lock = threading.Lock()
_last_seq = 0


def next_seq() -> int:
    """A number larger than every one this process gave before (nanoseconds since the epoch
    where the clock allows), so items put later sort later."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(time.time_ns(), _last_seq + 1)
        return _last_seq


def namespace_session(namespace: Sequence[str]) -> str:
    """The mnemo session id of a namespace: ``lg-`` and a 128-bit hash of its labels."""
    text = json.dumps(list(namespace), ensure_ascii=False)
    return "lg-" + hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def prefix_filter(prefix: Sequence[str]) -> dict[str, Any]:
    """The mnemo filter of the store's items whose namespace starts with ``prefix``."""
    if not prefix:
        return {f"metadata.{FIELD}.key": {"exists": True}}
    return {f"metadata.{FIELD}.path.n{i}": label for i, label in enumerate(prefix)}


def key_filter(key: str, *, parts: bool = False) -> dict[str, Any]:
    """The mnemo filter of the item with ``key`` (within one namespace's session), or of its
    parts."""
    return {f"metadata.{FIELD}.key": key, f"metadata.{FIELD}.part": {"exists": parts}}


#: The mnemo filter leaving parts out (every listing of items uses it).
NOT_PARTS: dict[str, Any] = {f"metadata.{FIELD}.part": {"exists": False}}


def value_filter(equalities: Mapping[str, str]) -> dict[str, Any]:
    """The mnemo filter asking the item's value for each ``{key: string}``."""
    return {f"metadata.{FIELD}.value.{k}": v for k, v in equalities.items()}


def index_texts(value: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    """The texts LangGraph embeds for ``value`` at the JSON paths ``fields``."""
    texts: list[str] = []
    for field in fields:
        tokens = field if field == "$" else tokenize_path(field)
        texts.extend(t for t in get_text_at_path(dict(value), tokens) if t)
    return texts


def content_of(value: Mapping[str, Any], texts: Sequence[str], max_chars: int) -> str:
    """The memory's content: the first index text, else the value's JSON (cut to
    ``max_chars``)."""
    text = texts[0] if texts else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text[:max_chars] if text.strip() else "{}"


def item_meta(
    namespace: Sequence[str],
    key: str,
    value: Mapping[str, Any],
    *,
    indexed: bool,
    parts: int,
    ttl: float | None,
    seq: int,
    nseq: int,
    created_at: str,
    updated_at: str,
) -> dict[str, Any]:
    """The ``metadata`` of the memory holding an item (see the module docstring)."""
    return {
        FIELD: {
            "path": {f"n{i}": label for i, label in enumerate(namespace)},
            "depth": len(namespace),
            "key": key,
            "value": dict(value),
            "indexed": indexed,
            "parts": parts,
            "ttl": ttl,
            "seq": seq,
            "nseq": nseq,
            "created_at": created_at,
            "updated_at": updated_at,
        }
    }


def now_text() -> str:
    """The current UTC time as ISO-8601 text."""
    return datetime.now(UTC).isoformat()


def stored(row: MemoryItem | Hit) -> dict[str, Any] | None:
    """The item block of a memory's metadata, None for a memory that is not a store item."""
    block = row.metadata.get(FIELD)
    return block if isinstance(block, dict) and "key" in block else None


def namespace_of(block: Mapping[str, Any]) -> tuple[str, ...]:
    """The namespace of a stored item."""
    path = block["path"]
    return tuple(path[f"n{i}"] for i in range(int(block["depth"])))


def order_key(block: Mapping[str, Any]) -> tuple[int, int]:
    """Where an item stands in listings: its namespace's first put, then its own."""
    return int(block["nseq"]), int(block["seq"])


def item_fields(block: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a stored item's LangGraph ``Item`` (a ``SearchItem`` adds its score)."""
    return {
        "value": dict(block["value"]),
        "key": block["key"],
        "namespace": namespace_of(block),
        "created_at": datetime.fromisoformat(block["created_at"]),
        "updated_at": datetime.fromisoformat(block["updated_at"]),
    }


def to_item(block: Mapping[str, Any]) -> Item:
    """The LangGraph ``Item`` of a stored item."""
    return Item(**item_fields(block))


def to_search_item(block: Mapping[str, Any], score: float | None) -> SearchItem:
    """The LangGraph ``SearchItem`` of a stored item, with ``score``."""
    return SearchItem(**item_fields(block), score=score)


__all__ = [
    "FIELD",
    "KIND",
    "NOT_PARTS",
    "content_of",
    "index_texts",
    "item_fields",
    "item_meta",
    "key_filter",
    "namespace_of",
    "namespace_session",
    "next_seq",
    "now_text",
    "order_key",
    "prefix_filter",
    "stored",
    "to_item",
    "to_search_item",
    "value_filter",
]
