"""The result of one evaluation run: metrics per group and overall, timings, and provenance."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field, computed_field
from rich import box
from rich.console import Console
from rich.table import Table

from mnemo.config.settings import Settings
from mnemo.embedders.cpu import cpu_line, describe_cpu
from mnemo.eval import metrics
from mnemo.schemas import Hit

Q = TypeVar("Q")

#: Settings whose values are secrets or may embed credentials; reports show only whether set.
SECRET_SETTINGS = ("embedder_api_key", "llm_api_key", "database_url")


class IngestStats(BaseModel):
    """What one ingest wrote, and how long it took."""

    users: int = 0
    sessions: int = 0
    turns: int = 0
    seconds: float = 0.0
    reused: bool = False  # True when an existing database was reused (nothing timed)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def turns_per_s(self) -> float | None:
        """Ingest throughput (None when nothing was timed)."""
        return self.turns / self.seconds if self.seconds > 0 and not self.reused else None


class QuestionResult(BaseModel):
    """One question's evidence, what came back, and its metrics."""

    id: str
    group: str
    evidence: list[str]
    retrieved: list[str | None]
    metrics: dict[str, float]
    latency_ms: float | None = None


class Report(BaseModel):
    """Metrics per group (LoCoMo category / LongMemEval question type) and overall."""

    benchmark: str
    dataset: str = Field(description="Path of the data file.")
    embedder: str
    settings: dict[str, Any]
    ks: list[int]
    metrics: list[str] = Field(description="Metric names, in column order.")
    groups: dict[str, dict[str, float]]
    counts: dict[str, int] = Field(description="Questions evaluated per group.")
    overall: dict[str, float] = Field(description="Question-weighted means over all groups.")
    questions: int
    skipped: dict[str, int] = Field(
        default_factory=dict, description="What loading left out, counted over the whole file."
    )
    notes: list[str] = Field(default_factory=list)
    ingest: IngestStats | None = None
    search_p50_ms: float
    search_p95_ms: float
    search_limit: int
    eval_seconds: float
    wall_seconds: float | None = None
    cpu: dict[str, Any] = Field(
        default_factory=describe_cpu,
        description="The CPU the run measured (model, SIMD features, the kernels onnxruntime "
        "picks): timings and int8 vectors depend on it.",
    )
    per_question: list[QuestionResult] = Field(default_factory=list)

    def to_json(self, per_question: bool = True, indent: int | None = 2) -> str:
        """The report as JSON (NaN becomes null); ``per_question=False`` drops the details."""
        exclude = None if per_question else {"per_question"}
        return self.model_dump_json(indent=indent, exclude=exclude)

    def render(self, console: Console) -> None:
        """Print the metrics table and a summary of timings and provenance."""
        title = f"{self.benchmark} retrieval ({self.questions} questions)"
        width = max(len(g) for g in [*self.groups, "overall"]) + 8 + 8 * len(self.metrics)
        if width <= console.width:
            chunks = [self.metrics]
        else:  # too wide for the terminal: recall-like columns, then all-in columns
            firsts = [m for m in self.metrics if not m.startswith("All")]
            chunks = [firsts, [m for m in self.metrics if m not in firsts]]
        for names in chunks:
            console.print(self._table(title, names))
            title = ""

        info = Table(show_header=False, box=None, pad_edge=False)
        info.add_column(style="dim")
        info.add_column()
        if self.ingest is not None:
            ing = self.ingest
            if ing.reused:
                how = "reused existing database"
            else:
                rate = f"{ing.turns_per_s:.1f} turns/s" if ing.turns_per_s else "-"
                how = f"{ing.seconds:.1f} s, {rate}"
            info.add_row(
                "ingest", f"{ing.turns} turns, {ing.sessions} sessions, {ing.users} users; {how}"
            )
        info.add_row(
            "search",
            f"p50 {self.search_p50_ms:.1f} ms, p95 {self.search_p95_ms:.1f} ms "
            f"(limit {self.search_limit})",
        )
        timing = f"{self.eval_seconds:.1f} s"
        if self.wall_seconds is not None:
            timing += f" (wall {self.wall_seconds:.1f} s)"
        info.add_row("evaluation", timing)
        if self.skipped:
            info.add_row("skipped", ", ".join(f"{k}: {v}" for k, v in self.skipped.items()))
        for note in self.notes:
            info.add_row("note", note)
        info.add_row("embedder", self.embedder)
        info.add_row("cpu", cpu_line(self.cpu))
        info.add_row("preset", str(self.settings.get("preset", "default")))
        info.add_row("dataset", self.dataset)
        console.print(info)

    def _table(self, title: str, names: list[str]) -> Table:
        table = Table(title=title or None, box=box.SIMPLE_HEAD, padding=(0, 1))
        table.add_column("group")
        table.add_column("n", justify="right")
        for name in names:
            table.add_column(name, justify="right", no_wrap=True)
        for group, values in self.groups.items():
            table.add_row(group, str(self.counts.get(group, 0)), *self._cells(values, names))
        table.add_section()
        row = self._cells(self.overall, names)
        table.add_row("overall", str(self.questions), *row, style="bold")
        return table

    @staticmethod
    def _cells(values: dict[str, float], names: list[str]) -> list[str]:
        out = []
        for name in names:
            v = values.get(name, math.nan)
            out.append("-" if math.isnan(v) else f"{v:.3f}")
        return out


