"""Entity matches as a feature of the learned last stage: the ablation issue 35 asks for.

One run:

1. copies the stores the ranker's pools came from (``bench/ranker.py``'s ``--work``:
   ``locomo.db``, ``longmemeval.db``, ``replay-answer.db``, ``replay-non_answer.db``) into
   ``--work`` (the sources are only read) and drains their background jobs there, so the
   fact job fills the entity index (``mnemo.tiers.entities``); the drain's time and the
   entities and mentions it wrote are reported (a copy already drained is kept);
2. per kept pool (``pools-local-50-v3.pkl``, ``replay-local-50-v1.pkl``) reads the user's
   entity index once (``store.entities.entity_view``: the dictionary, and the entities
   each hit's turn mentions), matches the query against the dictionary as a search would
   (:func:`mnemo.index.entities.match_text`, case-blind; no parser), and adds the columns
   of :data:`COLUMNS` to the pool's rows (``pool_features.matrix``, computed again);
3. cross-validates the shipped configuration of the learned stage (boosted trees
   :data:`PARAMS`, LongMemEval weight 12, the replay's pools at weight 1, grouped 5-fold,
   ``bench/ranker.py``'s :func:`~ranker.cross_validate`) twice on the same folds: with
   ``pool_features.FEATURES`` and with the entity columns added; and reports, per
   question, the paired bootstrap of the second learned order against the first: R@10
   per split and LoCoMo category, wins and losses, ``Ans|Ev@3`` of the replay, and the
   same on the questions that name an entity other than a speaker.

Every value of an entity column comes from the query, the pool's hits and the user's entity
index: no label, no dataset name.

    nice -n 10 env OMP_NUM_THREADS=1 python bench/entity_ablation.py \\
        --pools /work/measure/ranker --work /tmp/entity --json out/entity.json
"""

from __future__ import annotations

import argparse
import pickle
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from common import announce_machine, console, write_json
from facts import paired_bootstrap
from mnemo import Memory
from mnemo.eval.replay import copy_sqlite
from mnemo.index.entities import dictionary, match_text, turn_entities, words
from mnemo.retrieval import pool_features
from mnemo.retrieval import relevance as calibrated
from mnemo.storage.ports.entities import EntityLookup
from ranker import cross_validate, summary
from ranker_pool import Pool

#: The learned stage's shipped configuration (``mnemo/data/rankers``'s provenance).
PARAMS: dict[str, Any] = {"trees": 200, "leaves": 7, "rate": 0.05, "min_leaf": 100}
LME_WEIGHT = 12.0
REPLAY_WEIGHT = 1.0
#: The pool files of ``bench/ranker.py`` and the store each split's pools came from.
POOL_FILES = ("pools-local-50-v3.pkl", "replay-local-50-v1.pkl")
STORES = {
    "locomo": "locomo.db",
    "longmemeval": "longmemeval.db",
    "replay-answer": "replay-answer.db",
    "replay-non_answer": "replay-non_answer.db",
}
#: The entity columns, added after ``pool_features.FEATURES``:
#: ``entity_match`` = the hit's turn mentions an entity the query names; ``entity_share`` =
#: the share of the query's entities it mentions; ``entity_other`` / ``entity_speaker`` =
#: it mentions one that is not / is a speaker of the pool (a hit's ``name``);
#: ``entity_said`` = its speaker is an entity the query names; ``query_entities`` =
#: ln(1 + the entities the query names), one value per query.
COLUMNS = (
    "entity_match",
    "entity_share",
    "entity_other",
    "entity_speaker",
    "entity_said",
    "query_entities",
)


def drain_copy(source: Path, target: Path, embedder: str) -> dict[str, Any]:
    """Copy ``source`` to ``target`` (unless done before) and run its pending jobs there;
    the drain's seconds and the entity index's size."""
    seconds = None
    if not target.exists():
        copy_sqlite(str(source), str(target))
        t0 = time.perf_counter()
        with Memory(str(target), embedder=embedder) as mem:
            jobs = mem.drain()
        seconds = round(time.perf_counter() - t0, 1)
        console.print(f"{target.name}: {jobs} jobs drained in {seconds} s")
    with sqlite3.connect(f"file:{target}?mode=ro", uri=True) as c:
        counts = {
            "entities": c.execute("SELECT count(*) FROM entities").fetchone()[0],
            "mentions": c.execute("SELECT count(*) FROM entity_mentions").fetchone()[0],
            "users": c.execute("SELECT count(DISTINCT user_id) FROM entities").fetchone()[0],
            "turns": c.execute("SELECT count(*) FROM messages").fetchone()[0],
            "pending_jobs": c.execute(
                "SELECT count(*) FROM jobs WHERE status != 'done'"
            ).fetchone()[0],
        }
    c.close()
    return {"drain_s": seconds, **counts}


