"""``mnemo migrate``: copy a whole store into an empty one, SQLite -> PostgreSQL or back.

Every check that can run first does (:func:`migrate`): a migration fails before it copies a
row, or leaves the target as it found it.

Both schemas have the same tables and columns, so every row is copied as it is, ``rowid``
included (search refs, history ids and job ids stay valid). The target is written in one
transaction: a failed migration leaves it empty. Full-text indexes are rebuilt by the target
(SQLite triggers, PostgreSQL generated columns); PostgreSQL's HNSW indexes are built once after
the copy, and its rowid sequences are moved past the copied rows.

Then :func:`verify` checks that nothing was lost: per table, the row count and an
order-independent checksum of every row (vectors compared as float32 bytes) must match.
:func:`compare_searches` runs a sample of searches on both stores.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from mnemo.config.settings import Settings
from mnemo.embedders import Embedder, create_embedder
from mnemo.errors import SchemaError, ValidationError
from mnemo.ops.steps import ProgressFactory, step_bar
from mnemo.retrieval.pipeline import Pipeline
from mnemo.retrieval.searcher import Searcher
from mnemo.schemas import Hit
from mnemo.search_query import SearchQuery
from mnemo.storage import open_store
from mnemo.storage.ports.search import SearchSource
from mnemo.storage.ports.store import Store
from mnemo.storage.ports.tables import TableRows

#: Copy order: referenced tables before the tables whose foreign keys point at them; other
#: tables follow alphabetically (a new table with a foreign key must be listed here).
FIRST = (
    "users",
    "messages",
    "memories",
    "memory_tags",
    "profile_facts",
    "history",
    "topics",
    "documents",
    "document_chunks",
)
#: Never copied: store-internal bookkeeping (schema versions differ by dialect).
SKIP = ("meta",)


def is_url(location: str) -> bool:
    """True when ``location`` names a PostgreSQL database rather than a SQLite file."""
    return location.startswith(("postgresql://", "postgres://"))


def open_side(location: str) -> Store:
    """The store at a SQLite path or a PostgreSQL URL (migrated to the latest schema), as one
    end of a migration: its tables as plain rows are ``store.table_rows``."""
    if is_url(location):
        from mnemo.storage.postgres.store import PostgresStore

        return PostgresStore(location, pool_size=2)
    from mnemo.storage.sqlite.store import SQLiteStore

    return SQLiteStore(location)


@dataclass
class TableCheck:
    """One table after a migration: counts and row checksums on both sides."""

    table: str
    source_rows: int
    target_rows: int
    source_sum: str
    target_sum: str

    @property
    def same(self) -> bool:
        """True when the table arrived whole and unchanged."""
        return self.source_rows == self.target_rows and self.source_sum == self.target_sum


@dataclass
class MigrateReport:
    """What a migration copied and what the checks found."""

    copied: dict[str, int] = field(default_factory=dict)
    checks: list[TableCheck] = field(default_factory=list)
    #: mode ("dense", "default") -> (identical, total, mean top-10 overlap)
    searches: dict[str, tuple[int, int, float]] = field(default_factory=dict)
    #: True when the target differed from the source and was emptied again
    emptied: bool = False

    @property
    def lossless(self) -> bool:
        """True when every table matched and the sampled dense searches agreed."""
        dense = self.searches.get("dense")
        return all(c.same for c in self.checks) and (dense is None or dense[0] == dense[1])


def plan(source: TableRows, target: TableRows) -> list[tuple[str, list[str]]]:
    """Tables to copy, in order, each with the columns both sides have."""
    common = [t for t in source.tables() if t in set(target.tables()) and t not in SKIP]
    ordered = [t for t in FIRST if t in common] + sorted(t for t in common if t not in FIRST)
    out = []
    for table in ordered:
        src_cols, dst_cols = source.columns(table), target.columns(table)
        out.append((table, [c for c in src_cols if c in dst_cols]))
    return out


def copy_store(
    source: TableRows, target: TableRows, progress: ProgressFactory | None = None
) -> dict[str, int]:
    """Copy every table of ``source`` into the empty ``target``; returns rows per table."""
    check_empty(target)
    copied: dict[str, int] = {}
    steps = plan(source, target)
    with target.writing() as write:
        for table, cols in steps:
            total = source.count(table)
            with step_bar(progress, f"copy {table}", total) as advance:
                copied[table] = write(table, cols, source.read(table, cols), advance)
    return copied


def row_digest(row: tuple[Any, ...]) -> int:
    """A 64-bit hash of one row; vectors hash by their float32 bytes, floats by ``repr``."""
    parts = []
    for v in row:
        if isinstance(v, np.ndarray):
            parts.append(b"v" + np.asarray(v, dtype=np.float32).tobytes())
        elif isinstance(v, bytes | bytearray | memoryview):
            parts.append(b"v" + bytes(v))
        else:
            parts.append(repr(v).encode("utf-8"))
    return int.from_bytes(hashlib.blake2b(b"\x1f".join(parts), digest_size=8).digest(), "big")


def table_sum(side: TableRows, table: str, columns: list[str]) -> str:
    """Order-independent checksum of a table: the sum of its row digests mod 2**64."""
    total = 0
    for row in side.read(table, columns):
        total = (total + row_digest(row)) % 2**64
    return f"{total:016x}"


def verify(source: TableRows, target: TableRows) -> list[TableCheck]:
    """Counts and checksums of every copied table on both sides."""
    checks = []
    for table, cols in plan(source, target):
        checks.append(
            TableCheck(
                table,
                source.count(table),
                target.count(table),
                table_sum(source, table, cols),
                table_sum(target, table, cols),
            )
        )
    return checks


def sample_queries(side: TableRows, n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` (user_id, query) pairs: the first words of randomly chosen stored turns."""
    rows = [(r[0], r[1]) for r in side.read("messages", ["user_id", "content"])]
    rng = random.Random(seed)
    picked = rng.sample(rows, min(n, len(rows)))
    return [(user, " ".join(text.split()[:8])) for user, text in picked]