def settings_summary(settings: Settings) -> dict[str, Any]:
    """The settings as a plain dict, with secrets replaced by ``"***"`` when set."""
    data = settings.model_dump()
    for key in SECRET_SETTINGS:
        if data.get(key):
            data[key] = "***"
    return data


def run_questions(
    questions: Sequence[Q],
    search: Callable[[Q], list[Hit]],
    score: Callable[[Q, list[Hit]], QuestionResult],
    progress: Callable[[int], None] | None = None,
) -> tuple[list[QuestionResult], list[float]]:
    """Search and score every question; returns the results and each search's latency in ms."""
    results, latencies = [], []
    for q in questions:
        t0 = time.perf_counter()
        hits = search(q)
        latencies.append((time.perf_counter() - t0) * 1000)
        result = score(q, hits)
        result.latency_ms = latencies[-1]
        results.append(result)
        if progress is not None:
            progress(1)
    return results, latencies


def build_report(
    *,
    benchmark: str,
    dataset: str,
    settings: Settings,
    embedder: str,
    ks: list[int],
    metric_names: list[str],
    results: list[QuestionResult],
    group_order: list[str],
    latencies_ms: list[float],
    search_limit: int,
    eval_seconds: float,
    skipped: dict[str, int] | None = None,
    notes: list[str] | None = None,
) -> Report:
    """Aggregate per-question results into a Report; groups in ``group_order``, then others."""
    per_group, overall, counts = metrics.aggregate([(r.group, r.metrics) for r in results])
    order = [g for g in group_order if g in per_group] + [
        g for g in per_group if g not in group_order
    ]
    return Report(
        benchmark=benchmark,
        dataset=dataset,
        embedder=embedder,
        settings=settings_summary(settings),
        ks=ks,
        metrics=metric_names,
        groups={g: per_group[g] for g in order},
        counts={g: counts[g] for g in order},
        overall=overall,
        questions=len(results),
        skipped=skipped or {},
        notes=notes or [],
        search_p50_ms=metrics.percentile(latencies_ms, 50),
        search_p95_ms=metrics.percentile(latencies_ms, 95),
        search_limit=search_limit,
        eval_seconds=eval_seconds,
        per_question=results,
    )


__all__ = [
    "IngestStats",
    "QuestionResult",
    "Report",
    "build_report",
    "run_questions",
    "settings_summary",
]
