"""Data and databases of bench/postgres.py: synthetic rows, PostgreSQL by COPY, SQLite by
``add_messages``, and the benchmark's PostgreSQL schemas. Not a benchmark on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import corpus
from common import now
from mnemo.schemas import format_time, parse_time
from mnemo.storage.base import NewMessage
from mnemo.storage.postgres.conn import configure
from mnemo.storage.postgres.copy import copy_in, index_stored_embedders, table_columns
from mnemo.storage.postgres.store import PostgresStore
from mnemo.storage.sqlite.store import SQLiteStore

EMBEDDER = "hashing:384"  # the tag of the synthetic vectors: Memory opens with hashing:384
DIM = 384
TOPICS = 256
CHUNK = 10_000
#: The message columns the benchmark fills (the rest keep their defaults).
FILLED = (
    *("id", "tenant", "user_id", "session_id", "seq", "role", "name", "content"),
    *("created_at", "metadata", "content_hash", "embedder", "embedding"),
)


# ---- data ------------------------------------------------------------------------------------
def centroids(seed: int = 5) -> np.ndarray:
    """Unit topic centres; vectors cluster around them like real embeddings do."""
    c = np.random.default_rng(seed).standard_normal((TOPICS, DIM)).astype(np.float32)
    return c / np.linalg.norm(c, axis=1, keepdims=True)


def vectors(start: int, n: int, centres: np.ndarray) -> np.ndarray:
    """Deterministic unit vectors for rows ``start .. start+n``: a topic centre plus noise."""
    rng = np.random.default_rng(1_000_003 + start)
    topics = rng.integers(0, TOPICS, n)
    v = centres[topics] + 0.6 * rng.standard_normal((n, DIM)).astype(np.float32) / np.sqrt(DIM)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def chunks(n: int, users: int) -> Any:
    """``NewMessage`` chunks of ``CHUNK`` rows: row i belongs to user ``i % users``."""
    centres = centroids()
    texts = corpus.synthetic_turns(min(n, 200_000))
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        vecs = vectors(start, m, centres)
        out = []
        for j in range(m):
            i = start + j
            t = texts[i % len(texts)]
            out.append(
                NewMessage(
                    id=f"msg_bench{i:09d}",
                    tenant="default",
                    user_id=f"user{i % users:05d}",
                    session_id=f"s{(i // users) // 50}",
                    role=t["role"],
                    name=None,
                    content=t["content"] if i < len(texts) else f"{t['content']} (#{i})",
                    created_at=format_time(parse_time(t["created_at"])),
                    metadata={},
                    content_hash=f"h{i}",
                    embedder=EMBEDDER,
                    embedding=vecs[j],
                )
            )
        yield out


def seq_of(i: int, users: int) -> int:
    """The per-session position of row ``i`` (sessions hold 50 turns of one user)."""
    return (i // users) % 50 + 1


# ---- building -----------------------------------------------------------------------------
def build_postgres(url: str, n: int, users: int) -> tuple[PostgresStore, dict[str, float]]:
    """A fresh schema filled by binary COPY, then the HNSW index; times of each step."""
    store = PostgresStore(url, pool_size=4)
    conn = store.db.open_plain()
    configure(conn)
    cols = table_columns(conn, "messages")
    names = [c for c in cols if c in FILLED]
    types = {c: cols[c] for c in names}
    t0 = now()
    with conn.transaction():
        conn.execute(
            "INSERT INTO users (tenant, user_id, created_at) SELECT 'default',"
            " 'user' || lpad(g::text, 5, '0'), '2023-01-01T00:00:00.000000Z'"
            " FROM generate_series(0, %s - 1) g",
            (users,),
        )
        done = 0
        for chunk in chunks(n, users):
            rows = (row_values(m, done + k, users, names) for k, m in enumerate(chunk))
            done += copy_in(conn, "messages", types, rows)
    t_copy = now() - t0
    t0 = now()
    index_stored_embedders(conn)
    t_index = now() - t0
    conn.execute("ANALYZE messages")
    conn.close()
    return store, {"copy_s": t_copy, "hnsw_s": t_index, "rows_per_s": n / t_copy}


def row_values(m: NewMessage, i: int, users: int, names: list[str]) -> tuple[Any, ...]:
    """A message's column values in ``names`` order, as COPY wants them."""
    values = {
        "id": m.id,
        "tenant": m.tenant,
        "user_id": m.user_id,
        "session_id": m.session_id,
        "seq": seq_of(i, users),
        "role": m.role,
        "name": m.name,
        "content": m.content,
        "created_at": m.created_at,
        "metadata": "{}",
        "content_hash": m.content_hash,
        "embedder": m.embedder,
        "embedding": m.embedding,
    }
    return tuple(values[c] for c in names)


def build_sqlite(path: Path, n: int, users: int) -> tuple[SQLiteStore, dict[str, float]]:
    """A fresh SQLite file filled through the store's ``add_messages`` in 10k-row batches."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    store = SQLiteStore(str(path))
    t0 = now()
    for chunk in chunks(n, users):
        store.rows.add_messages(chunk, [])
    took = now() - t0
    return store, {"copy_s": took, "rows_per_s": n / took}


def schema_url(url: str, schema: str) -> str:
    """``url`` whose search_path starts with ``schema`` (created here, empty)."""
    from urllib.parse import urlencode, urlsplit, urlunsplit

    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        c.execute(f"CREATE SCHEMA {schema}")
    parts = urlsplit(url)
    opts = urlencode({"options": f"-csearch_path={schema},public"})
    return urlunsplit(parts._replace(query=opts))


def drop_schema(url: str, schema: str) -> None:
    """Remove a benchmark schema."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def query_vectors(q: int) -> np.ndarray:
    """Query vectors near the topic centres (like a question about a known topic)."""
    return vectors(10**9, q, centroids())
