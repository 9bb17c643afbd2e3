"""``mnemo export`` / ``mnemo import --format mnemo``: a whole store (or one user) as JSONL.

The file is streamed, one JSON object per line, so a store of any size is exported and
imported in constant memory:

* line 1, the header: ``{"mnemo_export": 1, "scope": ..., "tables": {table: [columns]}}``;
* then one line per row, tables in :data:`mnemo.ops.migrate.FIRST` order (referenced tables first):
  ``{"table": "memories", "row": {"rowid": 3, "content": "...", "embedding": {"$bytes": "..."}}}``.

Rows are copied as they are, ``rowid`` and vectors included (vectors as base64 float32 bytes,
``{"$bytes": ...}``), so importing into an empty store gives back the same rows and the same
search results (:mod:`mnemo.ops.restore` imports; it checks every row and merges into a store
that already holds data). The store-internal ``meta`` table and the short-lived idempotency
keys are not exported. Both ends are the
sides of :mod:`mnemo.ops.migrate` (SQLite file or PostgreSQL URL), so an export of one dialect
imports into the other.

A per-user export (``user=(tenant, user_id)``) keeps the rows of tables with a ``user_id``
column that belong to that user, the tags of that user's memories and the chunks of that
user's documents, and leaves out tenant-wide tables (``api_keys``): what a user asks for when
they request their data.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from mnemo.errors import ValidationError
from mnemo.ops.counts import RowCounts
from mnemo.ops.migrate import check_location, open_side, plan
from mnemo.ops.steps import ProgressFactory, step_bar
from mnemo.storage.ports.tables import TableRows

FORMAT_VERSION = 1
#: Tenant-wide tables left out of a per-user export.
TENANT_ONLY = ("api_keys",)
#: Short-lived bookkeeping never exported (``mnemo migrate`` copies it).
TRANSIENT = ("idempotency_keys",)
#: Tables whose rows belong to a user through a parent row: table -> (column, parent table).
CHILDREN = {
    "memory_tags": ("memory_rowid", "memories"),
    "document_chunks": ("document_rowid", "documents"),
}


@dataclass
class ExportReport(RowCounts):
    """Rows written (or read back) per table."""


def encode(value: Any) -> Any:
    """A JSON value for one column value: bytes and vectors become ``{"$bytes": base64}``."""
    if isinstance(value, np.ndarray):
        value = np.asarray(value, dtype=np.float32).tobytes()
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def decode(value: Any) -> Any:
    """The column value of :func:`encode`'s output; ValidationError for an object other than
    ``{"$bytes": base64}``, bad base64, or a list."""
    if isinstance(value, dict):
        data = value.get("$bytes")
        if set(value) != {"$bytes"} or not isinstance(data, str):
            raise ValidationError(f"unexpected object in an export row: {sorted(value)[:5]}")
        try:
            return base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise ValidationError('a {"$bytes": ...} value is not valid base64') from None
    if isinstance(value, list):
        raise ValidationError("a list is not a column value")
    return value


def is_export(path: Path) -> bool:
    """True when ``path`` starts with a mnemo export header line."""
    with path.open("rb") as fh:
        first = fh.readline(4096)
    return first.lstrip().startswith(b'{"mnemo_export"')


def _tables(side: TableRows, user: tuple[str, str] | None) -> list[tuple[str, list[str]]]:
    steps = [(t, cols) for t, cols in plan(side, side) if t not in TRANSIENT]
    if user is None:
        return steps
    return [
        (t, cols)
        for t, cols in steps
        if t not in TENANT_ONLY and ("user_id" in cols or t in CHILDREN)
    ]


def _rows(
    side: TableRows,
    table: str,
    cols: list[str],
    user: tuple[str, str] | None,
    owned: dict[str, set[int]],
) -> Iterator[tuple[Any, ...]]:
    """Rows of ``table``; for a per-user export only the user's (``owned`` collects the
    rowids of parent tables as they stream by)."""
    if user is None:
        yield from side.read(table, cols)
        return
    if table in CHILDREN:
        key, parent = CHILDREN[table]
        at, keep = cols.index(key), owned.get(parent, set())
        yield from (r for r in side.read(table, cols) if r[at] in keep)
        return
    ti, ui = cols.index("tenant"), cols.index("user_id")
    ri = cols.index("rowid") if "rowid" in cols else None
    for r in side.read(table, cols):
        if (r[ti], r[ui]) == user:
            if ri is not None and table in {p for _, p in CHILDREN.values()}:
                owned.setdefault(table, set()).add(r[ri])
            yield r


def export_store(
    location: str,
    out: IO[str],
    user: tuple[str, str] | None = None,
    progress: ProgressFactory | None = None,
) -> ExportReport:
    """Write the store at ``location`` (or one ``(tenant, user_id)``) to ``out`` as JSONL."""
    store = open_side(check_location(location))
    side = store.table_rows
    report = ExportReport()
    try:
        steps = _tables(side, user)
        scope = None if user is None else {"tenant": user[0], "user_id": user[1]}
        header = {"mnemo_export": FORMAT_VERSION, "scope": scope, "tables": dict(steps)}
        out.write(json.dumps(header) + "\n")
        owned: dict[str, set[int]] = {}
        for table, cols in steps:
            n = 0
            with step_bar(progress, f"export {table}", side.count(table)) as advance:
                for row in _rows(side, table, cols, user, owned):
                    values = {c: encode(v) for c, v in zip(cols, row, strict=True)}
                    out.write(json.dumps({"table": table, "row": values}) + "\n")
                    n += 1
                    if n % 1000 == 0:
                        advance(1000)
                advance(n % 1000)
            report.rows[table] = n
    finally:
        store.close()
    return report


def check_header(header: Any) -> dict[str, Any]:
    """The parsed header line of an export, or ValidationError."""
    if not isinstance(header, dict) or header.get("mnemo_export") != FORMAT_VERSION:
        raise ValidationError(f"not a mnemo export (version {FORMAT_VERSION}): bad header line")
    tables = header.get("tables")
    if not isinstance(tables, dict) or not all(
        isinstance(cols, list) and all(isinstance(c, str) for c in cols) for cols in tables.values()
    ):
        raise ValidationError("mnemo export header has no table list")
    return header


__all__ = ["ExportReport", "check_header", "decode", "encode", "export_store", "is_export"]