class Searchable(Protocol):
    """What :func:`compare_searches` runs: a Memory, or a
    :class:`~mnemo.retrieval.searcher.Searcher`."""

    def search(self, q: SearchQuery, /) -> list[Hit]:
        """The hits of ``q``, best first."""
        ...


def compare_searches(
    source: Searchable, target: Searchable, queries: list[tuple[str, str]], limit: int = 10
) -> tuple[int, int, float]:
    """Run ``queries`` on two stores' searches: (how many return the same ids in the same
    order, how many ran, mean share of top-``limit`` ids both returned)."""
    same, overlap = 0, 0.0
    now = datetime.now(UTC)  # one clock for both sides: recency is part of the score
    for user, query in queries:
        q = SearchQuery(query=query, user_id=user, limit=limit, now=now)
        a = [h.id for h in source.search(q)]
        b = [h.id for h in target.search(q)]
        same += a == b
        overlap += len(set(a) & set(b)) / max(len(a), len(b), 1)
    return same, len(queries), overlap / max(len(queries), 1)


def migrate(
    source: str,
    target: str,
    progress: ProgressFactory | None = None,
    searches: int = 20,
    embedder: str | None = None,
) -> MigrateReport:
    """Copy ``source`` into the empty ``target`` and check it; see the module docstring.

    With ``searches`` > 0, that many sampled queries run on both stores (``embedder`` must be
    the one that made the vectors): dense-only searches must agree exactly; searches with the
    default settings agree exactly when both stores are of one dialect (the lexical scorers
    differ: BM25 in SQLite, ts_rank in PostgreSQL).

    Everything that can be checked is checked before the first row is copied: both locations,
    that the source exists, that the target is empty, and (with ``searches``) that the
    embedder loads and made the source's vectors. A failure after that (a copy, the checks,
    the searches, or a target that differs from the source) leaves the target as it was: a
    SQLite file this call created is deleted, any other target emptied again
    (``report.emptied``).
    """
    check_location(source)
    check_location(target)
    if source == target:
        raise ValidationError("source and target are the same store")
    if not is_url(source) and not Path(source).expanduser().is_file():
        raise ValidationError(f"no mnemo store at {source} (the source of a migration)")
    created = not is_url(target) and not Path(target).expanduser().exists()
    settings = Settings(**({"embedder": embedder} if embedder else {}))
    shared = create_embedder(settings) if searches > 0 else None
    src = open_side(source)
    dst: Store | None = None
    copying = False  # set once rows may be in the target: from then on a failure undoes
    try:
        if shared is not None:  # before the target is opened (and given mnemo's schema)
            check_embedder(src.search, shared)
        dst = open_side(target)
        check_empty(dst.table_rows)
        copying = True
        report = MigrateReport(copied=copy_store(src.table_rows, dst.table_rows, progress))
        report.checks = verify(src.table_rows, dst.table_rows)
        if shared is not None:
            queries = sample_queries(src.table_rows, searches)
            report.searches = _searches(source, target, queries, settings, shared)
        if not report.lossless:
            _undo(dst, target, created, src)
            dst, report.emptied = None, True
    except BaseException:
        if dst is not None and (copying or created):
            _undo(dst, target, created, src)
            dst = None
        raise
    finally:
        src.close()
        if dst is not None:
            dst.close()
        if shared is not None:
            shared.close()
    return report


