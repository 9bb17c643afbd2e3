"""``mnemo eval locomo|longmemeval --data FILE``: ingest a benchmark, search it, print a report.

``--replay`` runs the chat replay instead (see :mod:`mnemo.eval.replay`): the fresh store, then
each question replayed with a scripted non-answer and, on another copy, with the dataset's
answer, ``--replay-rounds`` times, each round measured.

Mounted by ``mnemo.cli.main`` as ``mnemo eval``; runnable alone with
``python -c "from mnemo.cli.eval import app; app()" locomo --data FILE``.
Every expected failure (missing or malformed file, bad option, bad setting, a database that
holds another embedder's vectors) prints one ``error: ...`` line and exits with code 2.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from mnemo.cli.common import parse_sets
from mnemo.config.settings import Settings
from mnemo.errors import MnemoError
from mnemo.eval import ablation, ingest_state, replay
from mnemo.eval.locomo import asks_locomo, evaluate_locomo, ingest_locomo, load_locomo
from mnemo.eval.longmemeval import (
    asks_longmemeval,
    evaluate_longmemeval,
    ingest_longmemeval,
    load_longmemeval,
)
from mnemo.eval.replay_view import plot_replay, render_replay
from mnemo.eval.report import IngestStats, Report
from mnemo.memory.facade import Memory
from mnemo.progress import progress_bar

app = typer.Typer(
    help="Measure retrieval on LoCoMo and LongMemEval (turn-level evidence recall; no LLM).",
    no_args_is_help=True,
    add_completion=False,
)


class UsageProblem(Exception):
    """An option value that cannot be used; reported as one line, exit code 2."""


@dataclass
class Benchmark:
    """The three steps of one benchmark, and its questions as chat replay asks them."""

    name: str
    load: Callable[[str], Any]
    ingest: Callable[..., IngestStats]
    evaluate: Callable[..., Report]
    asks: Callable[[Any], list[replay.Ask]]


LOCOMO = Benchmark("locomo", load_locomo, ingest_locomo, evaluate_locomo, asks_locomo)
LONGMEMEVAL = Benchmark(
    "longmemeval", load_longmemeval, ingest_longmemeval, evaluate_longmemeval, asks_longmemeval
)


@dataclass
class Options:
    data: Path
    db: Path | None
    reuse: bool
    embedder: str | None
    preset: str | None
    sets: list[str]
    limit_questions: int | None
    k: str
    json_path: Path | None
    compare: list[str] = field(default_factory=list)
    plot_path: Path | None = None
    database_url: str | None = None
    replay: bool = False
    replay_rounds: int = 1
    budget: int = 1500


def parse_ks(text: str) -> list[int]:
    """``"1,5,10,20"`` -> ``[1, 5, 10, 20]``; every k a positive integer."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise UsageProblem(f"--k must be comma-separated integers, got {text!r}") from None
    if not ks or ks[0] < 1 or ks[-1] > 1000:
        raise UsageProblem(f"--k values must be integers in [1, 1000], got {text!r}")
    return ks


def build_settings(opts: Options, db: Path) -> Settings:
    """Settings from --embedder, --preset and --set over the defaults, on database ``db``.

    The environment's ``MNEMO_DATABASE_URL`` is ignored (the run uses ``db``) unless
    ``--database-url`` (or ``--set database_url=...``) asks for PostgreSQL.
    """
    overrides: dict[str, Any] = {"database_url": opts.database_url}
    if opts.embedder:
        overrides["embedder"] = opts.embedder
    if opts.preset:
        overrides["preset"] = opts.preset
    overrides.update(parse_sets(opts.sets))
    overrides["path"] = str(db)
    return Settings(**overrides)


def _ingest(
    bench: Benchmark, mem: Memory, dataset: Any, opts: Options, console: Console
) -> IngestStats:
    state = ingest_state(mem, dataset.expected_turns())
    if state == "complete" and opts.reuse:
        return IngestStats(
            users=len(dataset.expected_turns()),
            sessions=dataset.session_count,
            turns=dataset.turn_count,
            reused=True,
        )
    if state == "complete":
        raise UsageProblem(
            f"{opts.database_url or opts.db} already holds this dataset; pass --reuse to "
            "evaluate it again, or choose another --db"
        )
    if state == "partial":
        raise UsageProblem(
            f"{opts.database_url or opts.db} holds part of this dataset (an interrupted ingest or "
            "another subset); delete it or choose another --db"
        )
    with progress_bar(console, "ingest turns", dataset.turn_count) as advance:
        return bench.ingest(mem, dataset, advance)


