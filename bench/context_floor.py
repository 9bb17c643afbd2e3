"""A context that stays empty when nothing fits: what ``Memory.context`` injects for questions
no conversation is about, and whether answerable questions keep their evidence.

LoCoMo dev is ingested as the eval does (one store, cached in ``--work``). Then, with the
default budget, in every conversation:

* every answerable question (categories 1-4): the items the context holds (recalled hits;
  profile and summaries apart) and whether at least one evidence turn is among them;
* every off-topic question of :data:`OFF_TOPIC` (written for this bench, about nothing the
  conversations discuss): the items the context holds. The list is split in two halves by
  position: ``tune`` (the even places) and ``held`` (the odd places, kept out of any choice
  of floors); both are reported.

Each arm sets the context floors (the settings ``min_relevance`` and
``min_expected_evidence``); ``settings`` is the shipped defaults, ``none`` no floor. With
``--items``, every context of arm ``none`` is written out as its items' (relevance, is
evidence), from which any pair of floors can be replayed offline (the floors keep a prefix
of each search's hits, since relevance never rises down the list). The report gives, per
arm, the
mean items for off-topic questions (tune / held), the share of answerable questions with
evidence in the context, and the distribution (quartiles, max) of context sizes for both
kinds of question.

    OMP_NUM_THREADS=1 python bench/context_floor.py --data ../shared/data/locomo-dev.json \
        --json docs/results/context_floor.json
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from common import ROOT, announce_machine, console, write_json
from mnemo import Memory
from mnemo.eval.locomo import ingest_locomo, load_locomo
from mnemo.schemas import ContextItem

#: Questions about nothing the LoCoMo conversations discuss (general knowledge, tasks for an
#: assistant, other people's lives); written for this bench, not drawn from any dataset.
OFF_TOPIC = (
    "What is the boiling point of liquid nitrogen?",
    "How do I reset the router password on a Netgear R7000?",
    "Explain the offside rule in ice hockey",
    "What's the capital of Burkina Faso?",
    "Can you convert 350 degrees Fahrenheit to Celsius?",
    "Who won the 1998 Tour de France?",
    "How many moons does Neptune have?",
    "What is a monad in Haskell?",
    "Summarize the plot of Moby Dick",
    "How do I file a VAT return in Germany?",
    "What does the Krebs cycle produce?",
    "Write a haiku about the stock market",
    "What is the torque spec for a Honda Civic lug nut?",
    "Which enzyme unwinds DNA during replication?",
    "How do I compile a Rust project for ARM?",
    "What time zone is Ulaanbaatar in?",
    "Translate 'where is the train station' into Finnish",
    "What are the side effects of metformin?",
    "How is the electoral college apportioned?",
    "Recommend a sorting algorithm for nearly sorted data",
    "What's the airspeed velocity of an unladen swallow?",
    "How do you calculate the Sharpe ratio?",
    "Describe the architecture of a transformer language model",
    "What is the population of Reykjavik?",
    "How do I remove a stripped screw?",
    "What did the Treaty of Westphalia establish?",
    "Give me the SQL to find duplicate rows in a table",
    "What is the half-life of carbon-14?",
    "How do I descale an espresso machine?",
    "Which planet has the longest day?",
)
BUDGET = 1500
#: The floors' settings.
FLOORS = ("min_relevance", "min_expected_evidence")
#: Arms: the floors' settings of each (an empty dict: the shipped defaults).
ARMS: dict[str, dict[str, float]] = {"none": dict.fromkeys(FLOORS, 0.0), "settings": {}}


def recalled(items: list[ContextItem]) -> list[ContextItem]:
    """The recalled hits among a bundle's items (profile, summaries and the query apart)."""
    return [i for i in items if i.kind not in ("profile", "summary", "query")]


