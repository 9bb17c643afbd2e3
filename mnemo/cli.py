"""The ``mnemo`` command line.

Every command takes ``--db`` (the SQLite file, env ``MNEMO_PATH``) and ``--embedder``
(env ``MNEMO_EMBEDDER``). A mnemo error prints one red line and exits with status 2.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from mnemo.errors import MnemoError
from mnemo.importers import count_lines, jsonl_batches
from mnemo.progress import progress_bar
from mnemo.schemas import Hit
from mnemo.service import Memory

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="mnemo: long-term memory for LLM chat applications.",
)
console = Console()
err = Console(stderr=True)

DbOpt = Annotated[str | None, typer.Option("--db", help="SQLite file (env MNEMO_PATH).")]
EmbedderOpt = Annotated[
    str | None, typer.Option("--embedder", help="local, openai or hashing (env MNEMO_EMBEDDER).")
]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id.")]
T = TypeVar("T")


def open_memory(db: str | None, embedder: str | None, **extra: Any) -> Memory:
    """A Memory from CLI options (unset options fall back to env, TOML and defaults)."""
    overrides: dict[str, Any] = {
        k: v for k, v in (("path", db), ("embedder", embedder)) if v is not None
    }
    overrides.update({k: v for k, v in extra.items() if v is not None})
    return Memory(**overrides)


def guarded(fn: Callable[[], T]) -> T:
    """Run ``fn``; a MnemoError becomes a one-line message and exit status 2."""
    try:
        return fn()
    except MnemoError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None


def hits_table(hits: list[Hit], title: str, explain: bool = False) -> Table:
    """A table of hits with their stage scores."""
    table = Table(title=title, show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("kind")
    table.add_column("when")
    table.add_column("content", overflow="fold")
    if explain:
        table.add_column("stages", overflow="fold")
    for i, h in enumerate(hits, 1):
        who = f"{h.name or h.role}: " if h.kind == "message" and (h.name or h.role) else ""
        row = [str(i), f"{h.score:.3f}", h.kind, h.created_at.strftime("%Y-%m-%d"), who + h.content]
        if explain:
            row.append(" ".join(f"{k}={v:.3g}" for k, v in h.scores.items()))
        table.add_row(*row)
    return table


@app.command()
def add(
    text: Annotated[str, typer.Argument(help="The memory (or, with --role, the turn).")],
    user: UserOpt,
    session: Annotated[str | None, typer.Option(help="Session id.")] = None,
    role: Annotated[
        str | None, typer.Option(help="Store a conversation turn with this role.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Speaker name of the turn.")] = None,
    kind: Annotated[str, typer.Option(help="Memory kind: fact, note, episode, summary.")] = "fact",
    tag: Annotated[list[str] | None, typer.Option(help="Tag (repeatable).")] = None,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Add a memory, or a conversation turn when --role is given."""

    def run() -> None:
        with open_memory(db, embedder) as mem:
            if role is not None:
                turn = {"role": role, "content": text, "name": name}
                ids = mem.add_messages([turn], user_id=user, session_id=session or "default")
                console.print(ids[0])
            else:
                item = mem.add(text, user_id=user, session_id=session, kind=kind, tags=tag)
                console.print(item.id)

    guarded(run)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to recall.")],
    user: UserOpt,
    session: Annotated[str | None, typer.Option(help="Session id.")] = None,
    limit: Annotated[int | None, typer.Option(help="Number of hits.")] = None,
    kinds: Annotated[list[str] | None, typer.Option("--kind", help="Only these kinds.")] = None,
    explain: Annotated[bool, typer.Option(help="Show every stage's score.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Search a user's memories and turns."""

    def run() -> None:
        with open_memory(db, embedder) as mem:
            hits = mem.search(
                query, user_id=user, session_id=session, limit=limit, kinds=kinds, explain=explain
            )
        if as_json:
            console.print_json(json.dumps([h.model_dump(mode="json") for h in hits]))
        else:
            console.print(hits_table(hits, f"{len(hits)} hits for {query!r}", explain))

    guarded(run)


@app.command("import")
def import_(
    path: Annotated[Path, typer.Argument(help="File to import.")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl, locomo, longmemeval, mnemo (a `mnemo export` file) or markdown "
            "(a folder in the file-store layout).",
        ),
    ] = "jsonl",
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="User for lines without one.")
    ] = None,
    session: Annotated[str, typer.Option(help="Session for lines without one.")] = "default",
    batch_size: Annotated[int, typer.Option(help="Turns per transaction.")] = 100,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Import turns: JSONL (one turn per line) or a LoCoMo / LongMemEval file; or a whole
    store from a `mnemo export` file (detected by its header line) into an empty store."""

    if fmt == "mnemo" or (fmt == "jsonl" and path.is_file() and _is_export(path)):
        guarded(lambda: _import_export(path, db))
        return
    if fmt == "markdown":
        guarded(lambda: _markdown(path, db, embedder, None, export=False))
        return

    def run() -> None:
        with open_memory(db, embedder) as mem:
            if fmt == "jsonl":
                total = _import_jsonl(mem, path, user, session, batch_size)
            elif fmt in ("locomo", "longmemeval"):
                total = _import_benchmark(mem, path, fmt)
            else:
                raise typer.BadParameter(
                    "--format must be jsonl, locomo, longmemeval, mnemo or markdown"
                )
            console.print(f"imported {total} turns into {mem.store.location}")

    guarded(run)


def store_location(db: str | None) -> str:
    """The store a maintenance command works on: ``--db``, else the configured URL or path."""
    from mnemo.config import Settings

    if db is not None:
        return db
    settings = Settings()
    return settings.database_url or settings.path


def _is_export(path: Path) -> bool:
    from mnemo.export import is_export

    return is_export(path)


def _import_export(path: Path, db: str | None) -> None:
    from mnemo.export import import_store

    if not path.is_file():
        raise typer.BadParameter(f"no such file: {path}")
    location = store_location(db)
    with path.open(encoding="utf-8") as src, progress_bar(err, "importing", None) as advance:
        report = import_store(location, src, advance)
    console.print(f"imported {report.total} rows ({len(report.rows)} tables) into {location}")


def _markdown(path: Path, db: str | None, embedder: str | None, user: str | None, *,
              export: bool, tenant: str | None = None) -> None:  # fmt: skip
    from mnemo.files.markdown import export_markdown, import_markdown

    with open_memory(db, embedder, tenant=tenant) as mem:
        counts = export_markdown(mem, path, user) if export else import_markdown(mem, path)
        verb = "exported to" if export else "imported from"
        console.print(f"{verb} {path}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))


@app.command()
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
        guarded(lambda: _markdown(out, db, embedder, user, export=True, tenant=tenant))
        return
    if fmt not in ("mnemo", "jsonl"):
        raise typer.BadParameter("--format must be mnemo or markdown")

    from mnemo.config import Settings
    from mnemo.export import export_store

    def bar(label: str, total: int) -> Any:
        return progress_bar(err, label, total)

    def run() -> None:
        scope = None
        if user is not None:
            scope = (tenant or Settings().tenant, user)
        location = store_location(db)
        if str(out) == "-":
            report = export_store(location, sys.stdout, scope)
        else:
            with out.open("w", encoding="utf-8") as fh:
                report = export_store(location, fh, scope, bar)
        err.print(f"exported {report.total} rows ({len(report.rows)} tables) from {location}")

    guarded(run)


def _import_jsonl(mem: Memory, path: Path, user: str | None, session: str, size: int) -> int:
    if not path.is_file():
        raise typer.BadParameter(f"no such file: {path}")
    total = 0
    with progress_bar(err, "importing", count_lines(path)) as advance:
        for batch in jsonl_batches(path, user, session, size):
            try:
                mem.add_messages(
                    batch.turns,
                    user_id=batch.user_id,
                    session_id=batch.session_id,
                    progress=advance,
                )
            except MnemoError as exc:
                raise type(exc)(
                    f"{path}: batch starting at line {batch.first_line}: {exc}"
                ) from None
            total += len(batch.turns)
    return total


def _import_benchmark(mem: Memory, path: Path, fmt: str) -> int:
    from mnemo.eval import locomo, longmemeval

    data: Any
    if fmt == "locomo":
        data = locomo.load_locomo(str(path))
        ingest: Callable[..., Any] = locomo.ingest_locomo
    else:
        data = longmemeval.load_longmemeval(str(path))
        ingest = longmemeval.ingest_longmemeval
    with progress_bar(err, f"importing {fmt}", data.turn_count) as advance:
        return int(ingest(mem, data, progress=advance).turns)


@app.command()
def stats(db: DbOpt = None, embedder: EmbedderOpt = None) -> None:
    """Show what the store holds."""

    def run() -> None:
        with open_memory(db, embedder) as mem:
            s = mem.stats()
        table = Table(title=f"mnemo store {s.path}", show_header=False)
        for key, value in (
            ("users", s.users),
            ("sessions", s.sessions),
            ("messages", s.messages),
            ("memories", s.memories or "none"),
            ("jobs", s.jobs or "none"),
            ("LLM fallbacks", s.llm_fallbacks),
            ("embedder", s.embedder),
        ):
            table.add_row(key, str(value))
        for error in s.job_errors:
            table.add_row("job error", error)
        console.print(table)

    guarded(run)


@app.command()
def migrate(
    source: Annotated[str, typer.Argument(help="SQLite file or postgresql:// URL to copy.")],
    target: Annotated[str, typer.Argument(help="An empty SQLite file or postgresql:// URL.")],
    embedder: EmbedderOpt = None,
    searches: Annotated[
        int, typer.Option("--searches", help="Sampled searches compared on both stores.")
    ] = 20,
) -> None:
    """Copy a whole store into an empty one (SQLite <-> PostgreSQL) and check nothing was lost."""
    from mnemo import migrate as mig

    def bar(label: str, total: int) -> Any:
        return progress_bar(err, label, total)

    report = guarded(lambda: mig.migrate(source, target, bar, searches, embedder))
    table = Table(title=f"{source} -> {target}")
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
        err.print("[bold red]error:[/] the target differs from the source (see above)")
        raise typer.Exit(1)


@app.command()
def reembed(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only count the vectors to rebuild.")
    ] = False,
    batch_size: Annotated[int, typer.Option(help="Rows per transaction.", min=1)] = 256,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Rebuild every stored vector with the configured embedder (resumable: run it again)."""
    from mnemo.config import Settings
    from mnemo.embedders import create_embedder
    from mnemo.reembed import reembed as run_reembed
    from mnemo.storage import open_store

    def bar(label: str, total: int) -> Any:
        return progress_bar(err, label, total)

    def run() -> None:
        overrides = {k: v for k, v in (("path", db), ("embedder", embedder)) if v is not None}
        settings = Settings(**overrides)
        emb = create_embedder(settings)
        store = open_store(settings)
        try:
            report = run_reembed(store, emb, batch_size, dry_run, bar)
        finally:
            store.close()
            emb.close()
        verb = "would re-embed" if dry_run else "re-embedded"
        parts = ", ".join(f"{t} {n}" for t, n in report.rows.items())
        console.print(f"{verb} {report.total} rows with {emb.id} ({parts})")

    guarded(run)


