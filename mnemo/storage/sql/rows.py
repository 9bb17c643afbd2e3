"""Conversions between stored rows (of either dialect) and mnemo's records."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from mnemo import memory_fields
from mnemo.memory_fields import MemoryField
from mnemo.schemas import HistoryEntry, Job, MemoryItem, Message, parse_time
from mnemo.storage.base import ListFilter, NewMessage, VectorRows
from mnemo.storage.sql import scoping
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.tx import Row
from mnemo.text.turn_rules import stored_kind, stored_text

M = TypeVar("M", bound=BaseModel)


def record(
    model: type[M],
    r: Row,
    json_cols: tuple[str, ...] = (),
    time_cols: tuple[str, ...] = (),
    **given: Any,
) -> M:
    """A ``model`` from row ``r``: each field not ``given`` from its column, with ``json_cols``
    parsed from JSON text and ``time_cols`` parsed as times (NULL stays None)."""
    values = dict(given)
    for name in model.model_fields:
        if name not in values:
            v = r[name]
            if name in json_cols and v is not None:
                v = json.loads(v)
            elif name in time_cols:
                v = parse_time(v) if v else None
            values[name] = v
    return model(**values)


def later(now: datetime, seconds: float) -> datetime:
    """``now`` plus ``seconds``."""
    return now + timedelta(seconds=seconds)


#: The time fields of a turn.
MESSAGE_TIMES = ("created_at", "evicted_at", "expires_at")


def message(r: Row) -> Message:
    """A Message from a ``messages`` row."""
    return record(Message, r, ("metadata",), MESSAGE_TIMES)


def message_from_new(m: NewMessage, seq: int) -> Message:
    """The Message a just-inserted NewMessage became: its fields, numbered ``seq``, in no
    topic and not evicted."""
    return record(Message, vars(m), (), MESSAGE_TIMES, seq=seq, topic_id=None, evicted_at=None)


#: The memory fields held as JSON text, and as time text.
MEMORY_JSON = tuple(f.name for f in memory_fields.FIELDS if f.json)
MEMORY_TIMES = tuple(f.name for f in memory_fields.FIELDS if f.type == "time")


def memory(r: Row) -> MemoryItem:
    """A MemoryItem from a ``memories`` row."""
    return record(MemoryItem, r, MEMORY_JSON, MEMORY_TIMES)


def stored(f: MemoryField, value: Any) -> Any:
    """``value`` of the memory field ``f`` as its column holds it (JSON text for a list or
    an object)."""
    return json.dumps(value) if f.json else value


def loaded(f: MemoryField, value: Any) -> Any:
    """The value of the memory field ``f`` from its column (JSON text parsed)."""
    return json.loads(value) if f.json else value


#: The fields of a memory that history records before and after a change, in order.
SNAPSHOT_FIELDS = tuple(f.name for f in memory_fields.fields_where(history=True))
#: The memory fields a search hit's row carries (:func:`fetched`).
HIT_FIELDS = memory_fields.fields_where(hit=True)
#: The fields of a hit only a turn has.
TURN_ONLY: dict[str, Any] = {"role": None, "name": None, "seq": None}


def snapshot(item: MemoryItem) -> dict[str, Any]:
    """The :data:`SNAPSHOT_FIELDS` of a memory, for history."""
    return {name: getattr(item, name) for name in SNAPSHOT_FIELDS}


def history(r: Row) -> HistoryEntry:
    """A HistoryEntry from a ``history`` row."""
    return record(HistoryEntry, r, ("old", "new", "source_message_ids"), ("at",), id=r["rowid"])


def job(r: Row) -> Job:
    """A Job from a ``jobs`` row."""
    return record(Job, r, ("payload", "usage"), ("run_after", "lease_until"), id=r["rowid"])


def list_where(flt: ListFilter, table: int, d: Dialect) -> tuple[list[str], list[Any]]:
    """WHERE clauses and arguments of a listing of ``table`` (MESSAGE or MEMORY): its read
    scope (:func:`mnemo.storage.sql.scoping.condition`), then [since, until)."""
    scoped = scoping.condition(flt.scope, table, d)
    where, args = [scoped.sql], list(scoped.args)
    if flt.since is not None:
        where.append(f"created_at >= {d.mark}")
        args.append(flt.since)
    if flt.until is not None:
        where.append(f"created_at < {d.mark}")
        args.append(flt.until)
    return where, args


def epoch_seconds(stamps: list[str]) -> np.ndarray:
    """Epoch seconds of stored times (fixed-width ISO-8601 UTC ending in Z), vectorised."""
    micros = np.array([t.removesuffix("Z") for t in stamps], dtype="datetime64[us]")
    return micros.astype(np.int64) / 1e6


def key_blob(vectors: np.ndarray | None) -> bytes | None:
    """Key vectors as the float32 bytes of a ``key_vectors`` column (None stays NULL)."""
    return None if vectors is None else np.asarray(vectors, dtype=np.float32).tobytes()


def unpack_keys(blob: bytes | memoryview | None, dim: int) -> np.ndarray:
    """A ``key_vectors`` blob as float32 (k, dim); k = 0 for NULL, empty or mis-sized blobs."""
    if not blob or dim <= 0 or len(blob) % (4 * dim):
        return np.zeros((0, max(dim, 0)), np.float32)
    return np.frombuffer(bytes(blob), dtype=np.float32).reshape(-1, dim)


def packed_keys(blobs: list[Any], dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Stack the key blobs of rows into (vectors (k, dim), owning row index (k,))."""
    mats = [unpack_keys(b, dim) for b in blobs]
    owners = [np.full(len(m), i, np.int64) for i, m in enumerate(mats) if len(m)]
    if not owners:
        return np.zeros((0, dim), np.float32), np.zeros(0, np.int64)
    return np.concatenate([m for m in mats if len(m)]), np.concatenate(owners)


