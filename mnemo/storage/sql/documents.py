"""Statements of the fact tier: context documents, their chunks, processed turns."""

from __future__ import annotations

import json

import numpy as np

from mnemo.errors import NotFoundError
from mnemo.schemas import Document
from mnemo.storage.base import DocumentChunks, FactBatch, NewDocument
from mnemo.storage.sql.rows import record
from mnemo.storage.sql.tx import Row, Tx

DOCUMENT_COLUMNS = ("id", "tenant", "user_id", "session_id", "title", "content", "metadata")
CHUNK_COLUMNS = ("document_rowid", "idx", "content", "embedder", "embedding")
RUN_COLUMNS = ("tenant", "user_id", "message_id", "actor", "note", "at")


def document(r: Row, chunks: int) -> Document:
    """A Document from a ``documents`` row."""
    return record(Document, r, ("metadata",), ("created_at",), chunks=chunks)


def insert(c: Tx, row: NewDocument) -> Document:
    """Insert a document and its chunks; returns the stored document."""
    d = c.dialect
    rowid = c.insert(
        d.insert("documents", (*DOCUMENT_COLUMNS, "created_at")),
        (
            row.id,
            row.tenant,
            row.user_id,
            row.session_id,
            row.title,
            row.content,
            json.dumps(row.metadata),
            row.created_at,
        ),
    )
    vectors = row.embeddings
    c.executemany(
        d.insert("document_chunks", CHUNK_COLUMNS),
        [
            (
                rowid,
                i,
                text,
                row.embedder if vectors is not None else None,
                None if vectors is None else np.asarray(vectors[i], np.float32).tobytes(),
            )
            for i, text in enumerate(row.chunks)
        ],
    )
    return _get(c, row.tenant, row.id)


def _get(c: Tx, tenant: str, document_id: str) -> Document:
    q = c.dialect.mark
    r = c.execute(
        "SELECT d.*, (SELECT count(*) FROM document_chunks k WHERE k.document_rowid = d.rowid)"
        f" AS n FROM documents d WHERE tenant={q} AND id={q}",
        (tenant, document_id),
    ).fetchone()
    if r is None:
        raise NotFoundError(f"no document with id {document_id!r}")
    return document(r, r["n"])


def delete(c: Tx, tenant: str, document_id: str) -> Document:
    """Remove a document (its chunks cascade); returns what was removed."""
    found = _get(c, tenant, document_id)
    q = c.dialect.mark
    c.execute(f"DELETE FROM documents WHERE tenant={q} AND id={q}", (tenant, document_id))
    return found


def listed(c: Tx, tenant: str, user_id: str, session_id: str | None) -> list[Document]:
    """A user's documents, oldest first; with a session, that session's plus user-wide ones."""
    q = c.dialect.mark
    sql = (
        "SELECT d.*, (SELECT count(*) FROM document_chunks k WHERE k.document_rowid = d.rowid)"
        f" AS n FROM documents d WHERE tenant={q} AND user_id={q}"
    )
    args: list[str] = [tenant, user_id]
    if session_id is not None:
        sql += f" AND (session_id IS NULL OR session_id = {q})"
        args.append(session_id)
    return [document(r, r["n"]) for r in c.execute(sql + " ORDER BY d.rowid", args)]


def chunks(c: Tx, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
    """Every chunk of a user's documents; vectors of another embedder come back as zeros."""
    q = c.dialect.mark
    data = c.execute(
        "SELECT d.id, k.content, k.embedder, k.embedding FROM document_chunks k"
        " JOIN documents d ON d.rowid = k.document_rowid"
        f" WHERE d.tenant={q} AND d.user_id={q} ORDER BY k.document_rowid, k.idx",
        (tenant, user_id),
    ).fetchall()
    own = [np.frombuffer(r[3], np.float32) for r in data if r[2] == embedder and r[3]]
    dim = len(own[0]) if own else 0
    vectors = np.zeros((len(data), dim), np.float32)
    for i, r in enumerate(data):
        if dim and r[2] == embedder and r[3] and len(r[3]) == 4 * dim:
            vectors[i] = np.frombuffer(r[3], np.float32)
    return DocumentChunks([r[1] for r in data], [r[0] for r in data], vectors)


def processed(c: Tx, tenant: str, message_ids: list[str]) -> set[str]:
    """The message ids among ``message_ids`` that the fact tier has recorded as done."""
    d = c.dialect
    out: set[str] = set()
    for start in range(0, len(message_ids), 500):
        part = message_ids[start : start + 500]
        cur = c.execute(
            f"SELECT message_id FROM fact_runs WHERE tenant={d.mark}"
            f" AND message_id IN ({d.marks(len(part))})",
            [tenant, *part],
        )
        out.update(r[0] for r in cur)
    return out


def mark_processed(c: Tx, batch: FactBatch, now: str) -> None:
    """Record the batch's turns as done by the fact tier."""
    c.executemany(
        c.dialect.insert_ignore("fact_runs", RUN_COLUMNS),
        [(batch.tenant, batch.user_id, t.message_id, t.actor, t.note, now) for t in batch.turns],
    )