@app.command()
def repair(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only report the drift.")] = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Re-sync the full-text indexes, missing vectors and user rows with the stored rows."""
    from mnemo.config import Settings
    from mnemo.embedders import create_embedder
    from mnemo.repair import repair as run_repair
    from mnemo.storage import open_store

    def bar(label: str, total: int) -> Any:
        return progress_bar(err, label, total)

    def run() -> None:
        overrides = {k: v for k, v in (("path", db), ("embedder", embedder)) if v is not None}
        settings = Settings(**overrides)
        emb, store = create_embedder(settings), open_store(settings)
        try:
            report = run_repair(store, emb, dry_run, progress=bar)
        finally:
            store.close()
            emb.close()
        for what, n in report.fixes.items():
            if n:
                console.print(f"{what}: {n}")
        verb = "found" if dry_run else "fixed"
        console.print(f"{verb} {report.total} drifted entries in {store.location}")

    guarded(run)


@app.command()
def worker(
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    once: Annotated[bool, typer.Option("--once", help="Run every ready job, then exit.")] = False,
    worker_poll_s: Annotated[
        float | None,
        typer.Option(
            "--worker-poll-s", min=0.01, help="Idle poll interval, s (env MNEMO_WORKER_POLL_S)."
        ),
    ] = None,
) -> None:
    """Run background jobs until SIGINT/SIGTERM (the current job finishes first)."""
    import logging

    from mnemo.jobs import Worker

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

    def run() -> None:
        with open_memory(db, embedder, worker_poll_s=worker_poll_s) as mem:
            runner = Worker(mem)
            if once:
                runner.run_once()
            else:
                banner = (
                    f"mnemo worker: {mem.store.location}, polling every {runner.poll_s:g}s; "
                    "Ctrl-C stops after the current job"
                )
                runner.run_until_signalled(lambda: err.print(banner, soft_wrap=True))
        err.print(f"mnemo worker: ran {runner.jobs_run} job(s)")

    guarded(run)


@app.command()
def demo(
    db: Annotated[str, typer.Option("--db", help="SQLite file to create.")] = "mnemo-demo.db",
    embedder: EmbedderOpt = None,
) -> None:
    """Ingest a sample conversation and answer a few questions, showing each stage's score."""
    from mnemo.demo import run_demo

    guarded(lambda: run_demo(db, embedder, console))


def _mount_server() -> None:
    from mnemo.api import cli as server_cli  # imports fastapi only when a command runs

    app.command("serve")(server_cli.serve_command)
    app.command("chat")(server_cli.chat_command)
    app.add_typer(server_cli.keys_app, name="keys")


def _mount_eval() -> None:
    try:
        from mnemo.eval.cli import app as eval_app
    except ImportError:  # pragma: no cover - the eval package ships with mnemo
        return
    app.add_typer(eval_app, name="eval", help="Measure retrieval on LoCoMo or LongMemEval.")


def sample_path() -> Path:
    """The bundled sample conversation (JSONL)."""
    return Path(__file__).parent / "data" / "sample_conversation.jsonl"


_mount_eval()
_mount_server()
