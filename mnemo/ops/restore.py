"""``mnemo import`` of a `mnemo export` file: checked rows merged into any store.

The file is read as a stream and written in **one transaction**: a bad line anywhere (bad
JSON, a value that fails :mod:`mnemo.ops.import_checks`, a conflict of
:mod:`mnemo.ops.import_merge`) rolls everything back, so the target is left as it was. Rows
already in the target are kept, so an import run twice, or re-run after it was killed, adds
each row once.

API keys are never imported (the ``api_keys`` rows are counted in
:attr:`ImportReport.ignored`): a key row is only a hash, so whoever wrote the file would hold
a working key to the target. Create new keys with ``mnemo keys create``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby, islice
from typing import Any

from mnemo.config.settings import Settings
from mnemo.config.storage import StorageSettings
from mnemo.errors import ValidationError
from mnemo.ops.export import ExportReport, check_header, decode
from mnemo.ops.import_checks import RowChecks
from mnemo.ops.import_merge import Merge
from mnemo.ops.importers import parse_line
from mnemo.ops.migrate import check_location, open_side

#: Tables an import never writes.
NEVER_IMPORTED = ("api_keys",)
#: Rows checked, merged and written at a time.
CHUNK = 500


@dataclass
class ImportReport(ExportReport):
    """Rows written per table (``rows``), rows the target already had and kept (``kept``),
    and rows never imported (``ignored``: API keys)."""

    kept: dict[str, int] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)


Line = tuple[int, str | bytes]


def _records(lines: Iterable[Line]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(table, line number, row) of every non-blank line after the header."""
    for number, line in lines:
        if not line.strip():
            continue
        record = parse_line(line, f"line {number}")
        try:
            table, row = record["table"], record["row"]
        except (KeyError, TypeError):
            raise ValidationError(f"line {number}: not an export row") from None
        if not isinstance(table, str) or not isinstance(row, dict):
            raise ValidationError(f"line {number}: not an export row")
        yield table, number, row


def _decoded(table: str, row: dict[str, Any], cols: list[str], where: str) -> dict[str, Any]:
    out = {}
    for c in cols:
        try:
            out[c] = decode(row.get(c))
        except ValidationError as exc:
            raise ValidationError(f"{where}: {table}.{c}: {exc}") from None
    return out


def import_store(
    location: str,
    src: Iterable[str] | Iterable[bytes],
    progress: Callable[[int], None] | None = None,
    settings: StorageSettings | None = None,
) -> ImportReport:
    """Merge an export (lines of text or bytes) into the store at ``location``; see the
    module docstring. ``settings`` gives the limits (``max_content_chars``; default: the
    configured settings); columns the target lacks are ignored, columns the file lacks take
    their defaults."""
    lines: Iterator[Line] = enumerate(src, start=1)
    first = next(lines, (1, ""))[1]
    try:
        header = check_header(parse_line(first, "line 1"))
    except ValidationError:
        header = check_header(None)
    limit = (settings or Settings()).max_content_chars
    scope = _scope(header)
    store = open_side(check_location(location))
    side = store.table_rows
    report = ImportReport()
    advance = progress or (lambda n: None)
    try:
        known = {t: side.columns(t) for t in side.tables()}
        checks = RowChecks(known, side.vector_dims(), limit)
        merge = Merge(side, scope)
        with side.writing() as write:
            for table, group in groupby(_records(lines), key=lambda r: r[0]):
                if table not in header["tables"] or table not in known:
                    raise ValidationError(f"export row for unknown table {table!r}")
                if table in NEVER_IMPORTED:
                    report.ignored[table] = report.ignored.get(table, 0) + sum(1 for _ in group)
                    continue
                cols = [c for c in header["tables"][table] if c in known[table]]
                while chunk := list(islice(group, CHUNK)):
                    rows = []
                    for _, number, raw in chunk:
                        where = f"line {number}"
                        rows.append(
                            (where, checks.check(table, _decoded(table, raw, cols, where), where))
                        )
                    placed = merge.place(table, rows)
                    values = [tuple(r[c] for c in cols) for r in placed]
                    written = write(table, cols, values, advance) if values else 0
                    report.rows[table] = report.rows.get(table, 0) + written
                    advance(len(chunk) - len(values))
            side.bump_generation(sorted(merge.existing_users))
        report.kept = dict(merge.kept)
    finally:
        store.close()
    return report


def _scope(header: dict[str, Any]) -> tuple[str, str] | None:
    scope = header.get("scope")
    if scope is None:
        return None
    if not isinstance(scope, dict) or not all(
        isinstance(scope.get(k), str) for k in ("tenant", "user_id")
    ):
        raise ValidationError("mnemo export header: scope must be null or {tenant, user_id}")
    return scope["tenant"], scope["user_id"]


__all__ = ["NEVER_IMPORTED", "ImportReport", "import_store"]