def spread(values: list[int]) -> dict[str, float]:
    """Mean, quartiles and max of a list of counts."""
    a = np.asarray(values, dtype=float)
    q = np.percentile(a, [25, 50, 75]) if len(a) else [0.0, 0.0, 0.0]
    return {
        "mean": round(float(a.mean()), 2) if len(a) else 0.0,
        "p25": float(q[0]),
        "p50": float(q[1]),
        "p75": float(q[2]),
        "max": float(a.max()) if len(a) else 0.0,
    }


def run_arm(mem: Memory, data: Any, items_of: list[Any] | None = None) -> dict[str, Any]:
    """One arm over every conversation: sizes and evidence for both kinds of question (with
    ``items_of``, each context's items as (relevance, is evidence) are appended to it)."""
    ended = {c.sample_id: c.ended_at for c in data.conversations}
    sizes, hit_evidence = [], []
    for q in data.questions:
        bundle = mem.context(q.question, q.sample_id, None, BUDGET, now=ended[q.sample_id])
        items = recalled(bundle.hits())
        held = {i.metadata.get("dia_id") for i in items if i.kind == "message"}
        sizes.append(len(items))
        hit_evidence.append(bool(held & set(q.evidence)))
        if items_of is not None:
            marks = [(i.relevance, i.metadata.get("dia_id") in q.evidence) for i in items]
            items_of.append({"kind": "answerable", "items": marks})
    off: dict[str, list[int]] = {"tune": [], "held": []}
    for c in data.conversations:
        for n, text in enumerate(OFF_TOPIC):
            bundle = mem.context(text, c.sample_id, None, BUDGET, now=ended[c.sample_id])
            half = "tune" if n % 2 == 0 else "held"
            off[half].append(len(recalled(bundle.hits())))
            if items_of is not None:
                marks = [(i.relevance, False) for i in recalled(bundle.hits())]
                items_of.append({"kind": half, "items": marks})
    return {
        "answerable": {
            "questions": len(sizes),
            "with_evidence": round(float(np.mean(hit_evidence)), 4),
            "items": spread(sizes),
        },
        "off_topic": {half: spread(v) for half, v in off.items()},
    }


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "locomo-dev.json"))
    parser.add_argument("--work", help="Folder to keep the ingested store in (reused).")
    parser.add_argument("--embedder", default="local")
    parser.add_argument(
        "--arm",
        action="append",
        default=[],
        metavar="NAME=FLOOR,TOP",
        help="An extra arm of floors to measure (repeatable).",
    )
    parser.add_argument("--json", help="Write the results to this file.")
    parser.add_argument(
        "--items", help="Write every context's items (relevance, is evidence) of arm none here."
    )
    args = parser.parse_args()
    arms = dict(ARMS)
    for spec in args.arm:
        name, _, values = spec.partition("=")
        arms[name] = dict(zip(FLOORS, (float(v) for v in values.split(",")), strict=True))
    data = load_locomo(args.data)
    work = Path(args.work or tempfile.mkdtemp(prefix="mnemo-floor-"))
    work.mkdir(parents=True, exist_ok=True)
    db = str(work / f"locomo-{args.embedder.replace(':', '_')}.db")
    if not Path(db).exists():
        with Memory(db, embedder=args.embedder) as mem:
            ingest_locomo(mem, data)
    report: dict[str, Any] = {"machine": announce_machine(), "budget": BUDGET, "arms": {}}
    for name, arm in arms.items():
        with Memory(db, embedder=args.embedder, **arm) as mem:
            items: list[Any] | None = [] if args.items and name == "none" else None
            row = run_arm(mem, data, items)
            if items is not None:
                write_json(args.items, items)
            floors = {n: getattr(mem.settings, n) for n in FLOORS}
        report["arms"][name] = {"floors": floors, **row}
        off = row["off_topic"]
        console.print(
            f"{name:>10}: off-topic items {off['tune']['mean']:.2f} (tune) "
            f"{off['held']['mean']:.2f} (held); answerable with evidence "
            f"{row['answerable']['with_evidence']:.3f}, items "
            f"{row['answerable']['items']['mean']:.2f}"
        )
    if args.json:
        write_json(args.json, report)


if __name__ == "__main__":
    main()