def run(
    bench: Benchmark, opts: Options, console: Console | None = None
) -> Report | replay.ReplayReport:
    """Load, ingest (unless reused), evaluate (or replay) and print; raises MnemoError or
    UsageProblem."""
    console = console or Console()
    status = Console(stderr=True)
    start = time.perf_counter()
    ks = parse_ks(opts.k)
    if opts.reuse and opts.db is None and not opts.database_url:
        raise UsageProblem("--reuse needs --db (the temporary default database is always new)")
    if opts.limit_questions is not None and opts.limit_questions < 1:
        raise UsageProblem("--limit-questions must be at least 1")
    if not opts.data.is_file():
        raise UsageProblem(f"data file not found: {opts.data}")
    if opts.replay and (opts.database_url or opts.compare):
        raise UsageProblem(
            "--replay runs on copies of a SQLite store: drop --database-url and --compare"
        )
    if not 1 <= opts.replay_rounds <= 20:
        raise UsageProblem("--replay-rounds must be an integer in [1, 20]")
    if not 50 <= opts.budget <= 100_000:
        raise UsageProblem("--budget must be an integer in [50, 100000]")
    dataset = bench.load(str(opts.data)).head(opts.limit_questions)
    tmpdir = tempfile.mkdtemp(prefix="mnemo-eval-")
    db = opts.db or Path(tmpdir) / "eval.db"
    try:
        settings = build_settings(opts, db)
        if opts.replay:
            with Memory(settings=settings) as mem:
                _ingest(bench, mem, dataset, opts, status)
            return _replay(bench, opts, dataset, settings, Path(tmpdir), ks, console, status)
        configs = [("settings of this run", settings), *_compared(settings, opts.compare)]
        with Memory(settings=settings) as mem:
            ingest = _ingest(bench, mem, dataset, opts, status)
        rows: list[tuple[str, Report]] = []
        shared: Memory | None = None  # configurations share one embedder and query cache
        for label, config in configs:
            embedder = shared.embedder if shared and config.embedder == settings.embedder else None
            with (
                Memory(settings=config, embedder=embedder) as mem,
                progress_bar(status, f"questions: {label}", len(dataset.questions)) as advance,
            ):
                if shared is not None and embedder is not None:
                    mem.pipeline.queries = shared.pipeline.queries
                rows.append((label, bench.evaluate(mem, dataset, ks, advance)))
                shared = shared or mem
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    report = rows[0][1]
    report.ingest = ingest
    report.wall_seconds = time.perf_counter() - start
    report.render(console)
    if len(rows) > 1:
        ablation.render(console, rows)

    def write_json(path: Path) -> None:
        if len(rows) > 1:
            ablation.write_json(path, rows)
        else:
            path.write_text(report.to_json(), encoding="utf-8")

    _write_outputs(opts, console, write_json, lambda path: ablation.plot(path, rows))
    return report


def _write_outputs(
    opts: Options,
    console: Console,
    write_json: Callable[[Path], None],
    plot: Callable[[Path], None],
) -> None:
    """Write the report to ``--json`` and the plot to ``--plot`` when asked; a file that
    cannot be written, or a plot without matplotlib, is a UsageProblem."""
    try:
        if opts.json_path is not None:
            write_json(opts.json_path)
            console.print(f"report written to {opts.json_path}", markup=False)
        if opts.plot_path is not None:
            plot(opts.plot_path)
            console.print(f"plot written to {opts.plot_path}", markup=False)
    except OSError as exc:
        raise UsageProblem(f"cannot write the output: {exc}") from None
    except ImportError:
        raise UsageProblem('--plot needs matplotlib: pip install "mnemo-ltm[dev]"') from None


def _replay(
    bench: Benchmark,
    opts: Options,
    dataset: Any,
    settings: Settings,
    tmpdir: Path,
    ks: list[int],
    console: Console,
    status: Console,
) -> replay.ReplayReport:
    """Measure the fresh store, then each replay mode on its own copy of it."""
    asks = bench.asks(dataset)
    report: replay.ReplayReport | None = None
    for mode in replay.MODES:
        db = settings.path
        if mode != "fresh":
            db = str(tmpdir / f"replay-{mode}.db")
            replay.copy_sqlite(str(settings.path), db)
        steps = len(asks) * (1 if mode == "fresh" else 2 * opts.replay_rounds)
        with (
            Memory(settings=settings.replace(path=db)) as mem,
            progress_bar(status, f"chat replay: {mode}", steps) as advance,
        ):
            if report is None:
                report = replay.new_report(
                    bench.name, str(opts.data), mem, ks, opts.budget, opts.replay_rounds
                )
            report.results += replay.run_mode(
                mem, asks, mode, opts.replay_rounds, ks, opts.budget, advance
            )
    assert report is not None
    render_replay(console, report)
    done = report

    def write_json(path: Path) -> None:
        path.write_text(done.to_json(), encoding="utf-8")

    _write_outputs(opts, console, write_json, lambda path: plot_replay(path, done))
    return report


