"""Printing and plotting a chat replay report (see :mod:`mnemo.eval.replay`)."""

from __future__ import annotations

from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from mnemo.eval.replay import MODES, ReplayReport

#: The replay modes as the table and the plot label them.
LABELS = {"fresh": "fresh store", "non_answer": "non-answers", "answer": "answers"}


def table(report: ReplayReport) -> Table:
    """One row per mode and round: the overall metrics."""
    out = Table(
        title=f"chat replay: {report.benchmark} ({report.results[0].questions} questions, "
        f"bundle {report.budget_tokens} tokens)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    out.add_column("replayed with")
    out.add_column("round", justify="right")
    for name in report.metrics:
        out.add_column(name, justify="right", no_wrap=True)
    for r in report.results:
        cells = [f"{r.overall.get(m, float('nan')):.3f}" for m in report.metrics]
        out.add_row(LABELS.get(r.mode, r.mode), str(r.round), *cells)
    return out


def render_replay(console: Console, report: ReplayReport) -> None:
    """Print the replay table (wide enough to keep every figure) and its provenance."""
    console.print(table(report), width=max(console.width, 160))
    console.print(f"[dim]embedder[/] {report.embedder}  [dim]dataset[/] {report.dataset}")


def plot_replay(path: Path, report: ReplayReport, metrics: tuple[str, ...] = ("R@10",)) -> None:
    """A PNG of each metric against the number of replayed asks, one line per mode (round 0
    is the fresh store) (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fresh = report.result("fresh", 0)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for mode in MODES[1:]:
        rows = sorted((r for r in report.results if r.mode == mode), key=lambda r: r.round)
        if fresh is not None:
            rows = [fresh, *rows]
        for metric in metrics:
            ax.plot(
                [r.round for r in rows],
                [r.overall[metric] for r in rows],
                marker="o",
                label=f"{metric}, {LABELS[mode]}",
            )
    ax.set_xlabel("times each question was asked and stored before")
    ax.set_ylabel("score")
    ax.set_ylim(0, 1)
    ax.grid(True, alpha=0.3)
    ax.set_title(f"chat replay: {report.benchmark}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


__all__ = ["LABELS", "plot_replay", "render_replay", "table"]