@dataclass(frozen=True)
class QueryEntities:
    """What the query names of one pool's user index: entity ids, and those of them that
    are a speaker of the pool."""

    named: frozenset[str]
    speakers: frozenset[str]


def entity_columns(pool: Pool, mem: Memory) -> tuple[np.ndarray, QueryEntities]:
    """The :data:`COLUMNS` of ``pool``'s hits, from one read of the user's entity index."""
    rows = np.zeros((len(pool.hits), len(COLUMNS)))
    if not pool.hits:
        return rows, QueryEntities(frozenset(), frozenset())
    ids = tuple(h.id for h in pool.hits)
    lookup = EntityLookup(mem.tenant, pool.hits[0].user_id, ids, counted=False)
    view = mem.store.entities.entity_view(lookup)
    names = dictionary(view.entities)
    named = frozenset(m.entity_id for m in match_text(pool.query, names))
    by_id = {e.id: e for e in view.entities}
    voices = {words(h.name) for h in pool.hits if h.name}
    speakers = frozenset(e for e in named if words(by_id[e].name) in voices)
    if not named:
        return rows, QueryEntities(named, speakers)
    for n, (hit, mentioned) in enumerate(zip(pool.hits, turn_entities(ids, view), strict=True)):
        shared = mentioned & named
        said = {x.entity_id for x in match_text(hit.name or "", names)} if hit.name else set()
        rows[n, :5] = (
            float(bool(shared)),
            len(shared) / len(named),
            float(bool(shared - speakers)),
            float(bool(shared & speakers)),
            float(bool(said & named)),
        )
    rows[:, 5] = np.log1p(len(named))
    return rows, QueryEntities(named, speakers)


def load_pools(folder: Path, work: Path, embedder: str) -> list[Pool]:
    """The ranker's kept pools with their features computed again (as ``bench/ranker.py``)."""
    with Memory(str(work / "id.db"), embedder=embedder) as mem:
        model = calibrated.model_for(mem.embedder.id)
    pools: list[Pool] = []
    for name in POOL_FILES:
        pools += pickle.loads((folder / name).read_bytes())
    for p in pools:
        p.x = pool_features.matrix(p.hits, p.query, model, 50)
    return pools


def add_entities(
    pools: list[Pool], work: Path, embedder: str
) -> tuple[dict[str, QueryEntities], dict[str, float]]:
    """Append the entity columns to every pool's rows; per own pool (by id) what its query
    names; the seconds of the index reads per split."""
    named: dict[str, QueryEntities] = {}
    seconds: dict[str, float] = {}
    for split, db in STORES.items():
        mine = [p for p in pools if p.split == split]
        with Memory(str(work / db), embedder=embedder) as mem:
            t0 = time.perf_counter()
            for p in mine:
                cols, q = entity_columns(p, mem)
                p.x = np.hstack([p.x, cols])
                if p.own:
                    named[p.id] = q
            seconds[split] = round(time.perf_counter() - t0, 2)
    return named, seconds