def _compared(base: Settings, items: list[str]) -> list[tuple[str, Settings]]:
    """One (label, settings) per --compare value, each applied over the run's settings."""
    out = []
    for item in items:
        try:
            changes = ablation.parse_config(item)
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
        if "preset" in changes:  # a preset fills in what is not named; start from it
            keep = {k: getattr(base, k) for k in ("path", "database_url", "embedder")}
            out.append((item, Settings(**(keep | changes))))
        else:
            out.append((item, base.replace(**changes)))
    return out


def _main(bench: Benchmark, opts: Options) -> None:
    try:
        run(bench, opts)
    except (MnemoError, UsageProblem, OSError) as exc:
        message = " ".join(str(exc).split())
        typer.echo(f"error: {message}", err=True)
        raise typer.Exit(2) from None


DataOpt = Annotated[Path, typer.Option("--data", help="The benchmark JSON file.")]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite database file (default: a temporary file, deleted after)."),
]
ReuseOpt = Annotated[
    bool, typer.Option("--reuse", help="Skip ingest when --db already holds the dataset.")
]
EmbedderOpt = Annotated[
    str | None, typer.Option("--embedder", help="local, openai or hashing (default: settings).")
]
PresetOpt = Annotated[str | None, typer.Option("--preset", help="Settings preset.")]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", help="Setting override KEY=VALUE (repeatable), e.g. rrf_k=30."),
]
LimitOpt = Annotated[
    int | None, typer.Option("--limit-questions", help="Evaluate only the first N questions.")
]
KOpt = Annotated[str, typer.Option("--k", help="Cut-offs for R@k and All@k.")]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="Also write the report as JSON.")]
CompareOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--compare",
        help="Also evaluate these settings on the same store, e.g. fusion=rrf,neighbor_weight=0 "
        "(repeatable; prints an ablation table).",
    ),
]
DbUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="Run on PostgreSQL (postgresql://...) instead of SQLite; an empty database, or "
        "one holding this dataset with --reuse.",
    ),
]
PlotOpt = Annotated[
    Path | None,
    typer.Option("--plot", help="Write a PNG of recall@k per configuration (or of the replay)."),
]
ReplayOpt = Annotated[
    bool,
    typer.Option(
        "--replay",
        help="Chat replay: ask every question through the proxy's path with a scripted "
        "non-answer, and on another copy with the dataset's answer, then ask again and score.",
    ),
]
RoundsOpt = Annotated[
    int, typer.Option("--replay-rounds", help="How many times each question is replayed.")
]
BudgetOpt = Annotated[
    int, typer.Option("--budget", help="Token budget of the context bundle scored by --replay.")
]


def _command(bench: Benchmark, name: str, doc: str) -> None:
    """Register ``mnemo eval <name>`` for ``bench``: every benchmark takes the same options."""

    def command(
        data: DataOpt,
        db: DbOpt = None,
        reuse: ReuseOpt = False,
        embedder: EmbedderOpt = None,
        preset: PresetOpt = None,
        set_: SetOpt = None,
        limit_questions: LimitOpt = None,
        k: KOpt = "1,5,10,20",
        json_path: JsonOpt = None,
        compare: CompareOpt = None,
        plot: PlotOpt = None,
        database_url: DbUrlOpt = None,
        replay_: ReplayOpt = False,
        replay_rounds: RoundsOpt = 1,
        budget: BudgetOpt = 1500,
    ) -> None:
        opts = Options(
            data,
            db,
            reuse,
            embedder,
            preset,
            set_ or [],
            limit_questions,
            k,
            json_path,
            compare or [],
            plot,
            database_url,
            replay_,
            replay_rounds,
            budget,
        )
        _main(bench, opts)

    command.__doc__ = doc
    app.command(name)(command)


_command(LOCOMO, "locomo", "LoCoMo: evidence turns of categories 1-4, per category and overall.")
_command(
    LONGMEMEVAL,
    "longmemeval",
    "LongMemEval: evidence turns and sessions, per question type and overall.",
)


__all__ = ["LOCOMO", "LONGMEMEVAL", "Benchmark", "Options", "app", "build_settings", "run"]
