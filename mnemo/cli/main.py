"""The ``mnemo`` command line.

Every command takes ``--db`` (the SQLite file, env ``MNEMO_PATH``) and ``--embedder``
(env ``MNEMO_EMBEDDER``). An expected failure (a mnemo error, a file or folder that cannot be
read or written, undecodable or too deeply nested input) prints one red line and exits with
status 2 (:mod:`mnemo.cli.failures`).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from mnemo.cli.common import (
    AgentOpt,
    DbOpt,
    EmbedderOpt,
    console,
    err,
    guarded,
    need_owner,
    open_existing,
    open_memory,
)
from mnemo.cli.failures import OneLineErrors
from mnemo.cli.field_options import add_options
from mnemo.cli.filter_option import FilterOpt, filter_arg
from mnemo.cli.query_options import SEARCH
from mnemo.cli.records import show_result
from mnemo.cli.store import (
    import_export_file,
    import_mem0_file,
    is_export_file,
    markdown_transfer,
)
from mnemo.cli.tables import hits_table
from mnemo.memory.facade import Memory
from mnemo.ops.importers import ImportInterrupted, count_lines, import_jsonl
from mnemo.progress import progress_bar
from mnemo.schemas import Hit
from mnemo.search_query import SearchQuery
from mnemo.signatures import with_params
from mnemo.version import __version__

app = typer.Typer(
    cls=OneLineErrors,
    add_completion=False,
    no_args_is_help=True,
    help="mnemo: long-term memory for LLM chat applications.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        print(f"mnemo {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """mnemo: long-term memory for LLM chat applications."""


@app.command()
@add_options()
def add(
    text: Annotated[str, typer.Argument(help="The memory (or, with --role, the turn).")],
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="User id (may be left out with --agent).")
    ] = None,
    session: Annotated[str | None, typer.Option(help="Session id.")] = None,
    role: Annotated[
        str | None, typer.Option(help="Store a conversation turn with this role.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Speaker name of the turn.")] = None,
    kind: Annotated[str, typer.Option(help="Memory kind: fact, note, episode, summary.")] = "fact",
    tag: Annotated[list[str] | None, typer.Option(help="Tag (repeatable).")] = None,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    ttl: Annotated[
        int | None, typer.Option("--ttl", help="Expire after this many seconds.")
    ] = None,
    expires_at: Annotated[
        str | None, typer.Option("--expires-at", help="Expire at this time (ISO-8601).")
    ] = None,
    agent: AgentOpt = None,
    **fields: Any,
) -> None:
    """Add a memory, or a conversation turn when --role is given; with --agent, private to
    that agent (without --user: the agent's own memory)."""
    need_owner(user, agent)

    def run() -> None:
        with open_memory(db, embedder) as mem:
            if role is not None:
                turn = {"role": role, "content": text, "name": name}
                ids = mem.add_messages(
                    [turn],
                    user_id=user,
                    session_id=session or "default",
                    expires_at=expires_at,
                    ttl_seconds=ttl,
                    agent_id=agent,
                )
                console.print(ids[0])
            else:
                item = mem.add(
                    text,
                    user_id=user,
                    session_id=session,
                    kind=kind,
                    tags=tag,
                    expires_at=expires_at,
                    ttl_seconds=ttl,
                    agent_id=agent,
                    **fields,
                )
                console.print(item.id)

    guarded(run)


@app.command()
@with_params(SEARCH.params())
def search(
    filter_: FilterOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    **fields: Any,
) -> None:
    """Search a user's memories and turns (with --agent, what that agent sees; `--filter JSON`:
    only those that match)."""
    need_owner(fields.get("user_id"), fields.get("agent_id"))

    def find(mem: Memory) -> list[Hit]:
        return mem.search(SearchQuery(**fields, filters=filter_arg(filter_)))

    def table(hits: list[Hit]) -> Any:
        return hits_table(hits, f"{len(hits)} hits for {fields['query']!r}", fields["explain"])

    show_result(db, embedder, as_json, find, table)


@app.command("import")
def import_(
    path: Annotated[Path, typer.Argument(help="File to import.")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl, locomo, longmemeval, mnemo (a `mnemo export` file), markdown "
            "(a folder in the file-store layout) or mem0 (what mem0's get_all returned).",
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
    """Import turns: JSONL (one turn per line; checked whole first, resumable: a re-run
    skips the turns already stored) or a LoCoMo / LongMemEval file; or a `mnemo export` file
    (detected by its header line), merged into the store; or a mem0 store's memories
    (`--format mem0`: the JSON of mem0's get_all, ids, scopes, metadata and times kept)."""

    if fmt == "mnemo" or (fmt == "jsonl" and path.is_file() and is_export_file(path)):
        guarded(lambda: import_export_file(path, db))
        return
    if fmt == "markdown":
        guarded(lambda: markdown_transfer(path, db, embedder, None, export=False))
        return
    if fmt == "mem0":
        guarded(lambda: import_mem0_file(path, db, embedder))
        return

    def run() -> None:
        with open_memory(db, embedder) as mem:
            if fmt == "jsonl":
                total = _import_jsonl(mem, path, user, session, batch_size)
            elif fmt in ("locomo", "longmemeval"):
                total = _import_benchmark(mem, path, fmt)
            else:
                raise typer.BadParameter(
                    "--format must be jsonl, locomo, longmemeval, mnemo, markdown or mem0"
                )
            console.print(f"imported {total} turns into {mem.store.location}", markup=False)

    guarded(run)


def _import_jsonl(mem: Memory, path: Path, user: str | None, session: str, size: int) -> int:
    if not path.is_file():
        raise typer.BadParameter(f"no such file: {path}")

    def stored(ids: list[str]) -> set[str]:
        return {i for i in ids if mem.store.rows.get_message(mem.tenant, i) is not None}

    def warn(line: str) -> None:
        err.print(f"[yellow]warning:[/] {escape(line)}", soft_wrap=True)

    lines = count_lines(path)
    try:
        with progress_bar(err, "importing", lines) as advance:
            count = import_jsonl(
                mem,
                stored,
                path,
                user,
                session,
                size,
                mem.settings.max_content_chars,
                advance,
                warn,
            )
    except ImportInterrupted as stop:
        done = stop.count
        before = f" ({done.skipped} were stored by an earlier run)" if done.skipped else ""
        err.print(
            f"interrupted: {done.written} turns stored by this run{before}, "
            f"{lines - done.total} of {lines} not yet; run the same command again to resume "
            "(turns already stored are skipped)",
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    except KeyboardInterrupt:
        err.print("interrupted while checking the file: nothing was written")
        raise typer.Exit(130) from None
    if count.skipped:
        err.print(f"{count.skipped} turns were already stored (an earlier run): skipped")
    return count.written


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
    """Run background jobs until SIGINT/SIGTERM (the current job finishes first); the store
    must exist (a mistyped --db drains nothing and creates nothing)."""
    import logging

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

    def run() -> None:
        with open_existing(db, embedder, worker_poll_s=worker_poll_s) as mem:
            runner = mem.worker()
            if once:
                runner.run_once()
            else:
                banner = (
                    f"mnemo worker: {mem.store.location}, polling every {runner.poll_s:g}s; "
                    "Ctrl-C stops after the current job"
                )
                runner.run_until_signalled(lambda: err.print(banner, soft_wrap=True, markup=False))
        err.print(f"mnemo worker: ran {runner.jobs_run} job(s)")

    guarded(run)


@app.command()
def demo(
    db: Annotated[str, typer.Option("--db", help="SQLite file to create.")] = "mnemo-demo.db",
    embedder: EmbedderOpt = None,
) -> None:
    """Ingest a sample conversation and answer a few questions, showing each stage's score."""
    from mnemo.cli.demo import run_demo

    guarded(lambda: run_demo(db, embedder, console))


#: The commands of the other command modules, by module (``mnemo.cli.<module>``), in the
#: order ``mnemo -h`` lists them; each runs the module's function of its name (``delete-all``:
#: ``delete_all``; ``list``: ``list_``, as a builtin's name takes a trailing underscore).
MOUNTED = {
    "store": ("export", "migrate", "reembed", "repair"),
    "records": ("list", "get", "history", "edit", "delete", "forget-user", "sweep", "forget-agent"),
    "context": ("context",),
    "selection": ("count", "delete-all"),
    "status": ("stats", "jobs"),
    "audit": ("audit",),
    "entities": ("entities", "entity"),
}


def _mount_store() -> None:
    for module_name, names in MOUNTED.items():
        module = importlib.import_module(f"mnemo.cli.{module_name}")
        for name in names:
            function = name.replace("-", "_")
            app.command(name)(getattr(module, function, None) or getattr(module, function + "_"))


def _mount_server() -> None:
    from mnemo.cli import mcp as mcp_cli
    from mnemo.cli import serve as server_cli

    app.command("serve")(server_cli.serve_command)
    app.command("chat")(server_cli.chat_command)
    app.command("mcp")(mcp_cli.mcp_command)
    app.add_typer(server_cli.keys_app, name="keys")


def _mount_eval() -> None:
    try:
        from mnemo.cli.eval import app as eval_app
    except ImportError:  # pragma: no cover - the eval package ships with mnemo
        return
    app.add_typer(eval_app, name="eval", help="Measure retrieval on LoCoMo or LongMemEval.")


def one_line_summaries(typer_app: typer.Typer) -> None:
    """Give each command its line in ``mnemo -h``: the first paragraph of its docstring on one
    line (Rich would print the docstring's source line breaks as they are)."""
    for info in typer_app.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None) or ""
        if info.short_help is None and doc:
            info.short_help = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            one_line_summaries(group.typer_instance)


_mount_store()
_mount_eval()
_mount_server()
one_line_summaries(app)