def paired(pools: list[Pool], base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """The per-question comparison of two learned orders (``cross_validate``'s scores)."""
    by = {p.id: p for p in pools if p.own}

    def row(ids: list[str], metric: int) -> dict[str, Any]:
        before = [base[i][metric] for i in ids]
        after = [more[i][metric] for i in ids]
        b = paired_bootstrap(before, after)
        return {
            "questions": len(ids),
            "without": round(float(np.mean(before)), 4),
            "with": round(float(np.mean(after)), 4),
            **{k: round(v, 4) for k, v in b.items()},
        }

    out: dict[str, Any] = {}
    for split in STORES:
        ids = [i for i in base if by[i].split == split]
        if not ids:
            continue
        entry = {"r@10": row(ids, 1)}
        if split.startswith("replay-"):
            entry["answer_or_evidence@3"] = row(ids, 3)
        cats = sorted({by[i].category for i in ids})
        entry["categories"] = {c: row([i for i in ids if by[i].category == c], 1) for c in cats}
        out[split] = entry
    return out


def subset(scored: dict[str, Any], keep: set[str]) -> dict[str, Any]:
    """``scored`` restricted to the pools ``keep``."""
    return {i: v for i, v in scored.items() if i in keep}


def coverage(pools: list[Pool], named: dict[str, QueryEntities]) -> dict[str, Any]:
    """Per split: questions, those naming any entity, a non-speaker one, a speaker; and how
    many evidence hits and other hits the entity match marks (own pools)."""
    out: dict[str, Any] = {}
    at = len(pool_features.FEATURES)
    for split in STORES:
        mine = [p for p in pools if p.own and p.split == split]
        if not mine:
            continue
        marks: Counter[str] = Counter()
        for p in mine:
            match = p.x[:, at] > 0
            marks["evidence_marked"] += int((match & (p.y > 0)).sum())
            marks["evidence"] += int((p.y > 0).sum())
            marks["others_marked"] += int((match & (p.y == 0)).sum())
            marks["others"] += int((p.y == 0).sum())
        out[split] = {
            "questions": len(mine),
            "name_an_entity": sum(bool(named[p.id].named) for p in mine),
            "name_a_non_speaker": sum(bool(named[p.id].named - named[p.id].speakers) for p in mine),
            "name_a_speaker": sum(bool(named[p.id].speakers) for p in mine),
            **marks,
        }
    return out


def show(label: str, comparison: dict[str, Any]) -> None:
    """Print one comparison's lines."""
    for split, entry in comparison.items():
        r = entry["r@10"]
        console.print(
            f"{label} {split:18s} n={r['questions']:4d} R@10 {r['without']:.4f} -> "
            f"{r['with']:.4f} ({r['diff']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}] "
            f"up {r['up']} down {r['down']})"
        )
        if "answer_or_evidence@3" in entry:
            a = entry["answer_or_evidence@3"]
            console.print(
                f"{'':{len(label)}s} {'':18s} Ans|Ev@3 {a['without']:.4f} -> {a['with']:.4f} "
                f"({a['diff']:+.4f} [{a['lo']:+.4f}, {a['hi']:+.4f}])"
            )
        if split == "locomo":
            for c, r in entry["categories"].items():
                console.print(
                    f"{'':{len(label)}s}   {c:16s} n={r['questions']:4d} {r['without']:.4f}"
                    f" -> {r['with']:.4f} ({r['diff']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}]"
                    f" up {r['up']} down {r['down']})"
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pools", default="/work/measure/ranker", help="bench/ranker.py's --work")
    ap.add_argument("--work", default="/tmp/mnemo-entity")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--prepare", action="store_true", help="only copy and drain the stores")
    ap.add_argument(
        "--columns", default=",".join(COLUMNS), help="the entity columns the second run adds"
    )
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    source, work = Path(args.pools), Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    chosen = args.columns.split(",")
    if unknown := set(chosen) - set(COLUMNS):
        raise SystemExit(f"unknown entity columns: {sorted(unknown)}")
    report: dict[str, Any] = {"machine": announce_machine(), "params": PARAMS, "columns": chosen}
    report["stores"] = {
        split: drain_copy(source / db, work / db, args.embedder) for split, db in STORES.items()
    }
    console.print(report["stores"])
    if args.prepare:
        write_json(args.json, report)
        return
    pools = load_pools(source, work, args.embedder)
    named, seconds = add_entities(pools, work, args.embedder)
    report["index_read_s"] = seconds
    report["coverage"] = coverage(pools, named)
    console.print(report["coverage"])
    base_cols = list(range(len(pool_features.FEATURES)))
    every = base_cols + [len(base_cols) + COLUMNS.index(c) for c in chosen]
    runs = {}
    for label, cols in (("without", base_cols), ("with", every)):
        t0 = time.perf_counter()
        scored, _ = cross_validate(pools, "trees", PARAMS, cols, LME_WEIGHT, REPLAY_WEIGHT)
        runs[label] = scored
        report[f"cv_{label}"] = summary(pools, scored)
        console.print(f"cross-validated {label} the entity columns "
                      f"({time.perf_counter() - t0:.0f} s)")  # fmt: skip
    report["paired"] = paired(pools, runs["without"], runs["with"])
    show("all", report["paired"])
    others = {i for i, q in named.items() if q.named - q.speakers}
    report["paired_non_speaker"] = paired(
        pools, subset(runs["without"], others), subset(runs["with"], others)
    )
    show("non-speaker", report["paired_non_speaker"])
    write_json(args.json, report)


if __name__ == "__main__":
    main()

__all__ = ["COLUMNS", "PARAMS", "QueryEntities", "add_entities", "entity_columns", "paired"]
