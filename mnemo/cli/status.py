"""Commands that report on a store: ``mnemo stats`` and ``mnemo jobs`` (which also re-queues
dead jobs). Neither creates a store."""

from __future__ import annotations

from typing import Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from mnemo.cli.common import (
    DbOpt,
    EmbedderOpt,
    JsonOpt,
    cli_settings,
    console,
    guarded,
    require_store,
)
from mnemo.cli.records import print_json, show_result
from mnemo.cli.tables import title_text
from mnemo.schemas import Job, Stats

JobStatus = Literal["pending", "running", "done", "dead"]


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "none"


def stats_table(s: Stats) -> Table:
    """The store overview as a two-column table."""
    table = Table(title=title_text(f"mnemo store {s.path}"), show_header=False)
    for key, value in (
        ("users", str(s.users)),
        ("sessions", str(s.sessions)),
        ("messages", str(s.messages)),
        ("memories", _counts(s.memories)),
        ("jobs", _counts(s.jobs)),
        ("LLM fallbacks", str(s.llm_fallbacks)),
        ("embedder", s.embedder or "none"),
    ):
        table.add_row(key, Text(value))
    for error in s.job_errors:
        table.add_row("job error", escape(error))
    for hint in s.hints:
        table.add_row("hint", escape(hint))  # it names an extra in brackets
    return table


def stats(as_json: JsonOpt = False, db: DbOpt = None, embedder: EmbedderOpt = None) -> None:
    """Show what the store holds (this tenant): users, sessions, messages, memories by kind,
    jobs by status."""
    show_result(db, embedder, as_json, lambda mem: mem.stats(), stats_table)


def jobs_table(jobs: list[Job]) -> Table:
    """A table of jobs: id, kind, status, attempts, due time, last error."""
    table = Table(title=f"{len(jobs)} jobs")
    for col in ("id", "kind", "status", "attempts", "run after"):
        table.add_column(col, no_wrap=True)
    table.add_column("last error", overflow="fold")
    for j in jobs:
        table.add_row(
            str(j.id),
            j.kind,
            j.status,
            str(j.attempts),
            j.run_after.strftime("%Y-%m-%d %H:%M:%S"),
            escape(j.last_error or ""),
        )
    return table


def jobs(
    status: Annotated[JobStatus | None, typer.Option(help="Only jobs in this state.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="Number of jobs.")] = 50,
    retry_dead: Annotated[
        bool,
        typer.Option("--retry-dead", help="Re-queue every dead job (attempts reset), then list."),
    ] = False,
    as_json: JsonOpt = False,
    db: DbOpt = None,
) -> None:
    """List background jobs (every tenant), newest first; --retry-dead re-queues dead ones."""
    from mnemo.storage import open_store

    def run() -> None:
        settings = cli_settings(db)
        require_store(settings)
        store = open_store(settings)
        try:
            requeued = store.jobs.requeue_dead_jobs() if retry_dead else None
            found = store.jobs.list_jobs(status, limit)
        finally:
            store.close()
        if as_json:
            out: dict[str, object] = {"jobs": found}
            if requeued is not None:
                out["requeued"] = requeued
            print_json(out)
            return
        if requeued is not None:
            console.print(f"re-queued {requeued} dead job(s)")
        console.print(jobs_table(found))

    guarded(run)


__all__ = ["jobs", "jobs_table", "stats", "stats_table"]