def expiry_seconds(stamps: list[str | None]) -> np.ndarray:
    """Epoch seconds of optional stored times (None: never, as +inf); empty when every one is
    None, so rows that never expire cost nothing."""
    if all(s is None for s in stamps):
        return np.zeros(0, np.float64)
    out = np.full(len(stamps), np.inf)
    held = [(i, s) for i, s in enumerate(stamps) if s is not None]
    out[[i for i, _ in held]] = epoch_seconds([s for _, s in held])
    return out


def vector_rows(rows: list[Row]) -> VectorRows:
    """Pack (table, rowid, session, kind, created_at, blob, role, name, keys, expires_at,
    agent, turn rules version, turn kind) rows into arrays."""
    data = [tuple(r) for r in rows]  # plain tuples: indexed at C speed below
    n = len(data)
    if n == 0:
        return VectorRows(
            np.zeros(0, np.int8),
            np.zeros(0, np.int64),
            [],
            [],
            np.zeros(0, np.float64),
            np.zeros((0, 0), np.float32),
        )
    dim = len(data[0][5]) // 4
    vectors = np.frombuffer(b"".join(r[5] for r in data), dtype=np.float32).reshape(n, dim)
    key_vectors, key_owners = packed_keys([r[8] for r in data], dim)
    return VectorRows(
        tables=np.fromiter((r[0] for r in data), dtype=np.int8, count=n),
        rowids=np.fromiter((r[1] for r in data), dtype=np.int64, count=n),
        sessions=[r[2] for r in data],
        kinds=[r[3] for r in data],
        times=epoch_seconds([r[4] for r in data]),
        vectors=vectors,
        roles=[r[6] for r in data],
        names=[r[7] for r in data],
        key_vectors=key_vectors,
        key_owners=key_owners,
        expires=expiry_seconds([r[9] for r in data]),
        agents=[r[10] for r in data],
        turn_kinds=[stored_kind(r[11], r[12]) for r in data],
    )


def fetched(is_message: bool, r: Row) -> dict[str, Any]:
    """The dialect-free fields a search hit is built from (a row of the columns
    :data:`mnemo.storage.sql.search.HIT_COLUMNS` names): a memory's :data:`HIT_FIELDS`, or
    a turn's fields under the same names."""
    if not is_message:
        return {**{f.name: loaded(f, r[f.name]) for f in HIT_FIELDS}, **TURN_ONLY}
    return {
        "id": r["id"],
        "kind": "message",
        "content": r["content"],
        "created_at": r["created_at"],
        "user_id": r["user_id"],
        "session_id": r["session_id"],
        "role": r["role"],
        "name": r["name"],
        "metadata": json.loads(r["metadata"]),
        "tags": [],
        "source_message_ids": [],
        "seq": r["seq"],
        "agent_id": r["agent_id"],
        # what the rules say of a turn, when the current rules said it (mnemo.text.turn_rules)
        "turn_kind": stored_kind(r["turn_rules"], r["turn_kind"]) if is_message else None,
        "name_cues": stored_text(r["turn_rules"], r["name_cues"]) if is_message else None,
    }
