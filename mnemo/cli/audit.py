"""``mnemo audit``: what a store's facts and profile get wrong, and the safe fixes
(docs/audit.md)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from mnemo.cli.common import DbOpt, EmbedderOpt, JsonOpt, console, guarded, open_existing
from mnemo.cli.records import print_json
from mnemo.cli.store import stderr_bar
from mnemo.ops.audit.findings import FINDING_KINDS, AuditReport


def findings_table(report: AuditReport) -> Table:
    """One row per finding: its id, kind, user, detail, memories and fix."""
    table = Table(title=f"{len(report.findings)} findings")
    for col in ("finding", "kind", "user", "detail", "memories", "fix"):
        table.add_column(col, overflow="fold")
    for f in report.findings:
        memories = "\n".join(
            f"{i}: {escape(c)}" for i, c in zip(f.memory_ids, f.contents, strict=True)
        )
        state = "applied" if f.applied else ("safe" if f.fix.safe else "review")
        fix = f"{f.fix.action} ({state})\n{escape(f.fix.reason)}"
        table.add_row(f.id, f.kind, escape(f.user_id), escape(f.detail), memories, fix)
    return table


def summary(report: AuditReport) -> str:
    """The counts line: users and facts read, findings per kind, fixes applied."""
    counts = ", ".join(f"{report.counts[k]} {k}" for k in FINDING_KINDS)
    return (
        f"audited {report.users} users ({report.facts} facts, {report.profile_values} profile"
        f" values): {counts}; {report.applied} fixes applied"
    )


def audit(
    user: Annotated[
        str | None, typer.Option("--user", "-u", help="Audit this user only (default: every user).")
    ] = None,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Apply the safe fixes: exact copies merged, junk with no content word deleted, "
            "values superseded in time (through history).",
        ),
    ] = False,
    apply: Annotated[
        list[str] | None,
        typer.Option("--apply", help="Apply this finding's fix (an aud_... id), safe or not."),
    ] = None,
    as_json: JsonOpt = False,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Report near-duplicate facts, contradictions, stale values and junk per user, each
    with a fix that goes through history; --fix applies the safe ones."""

    def run() -> None:
        with open_existing(db, embedder) as mem:
            report = mem.audit(user_id=user, fix=fix, apply=apply or (), progress=stderr_bar)
        if as_json:
            print_json(report)
            return
        if report.findings:
            console.print(findings_table(report))
        console.print(summary(report))

    guarded(run)


__all__ = ["audit", "findings_table", "summary"]
