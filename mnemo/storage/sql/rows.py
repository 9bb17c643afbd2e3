"""Conversions between stored rows (of either dialect) and mnemo's records."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from mnemo.schemas import HistoryEntry, Job, MemoryItem, Message, parse_time
from mnemo.storage.base import ListFilter, NewMessage, VectorRows
from mnemo.storage.sql.dialect import Dialect
from mnemo.storage.sql.tx import Row


def _time(value: str | None) -> datetime | None:
    return None if value is None else parse_time(value)


def later(now: datetime, seconds: float) -> datetime:
    """``now`` plus ``seconds``."""
    return now + timedelta(seconds=seconds)


def message(r: Row) -> Message:
    """A Message from a ``messages`` row."""
    return Message(
        id=r["id"],
        tenant=r["tenant"],
        user_id=r["user_id"],
        session_id=r["session_id"],
        seq=r["seq"],
        role=r["role"],
        name=r["name"],
        content=r["content"],
        created_at=parse_time(r["created_at"]),
        metadata=json.loads(r["metadata"]),
        topic_id=r["topic_id"],
        evicted_at=parse_time(r["evicted_at"]) if r["evicted_at"] else None,
    )


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
    )


def memory(r: Row) -> MemoryItem:
    """A MemoryItem from a ``memories`` row."""
    return MemoryItem(
        id=r["id"],
        tenant=r["tenant"],
        user_id=r["user_id"],
        session_id=r["session_id"],
        kind=r["kind"],
        content=r["content"],
        tags=json.loads(r["tags"]),
        metadata=json.loads(r["metadata"]),
        importance=r["importance"],
        confidence=r["confidence"],
        source_message_ids=json.loads(r["source_message_ids"]),
        created_at=parse_time(r["created_at"]),
        updated_at=parse_time(r["updated_at"]),
        deleted_at=_time(r["deleted_at"]),
        access_count=r["access_count"],
        last_accessed_at=_time(r["last_accessed_at"]),
    )


def snapshot(item: MemoryItem) -> dict[str, Any]:
    """The fields of a memory that history records before and after a change."""
    return {
        "content": item.content,
        "tags": item.tags,
        "metadata": item.metadata,
        "importance": item.importance,
        "confidence": item.confidence,
        "kind": item.kind,
        "session_id": item.session_id,
    }


def history(r: Row) -> HistoryEntry:
    """A HistoryEntry from a ``history`` row."""
    return HistoryEntry(
        id=r["rowid"],
        memory_id=r["memory_id"],
        event=r["event"],
        old=None if r["old"] is None else json.loads(r["old"]),
        new=None if r["new"] is None else json.loads(r["new"]),
        actor=r["actor"],
        at=parse_time(r["at"]),
        source_message_ids=json.loads(r["source_message_ids"]),
    )


def job(r: Row) -> Job:
    """A Job from a ``jobs`` row."""
    return Job(
        id=r["rowid"],
        kind=r["kind"],
        payload=json.loads(r["payload"]),
        status=r["status"],
        attempts=r["attempts"],
        run_after=parse_time(r["run_after"]),
        last_error=r["last_error"],
        usage=None if r["usage"] is None else json.loads(r["usage"]),
        lease_until=None if r["lease_until"] is None else parse_time(r["lease_until"]),
        user_id=r["user_id"],
    )


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


def vector_rows(rows: list[Row]) -> VectorRows:
    """Pack (table, rowid, session, kind, created_at, blob, role, name, keys) rows into
    arrays."""
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
    }
