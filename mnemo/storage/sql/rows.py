"""Conversions between stored rows (of either dialect) and mnemo's records."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from mnemo.schemas import HistoryEntry, Job, MemoryItem, Message, parse_time
from mnemo.storage.base import ListFilter, NewMessage, VectorRows
from mnemo.storage.sql import expiry
from mnemo.storage.sql.agents import add_agent_where
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


def message(r: Row) -> Message:
    """A Message from a ``messages`` row."""
    return record(Message, r, ("metadata",), ("created_at", "evicted_at", "expires_at"))


def message_from_new(m: NewMessage, seq: int) -> Message:
    """The Message a just-inserted NewMessage became."""
    return Message(
        id=m.id,
        tenant=m.tenant,
        user_id=m.user_id,
        session_id=m.session_id,
        seq=seq,
        role=m.role,
        name=m.name,
        content=m.content,
        created_at=parse_time(m.created_at),
        metadata=m.metadata,
        expires_at=parse_time(m.expires_at) if m.expires_at else None,
        ttl_seconds=m.ttl_seconds,
        agent_id=m.agent_id,
    )


def memory(r: Row) -> MemoryItem:
    """A MemoryItem from a ``memories`` row."""
    times = ("created_at", "updated_at", "deleted_at", "last_accessed_at", "expires_at")
    return record(MemoryItem, r, ("tags", "metadata", "source_message_ids"), times)


#: The fields of a memory that history records before and after a change, in order.
SNAPSHOT_FIELDS = ("content", "tags", "metadata", "importance", "confidence", "kind", "session_id")


def snapshot(item: MemoryItem) -> dict[str, Any]:
    """The :data:`SNAPSHOT_FIELDS` of a memory, for history."""
    return {name: getattr(item, name) for name in SNAPSHOT_FIELDS}


def history(r: Row) -> HistoryEntry:
    """A HistoryEntry from a ``history`` row."""
    return record(HistoryEntry, r, ("old", "new", "source_message_ids"), ("at",), id=r["rowid"])


def job(r: Row) -> Job:
    """A Job from a ``jobs`` row."""
    return record(Job, r, ("payload", "usage"), ("run_after", "lease_until"), id=r["rowid"])


def list_where(flt: ListFilter, d: Dialect) -> tuple[list[str], list[Any]]:
    """WHERE clauses and arguments shared by message and memory listing."""
    q = d.mark
    where, args = [f"tenant = {q}"], [flt.tenant]
    for col, value in (("user_id", flt.user_id), ("session_id", flt.session_id)):
        if value is not None:
            where.append(f"{col} = {q}")
            args.append(value)
    if flt.since is not None:
        where.append(f"created_at >= {q}")
        args.append(flt.since)
    if flt.until is not None:
        where.append(f"created_at < {q}")
        args.append(flt.until)
    add_agent_where(flt.agents, d, where, args)
    live, at = expiry.list_condition(flt, d)
    return where + live, args + at


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
    :data:`mnemo.storage.sql.search.HIT_COLUMNS` names)."""
    return {
        "id": r["id"],
        "kind": "message" if is_message else r["kind"],
        "content": r["content"],
        "created_at": r["created_at"],
        "user_id": r["user_id"],
        "session_id": r["session_id"],
        "role": r["role"] if is_message else None,
        "name": r["name"] if is_message else None,
        "metadata": json.loads(r["metadata"]),
        "tags": [] if is_message else json.loads(r["tags"]),
        "source_message_ids": [] if is_message else json.loads(r["source_message_ids"]),
        "seq": r["seq"] if is_message else None,
        "agent_id": r["agent_id"],
        # what the rules say of a turn, when the current rules said it (mnemo.text.turn_rules)
        "turn_kind": stored_kind(r["turn_rules"], r["turn_kind"]) if is_message else None,
        "name_cues": stored_text(r["turn_rules"], r["name_cues"]) if is_message else None,
    }
