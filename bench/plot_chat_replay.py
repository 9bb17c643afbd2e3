"""The figure of docs/evaluation.md's chat replay, from the JSON results of
``mnemo eval locomo --replay --json`` (now) and ``bench/chat_replay_public.py`` (before).

    python bench/plot_chat_replay.py --now docs/results/chat-replay-locomo-dev.json \\
        --before docs/results/chat-replay-locomo-dev-before.json \\
        --out docs/chat-replay-locomo-dev.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

LABELS = {"non_answer": "non-answers", "answer": "correct answers"}
PANELS = (
    ("R@10", "evidence R@10"),
    ("Ans|Ev@3", "answer or evidence in top 3"),
    ("Ctx", "evidence in the 1,500-token bundle"),
)


def series(data: dict[str, Any], mode: str, metric: str) -> tuple[list[int], list[float]]:
    """Rounds and values of one mode, the fresh store as round 0."""
    fresh = next(r for r in data["results"] if r["mode"] == "fresh")
    rows = sorted((r for r in data["results"] if r["mode"] == mode), key=lambda r: r["round"])
    rows = [fresh, *rows]
    return [r["round"] for r in rows], [r["overall"][metric] for r in rows]


def main() -> None:
    """Command line entry point."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--now", required=True)
    p.add_argument("--before", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    now = json.loads(Path(args.now).read_text())
    before = json.loads(Path(args.before).read_text())
    fig, axes = plt.subplots(1, len(PANELS), figsize=(14, 4.2), sharey=True)
    for ax, (metric, title) in zip(axes, PANELS, strict=True):
        for mode, color in (("non_answer", "tab:red"), ("answer", "tab:blue")):
            for data, style, who in ((before, ":", "before"), (now, "-", "now")):
                x, y = series(data, mode, metric)
                ax.plot(x, y, style, marker="o", color=color, label=f"{who}, {LABELS[mode]}")
        ax.set_title(title)
        ax.set_xlabel("times each question was asked and stored before")
        ax.set_xticks(x)
        ax.set_ylim(0, 1)
        ax.grid(True, alpha=0.3)
    asked = next(r for r in now["results"] if r["mode"] == "fresh")["questions"]
    axes[0].set_ylabel(f"share ({now['benchmark']} dev, {asked} questions)")
    axes[-1].legend(fontsize=8, loc="lower left")
    fig.suptitle(f"chat replay: {now['benchmark']} (round 0 = the store as ingested)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
