"""Store maintenance commands: export, migrate, reembed, repair (and the store-format import
that `mnemo import` hands over to)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer
from rich.table import Table

from mnemo.cli.common import (
    DbOpt,
    EmbedderOpt,
    cli_settings,
    console,
    creating,
    err,
    guarded,
    open_existing,
    open_memory,
    require_store,
)
from mnemo.cli.tables import title_text
from mnemo.config.location import parse_location
from mnemo.progress import progress_bar
from mnemo.redact import mask_credentials

if TYPE_CHECKING:
    from mnemo.embedders.base import Embedder
    from mnemo.index.keys import KeySpec
    from mnemo.storage.ports.store import Store


def stderr_bar(label: str, total: int) -> Any:
    """A progress bar on standard error (the maintenance commands' ``progress``)."""
    return progress_bar(err, label, total)


@contextmanager
def existing_store(
    db: str | None, embedder: str | None
) -> Iterator[tuple[Store, Embedder, KeySpec]]:
    """The store of ``--db`` or the settings, which must exist already (a mistyped ``--db``
    creates nothing), the configured embedder, both closed on the way out, and the settings'
    key spec."""
    from mnemo.embedders import create_embedder
    from mnemo.index.keys import KeySpec
    from mnemo.storage import open_store

    settings = cli_settings(db, embedder)
    require_store(settings)
    emb = create_embedder(settings)
    try:
        store = open_store(settings)
    except BaseException:
        emb.close()
        raise
    try:
        yield store, emb, KeySpec.from_settings(settings)
    finally:
        store.close()
        emb.close()


def private_file(path: Path) -> TextIO:
    """``path`` opened for writing text; created ``FILE_MODE`` (0600) when new, as the store
    itself is, since an export holds every row (an existing file keeps its mode)."""
    from mnemo.files.snapshot import FILE_MODE

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    return open(fd, "w", encoding="utf-8")


def store_location(db: str | None) -> str:
    """The store a maintenance command works on: ``--db``, else the configured URL or path."""
    from mnemo.config.settings import Settings

    if db is not None:
        return db
    settings = Settings()
    return settings.database_url or settings.path


def is_export_file(path: Path) -> bool:
    """Whether ``path`` starts with a `mnemo export` header line."""
    from mnemo.ops.export import is_export

    return is_export(path)


def import_export_file(path: Path, db: str | None) -> None:
    """Merge a `mnemo export` file into the store of ``--db`` or the settings (rows the
    store already has are kept; API keys are never imported)."""
    from mnemo.ops.restore import import_store

    if not path.is_file():
        raise typer.BadParameter(f"no such file: {path}")
    location = store_location(db)
    settings = cli_settings(db)
    with path.open("rb") as src, progress_bar(err, "importing", None) as advance:
        report = creating(settings, lambda: import_store(location, src, advance, settings))
    where = mask_credentials(location)
    console.print(
        f"imported {report.total} rows ({len(report.rows)} tables) into {where}", markup=False
    )
    kept = sum(report.kept.values())
    if kept:
        console.print(f"kept {kept} rows the store already had (the file's copies skipped)")
    for table, n in report.ignored.items():
        err.print(
            f"[yellow]warning:[/] skipped {n} {table} row(s): API keys are never imported "
            "(create new ones with `mnemo keys create`)",
            soft_wrap=True,
        )


def import_mem0_file(path: Path, db: str | None, embedder: str | None) -> None:
    """Store the memories of a mem0 dump (the JSON of mem0's ``get_all``; ``-`` reads standard
    input) in the store of ``--db`` or the settings, as
    :func:`mnemo.compat.mem0_import.import_mem0` does: checked whole first, re-runnable."""
    import json
    import sys

    from mnemo.compat.mem0_import import import_mem0, mem0_items
    from mnemo.errors import ValidationError

    if str(path) == "-":
        try:
            source: Any = json.loads(sys.stdin.read())
        except json.JSONDecodeError as exc:
            raise ValidationError(f"standard input is not a mem0 dump: {exc}") from None
    elif not path.is_file():
        raise typer.BadParameter(f"no such file: {path}")
    else:
        source = path
    items = mem0_items(source)
    with open_memory(db, embedder) as mem, stderr_bar("importing mem0", len(items)) as advance:
        done = import_mem0(mem, items, progress=advance)
    where = mask_credentials(mem.store.location)
    console.print(f"imported {done.imported} memories into {where}", markup=False)
    if done.skipped:
        console.print(f"{done.skipped} were already there (an earlier import): skipped")


def markdown_transfer(
    path: Path,
    db: str | None,
    embedder: str | None,
    user: str | None,
    *,
    export: bool,
    tenant: str | None = None,
) -> None:
    """Export the store (or one user) to a Markdown folder, or import such a folder."""
    from mnemo.files.markdown import export_markdown, import_markdown

    opener = open_existing if export else open_memory
    with opener(db, embedder, tenant=tenant) as mem:
        if export:
            counts = export_markdown(mem.store, mem.tenant, path, user)
        else:
            counts = import_markdown(mem.store, mem.embedding, mem.settings, path)
        verb = "exported to" if export else "imported from"
        parts = ", ".join(f"{n} {k}" for k, n in counts.items())
        console.print(f"{verb} {path}: {parts}", markup=False)


def export(
    out: Annotated[
        Path, typer.Argument(help="JSONL file to write ('-' for stdout), or a folder (markdown).")
    ],
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="Export only this user's data.")
    ] = None,
    tenant: Annotated[str | None, typer.Option(help="Tenant of --user (env MNEMO_TENANT).")] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="mnemo (JSONL, every table) or markdown.")
    ] = "mnemo",
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Export every table of the store (or one user's rows) as JSONL, or turns, memories and
    summaries as Markdown files (the file-store layout); see `mnemo import`."""
    import sys

    if fmt == "markdown":
        guarded(lambda: markdown_transfer(out, db, embedder, user, export=True, tenant=tenant))
        return
    if fmt not in ("mnemo", "jsonl"):
        raise typer.BadParameter("--format must be mnemo or markdown")

    from mnemo.config.settings import Settings
    from mnemo.ops.export import export_store

    def run() -> None:
        scope = None
        if user is not None:
            scope = (tenant or Settings().tenant, user)
        require_store(cli_settings(db))  # a mistyped --db exports nothing and creates nothing
        location = store_location(db)
        try:
            if str(out) == "-":
                report = export_store(location, sys.stdout, scope)
                sys.stdout.flush()
            else:
                with private_file(out) as fh:
                    report = export_store(location, fh, scope, stderr_bar)
        except OSError as exc:  # a full disk names no file: name the output
            raise OSError(exc.errno, exc.strerror, exc.filename or str(out)) from None
        where = mask_credentials(location)
        line = f"exported {report.total} rows ({len(report.rows)} tables) from {where}"
        err.print(line, markup=False)

    guarded(run)


def migrate(
    source: Annotated[str, typer.Argument(help="SQLite file or postgresql:// URL to copy.")],
    target: Annotated[str, typer.Argument(help="An empty SQLite file or postgresql:// URL.")],
    embedder: EmbedderOpt = None,
    searches: Annotated[
        int, typer.Option("--searches", help="Sampled searches compared on both stores.")
    ] = 20,
) -> None:
    """Copy a whole store into an empty one (SQLite <-> PostgreSQL) and check nothing was lost;
    everything is checked before the first row is copied, and a failure leaves the target as
    it was."""
    from mnemo.ops import migrate as mig

    def run() -> Any:
        src = parse_location(source, "source").target
        dst = parse_location(target, "target").target
        return mig.migrate(src, dst, stderr_bar, searches, embedder)

    report = guarded(run)
    title = f"{mask_credentials(source)} -> {mask_credentials(target)}"
    table = Table(title=title_text(title))
    for col in ("table", "source rows", "target rows", "rows identical"):
        table.add_column(col)
    for c in report.checks:
        table.add_row(c.table, str(c.source_rows), str(c.target_rows), "yes" if c.same else "NO")
    console.print(table)
    for mode, (same, total, overlap) in report.searches.items():
        console.print(
            f"{mode} searches with identical top-10 ids: {same}/{total}"
            f" (mean top-10 overlap {overlap:.3f})"
        )
    if not report.lossless:
        emptied = "; it was emptied again" if report.emptied else ""
        err.print(f"[bold red]error:[/] the target differs from the source (see above){emptied}")
        raise typer.Exit(1)


def reembed(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only count the vectors to rebuild.")
    ] = False,
    batch_size: Annotated[int, typer.Option(help="Rows per transaction.", min=1)] = 256,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Rebuild every stored vector with the configured embedder (resumable: run it again)."""
    from mnemo.ops.reembed import reembed as run_reembed

    def run() -> None:
        with existing_store(db, embedder) as (store, emb, keys):
            report = run_reembed(store, emb, batch_size, dry_run, stderr_bar, keys)
        verb = "would re-embed" if dry_run else "re-embedded"
        parts = ", ".join(f"{t} {n}" for t, n in report.rows.items())
        console.print(f"{verb} {report.total} rows with {emb.id} ({parts})", markup=False)

    guarded(run)


def repair(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only report the drift.")] = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Re-sync the full-text indexes, missing vectors and user rows with the stored rows."""
    from mnemo.ops.repair import repair as run_repair

    def run() -> None:
        with existing_store(db, embedder) as (store, emb, keys):
            report = run_repair(store, emb, dry_run, progress=stderr_bar, keys=keys)
        for what, n in report.fixes.items():
            if n:
                console.print(f"{what}: {n}")
        verb = "found" if dry_run else "fixed"
        console.print(f"{verb} {report.total} drifted entries in {store.location}", markup=False)

    guarded(run)