def check_embedder(side: SearchSource, embedder: Embedder) -> None:
    """SchemaError unless every vector of ``side`` was made by ``embedder`` (the searches that
    check a migration embed their queries with it)."""
    other = [e for e in side.embedders_in_use() if e != embedder.id]
    if other:
        raise SchemaError(
            f"the source holds vectors made by {other}, but the embedder is "
            f"{embedder.id!r}; give that one with --embedder, or skip the search comparison "
            "with --searches 0. Nothing was copied."
        )


def check_empty(side: TableRows) -> None:
    """ValidationError unless ``side`` holds no users, turns, memories or jobs."""
    for table in ("users", "messages", "memories", "jobs"):
        if table in side.tables() and side.count(table):
            raise ValidationError(
                f"the target store is not empty ({table} has rows); migrate into a new database"
            )


def _undo(target: Store, location: str, created: bool, source: Store) -> None:
    """Leave the target of a failed migration as it was (it was empty): delete the SQLite
    file this migration created, or delete every row copied into it. Closes ``target``."""
    if created:
        target.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(location + suffix).expanduser().unlink(missing_ok=True)
        return
    try:
        target.table_rows.clear([t for t, _ in plan(source.table_rows, target.table_rows)])
    finally:
        target.close()


def _searches(
    source: str,
    target: str,
    queries: list[tuple[str, str]],
    settings: Settings,
    shared: Embedder,
) -> dict[str, tuple[int, int, float]]:
    """Both modes' comparisons, with one embedder (one model load) for all four stores."""
    out = {}
    for mode, overrides in {"dense": {"lexical_weight": 0.0}, "default": {}}.items():
        a, close_a = open_searcher(source, settings.replace(**overrides), shared)
        try:
            b, close_b = open_searcher(target, settings.replace(**overrides), shared)
            try:
                out[mode] = compare_searches(a, b, queries)
            finally:
                close_b()
        finally:
            close_a()
    return out


def open_searcher(
    location: str, settings: Settings, embedder: Embedder
) -> tuple[Searcher, Callable[[], None]]:
    """The default search over the store at ``location`` (a path wins over
    ``MNEMO_DATABASE_URL``); SchemaError when its vectors were made by another embedder."""
    url = location if is_url(location) else None
    where = {"database_url": url} if url else {"path": location, "database_url": None}
    settings = settings.replace(**where)
    store = open_store(settings)
    in_use = [e for e in store.search.embedders_in_use() if e != embedder.id]
    if in_use:
        store.close()
        raise SchemaError(
            f"{store.location} holds vectors made by {in_use}, but the embedder is "
            f"{embedder.id!r}; use that embedder, or re-embed the store with "
            f"`mnemo reembed` (see docs/maintenance.md)"
        )
    return Searcher(Pipeline(store.search, embedder, settings), settings), store.close


def check_location(location: str) -> str:
    """A usable store location or ValidationError."""
    if not isinstance(location, str) or not location.strip():
        raise ValidationError("a store location must be a SQLite path or a postgresql:// URL")
    if location.startswith("postgres") and not is_url(location):
        raise ValidationError(f"not a PostgreSQL URL: {location!r}")
    return location


__all__ = [
    "MigrateReport",
    "TableCheck",
    "compare_searches",
    "copy_store",
    "migrate",
    "open_side",
    "plan",
    "sample_queries",
    "verify",
]
