"""Ablation mode of ``mnemo eval``: one ingested store, several search configurations.

``--compare "fusion=rrf,neighbor_weight=0"`` (repeatable) adds a row; the first row is the
run's own settings. Every row searches the same database, so only retrieval differs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mnemo.eval.report import Report

SHOWN = ("R@5", "R@10", "All@10", "NDCG@10", "AllSess@5")


def parse_config(text: str) -> dict[str, str]:
    """``"a=1,b=x"`` -> ``{"a": "1", "b": "x"}``; ValueError names a malformed part."""
    out: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--compare expects KEY=VALUE[,KEY=VALUE...], got {text!r}")
        out[key.strip()] = value.strip()
    if not out:
        raise ValueError("--compare needs at least one KEY=VALUE")
    return out


def table(rows: list[tuple[str, Report]]) -> Table:
    """Overall metrics and per-group R@10 of every configuration, one row each."""
    first = rows[0][1]
    shown = [m for m in SHOWN if m in first.metrics]
    groups = list(first.groups)
    out = Table(title=f"ablation: {first.benchmark} ({first.questions} questions)")
    out.add_column("configuration", overflow="fold")
    for name in [*shown, *(f"{g} R@10" for g in groups), "p50 ms"]:
        out.add_column(name, justify="right")
    for label, rep in rows:
        cells = [f"{rep.overall[m]:.3f}" for m in shown]
        cells += [f"{rep.groups[g]['R@10']:.3f}" for g in groups]
        out.add_row(label, *cells, f"{rep.search_p50_ms:.1f}")
    return out


def write_json(path: Path, rows: list[tuple[str, Report]]) -> None:
    """Every configuration's report (without per-question details) as one JSON list."""
    data: list[dict[str, Any]] = [
        {"configuration": label, "report": json.loads(rep.to_json(per_question=False))}
        for label, rep in rows
    ]
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def plot(path: Path, rows: list[tuple[str, Report]]) -> None:
    """A PNG of overall recall@k against k, one line per configuration (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 5.5))
    styles = ["-", "--", ":", "-."]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (label, rep) in enumerate(rows):
        ks = rep.ks
        first_row = i == 0  # the run's own settings: drawn bold, on top
        ax.plot(
            ks,
            [rep.overall[f"R@{k}"] for k in ks],
            marker="o",
            label=label if len(label) <= 60 else label[:57] + "...",
            color="black" if first_row else colors[(i - 1) % len(colors)],
            linestyle="-" if first_row else styles[(i - 1) // len(colors) % len(styles)],
            linewidth=2.6 if first_row else 1.3,
            zorder=3 if first_row else 2,
        )
    first = rows[0][1]
    ax.set_xscale("log")
    ax.set_xticks(first.ks, [str(k) for k in first.ks])
    ax.set_xlabel("k (hits returned)")
    ax.set_ylabel("evidence recall@k")
    ax.set_ylim(0, 1)
    ax.grid(True, alpha=0.3)
    ax.set_title(f"{first.benchmark}: recall@k per configuration")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def render(console: Console, rows: list[tuple[str, Report]]) -> None:
    """Print the ablation table (at least 200 columns wide, so logs keep every figure)."""
    console.print(table(rows), width=max(console.width, 200))
