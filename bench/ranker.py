"""Fit the learned last stage (``mnemo.retrieval.signals.learned``) on the development splits.

One run:

1. ingests LoCoMo dev and LongMemEval_S dev (one store each, kept in ``--work``; the stores of
   ``bench/relevance.py`` are the same files);
2. collects every answerable question's pool, the best ``--depth`` distinct hits of every
   stage before the learned one (``Memory(..., ranker_depth=0, pool_factor=1)
   .search(limit=depth)``: the candidate pools of a default search of limit 10), in its
   own history (label 1 for its evidence turns) and in another history of the split, which
   cannot answer it (label 1 only for a text equal to one of its evidence turns), with the
   features of ``mnemo.retrieval.pool_features``: the very rows the pipeline computes; with
   ``--replay``, also the chat replay's pools (``ranker_replay.py``: each LoCoMo question
   asked again after it was stored with the dataset's answer, where the stored answer is
   labelled 1 too, or with a non-answer), weighed ``--replay-weight``;
3. cross-validates with folds grouped by conversation (a LoCoMo conversation, a LongMemEval
   question's haystack): per fold the ranking function is fitted on the questions of the
   other folds asked of their own history, and re-orders the held-out questions' own
   pools; R@10 of that order against the hand-tuned order of the same pools, per question,
   with a paired bootstrap, per category, wins and losses; for logistic regression and for
   boosted trees over a small grid (the best on LoCoMo that loses nothing on LongMemEval
   is chosen), and the feature-group ablation (``pool_features.GROUPS``);
4. the calibration layer (``ranker_model.Calibration``; the pool maxima it reads are
   ``--levels``) is fitted on the chosen function's
   out-of-fold logits of every pool, both histories (a pool in another history scored by a
   fold that held out its question's or its store's group), and reported: Brier score, log
   loss, ECE, reliability, and the best hit's probability with and without an answer;
5. ``--write`` fits the function on all of dev and writes it with the layer and its
   provenance to ``mnemo/data/rankers/<embedder>.json``, and the probe features the drift
   test compares (``tests/retrieval/data/ranker_probes.json``, computed with the hashing
   embedder so that they hold on every CPU; the default embedder's own vectors are held by
   ``tests/embedders/test_vector_drift.py``, written by ``scripts/reference_vectors.py``).

The searches are kept in ``--work`` (``pools-*.pkl``); a later run computes the features
again from the kept hits, so a new feature needs no new searches.

    OMP_NUM_THREADS=1 python bench/ranker.py --work /tmp/ranker --json docs/results/ranker.json
    OMP_NUM_THREADS=1 python bench/ranker.py --work /tmp/ranker --model trees --replay \
        --params '{"trees": 200, "leaves": 7, "rate": 0.05, "min_leaf": 100}' --write

(the second is how the shipped model was made; ``--lme-weight`` 12 and ``--levels``
calibrated,dense,query_covered are the defaults)

scikit-learn fits the models (``pip install scikit-learn``: a bench tool only); the run time
evaluates them with numpy.
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from common import ROOT, announce_machine, console, write_json
from facts import paired_bootstrap
from mnemo import Memory
from mnemo.cli.demo import sample_path
from mnemo.ops.importers import jsonl_batches
from mnemo.retrieval import pool_features, ranker_model
from mnemo.retrieval import relevance as calibrated
from ranker_pool import Pool, found, recall
from ranker_replay import collect_replay
from relevance import DATA, Split, lme_split, locomo_split

PROBES = (
    "What pet does Maya have?",
    "Where does Maya work?",
    "How is the training for the race going?",
    "quantum chromodynamics lecture",
)
PROBE_NOW = datetime(2024, 4, 1, tzinfo=UTC)
PROBE_FILE = ROOT / "tests" / "retrieval" / "data" / "ranker_probes.json"


def collect(split: Split, embedder: str, depth: int) -> list[Pool]:
    """Every answerable question's pool in its own history and in another one."""
    users = list(split.users)
    pools = []
    # pool_factor 1: the candidate pools of a search of limit ``depth`` are then as large as
    # those of a default search (limit 10: max(10 x 3, min_pool 50)), which the stage reads
    with Memory(split.db, embedder=embedder, ranker_depth=0, pool_factor=1) as mem:
        model = mem.pipeline.calibration
        for n, ask in enumerate(a for a in split.asks if a.answerable):
            other = users[(users.index(ask.user) + 1 + n % (len(users) - 1)) % len(users)]
            for user, own in ((ask.user, True), (other, False)):
                hits = mem.search(
                    ask.text, user_id=user, limit=depth, now=split.users[user], explain=True
                )
                keys = [ask.key(h.kind, h.metadata, h.session_id) if own else None for h in hits]
                if own:
                    y = [k in ask.evidence for k in keys]
                else:
                    y = [h.content in ask.evidence_texts for h in hits]
                pools.append(
                    Pool(
                        ask.id, split.name, ask.group,
                        frozenset({f"{split.name}:{ask.user}", f"{split.name}:{user}"}), own,
                        pool_features.matrix(hits, ask.text, model, depth),
                        np.asarray(y, dtype=np.float64), keys, set(ask.evidence), ask.text, hits,
                    )
                )  # fmt: skip
    return pools


# ---- models -------------------------------------------------------------------------------


def fit(kind: str, params: dict[str, Any], x: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
    """A fitted scikit-learn model of ``kind``: standardised logistic regression, or
    histogram gradient-boosted trees (single-threaded under OMP_NUM_THREADS=1)."""
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        model = make_pipeline(StandardScaler(), LogisticRegression(C=params["C"], max_iter=3000))
        model.fit(x, y, logisticregression__sample_weight=w)
        return model
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(
        max_iter=params["trees"], max_leaf_nodes=params["leaves"],
        learning_rate=params["rate"], min_samples_leaf=params["min_leaf"],
        early_stopping=False, random_state=0,
    )  # fmt: skip
    model.fit(x, y, sample_weight=w)
    return model


def raw(model: Any, x: np.ndarray) -> np.ndarray:
    """The model's logit per row."""
    return np.asarray(model.decision_function(x), dtype=np.float64).reshape(len(x))


def export(kind: str, model: Any, features: tuple[str, ...], x: np.ndarray) -> dict[str, Any]:
    """The JSON form of the ranking function ``mnemo.retrieval.ranker_model`` reads; checked
    against scikit-learn's own logits on ``x``."""
    if kind == "logistic":
        scaler, lr = model[0], model[1]
        body: dict[str, Any] = {
            "kind": "logistic", "features": list(features),
            "logistic": {
                "intercept": float(lr.intercept_[0]), "coef": lr.coef_[0].tolist(),
                "mean": scaler.mean_.tolist(), "scale": scaler.scale_.tolist(),
            },
        }  # fmt: skip
    else:
        nodes = []
        depth = 0
        for (predictor,) in model._predictors:  # scikit-learn's fitted trees (no public API)
            t = predictor.nodes
            leaf = t["is_leaf"].astype(bool)
            index = {k: t[k].astype(np.int64) for k in ("feature_idx", "left", "right")}
            nodes.append({
                "feature": np.where(leaf, -2, index["feature_idx"]).tolist(),
                "threshold": np.where(leaf, 0.0, t["num_threshold"]).tolist(),
                "left": np.where(leaf, -1, index["left"]).tolist(),
                "right": np.where(leaf, -1, index["right"]).tolist(),
                "value": np.where(leaf, t["value"], 0.0).tolist(),
            })  # fmt: skip
            depth = max(depth, int(t["depth"].max()))
        init = float(np.asarray(model._baseline_prediction).ravel()[0])
        body = {
            "kind": "trees", "features": list(features),
            "trees": {"init": init, "rate": 1.0, "depth": depth, "nodes": nodes},
        }  # fmt: skip
    ours = ranker_model.RankerModel.from_json(body).function.raw(x)
    gap = float(np.abs(ours - raw(model, x)).max())
    if gap > 1e-6:
        raise SystemExit(f"the exported model disagrees with scikit-learn by {gap}")
    return body


#: The pool maxima the calibration layer reads (query-level: they move every hit alike).
LEVEL = ("calibrated", "dense", "query_covered")


def levels(pool: Pool, names: tuple[str, ...] = LEVEL) -> np.ndarray:
    """The pool's maxima of the features ``names``."""
    cols = [pool_features.FEATURES.index(c) for c in names]
    return pool.x[:, cols].max(axis=0)


def calibrate(
    pools: list[Pool],
    raws: list[np.ndarray],
    lme_weight: float,
    replay_weight: float = 1.0,
    names: tuple[str, ...] = LEVEL,
) -> dict[str, Any]:
    """The outer layer fitted on every pool (its own history and another):
    logit = slope * raw + weights . levels + intercept, with slope > 0."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack(
        [np.column_stack([r, np.repeat(levels(p, names)[None, :], len(r), axis=0)])
         for p, r in zip(pools, raws, strict=True)]
    )  # fmt: skip
    y = np.concatenate([p.y for p in pools])
    w = weights(pools, lme_weight, replay_weight)
    lr = LogisticRegression(C=100.0, max_iter=3000).fit(x, y, sample_weight=w)
    slope = float(lr.coef_[0][0])
    if slope <= 0:
        raise SystemExit(f"the calibration's slope is {slope}: it would reverse the order")
    return {
        "slope": slope, "columns": list(names), "weights": lr.coef_[0][1:].tolist(),
        "intercept": float(lr.intercept_[0]),
    }  # fmt: skip


#: The hyperparameters cross-validation chooses among.
GRID: dict[str, list[dict[str, Any]]] = {
    "logistic": [{"C": c} for c in (0.01, 0.1, 1.0)],
    "trees": [
        {"trees": n, "leaves": 7, "rate": r, "min_leaf": m}
        for n, r, m in ((100, 0.1, 20), (200, 0.05, 100), (100, 0.1, 100))
    ],
}


def weights(pools: list[Pool], lme_weight: float, replay_weight: float = 1.0) -> np.ndarray:
    """Per row: 1, ``lme_weight`` for LongMemEval's (24 questions against LoCoMo's 760), or
    ``replay_weight`` for a chat replay pool's (two per LoCoMo question)."""
    scale = {"longmemeval": lme_weight, "replay-answer": replay_weight,
             "replay-non_answer": replay_weight}  # fmt: skip
    return np.concatenate([np.full(len(p.y), scale.get(p.split, 1.0)) for p in pools])


def fold_of(pools: list[Pool], folds: int) -> dict[str, int]:
    """Each group's fold: LoCoMo's conversations and LongMemEval's haystacks dealt in turn."""
    groups = sorted({g for p in pools for g in p.groups})
    out = {}
    for split in ("locomo", "longmemeval"):
        mine = [g for g in groups if g.startswith(f"{split}:")]
        out.update({g: i % folds for i, g in enumerate(mine)})
    return out


Scored = dict[str, tuple[float, float, float, float]]


def cross_validate(
    pools: list[Pool],
    kind: str,
    params: dict[str, Any],
    cols: list[int],
    lme_weight: float,
    replay_weight: float = 1.0,
    folds: int = 5,
) -> tuple[Scored, list[np.ndarray]]:
    """Per own pool (by id): (hand R@K, learned R@K, hand Ans|Ev@3, learned Ans|Ev@3); and
    every pool's out-of-fold logits.

    The ranking function learns from questions asked of their own history; each fold's model
    is fitted without the fold's groups and scores every pool that touches them."""
    fold = fold_of(pools, folds)
    out = {}
    raws: list[np.ndarray] = [np.zeros(0)] * len(pools)
    for f in range(folds):
        train = [p for p in pools if p.own and all(fold[g] != f for g in p.groups)]
        x = np.vstack([p.x[:, cols] for p in train])
        y = np.concatenate([p.y for p in train])
        model = fit(kind, params, x, y, weights(train, lme_weight, replay_weight))
        for n, p in enumerate(pools):
            if not raws[n].size and any(fold[g] == f for g in p.groups):
                raws[n] = raw(model, p.x[:, cols])
                if p.own:
                    order = np.argsort(-raws[n], kind="stable")
                    hand = np.arange(len(p.y))
                    out[p.id] = (recall(p, hand), recall(p, order), found(p, hand), found(p, order))
    return out, raws


#: The splits a summary reports (the replay's only when its pools were collected).
SPLITS = ("locomo", "longmemeval", "replay-answer", "replay-non_answer")


def summary(pools: list[Pool], scored: Scored) -> dict[str, Any]:
    """Hand and learned R@K per split and category, the paired bootstrap, wins and losses;
    for a chat replay split also ``Ans|Ev@3`` (hand, learned)."""
    by = {p.id: p for p in pools if p.own}
    out: dict[str, Any] = {}
    for split in SPLITS:
        ids = [i for i in scored if by[i].split == split]
        if not ids:
            continue
        hand = [scored[i][0] for i in ids]
        learned = [scored[i][1] for i in ids]
        row: dict[str, Any] = {
            "questions": len(ids),
            "hand": round(float(np.mean(hand)), 4),
            "learned": round(float(np.mean(learned)), 4),
            "bootstrap": {k: round(v, 4) for k, v in paired_bootstrap(hand, learned).items()},
        }
        cats: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for i in ids:
            cats[by[i].category].append(scored[i][:2])
        if split.startswith("replay-"):
            row["answer_or_evidence@3"] = {
                "hand": round(float(np.mean([scored[i][2] for i in ids])), 4),
                "learned": round(float(np.mean([scored[i][3] for i in ids])), 4),
            }
        row["categories"] = {
            c: {
                "questions": len(v),
                "hand": round(float(np.mean([a for a, _ in v])), 4),
                "learned": round(float(np.mean([b for _, b in v])), 4),
                "wins": sum(b > a for a, b in v),
                "losses": sum(b < a for a, b in v),
            }
            for c, v in sorted(cats.items())
        }
        out[split] = row
    return out


def calibration_report(
    pools: list[Pool], raws: list[np.ndarray], outer: dict[str, Any]
) -> dict[str, Any]:
    """The calibrated probability of every out-of-fold pool: Brier score, log loss, ECE over
    10 equal-count bins with its reliability table, and the best hit's probability in a
    history that cannot answer (quartiles) against one that can."""
    layer = ranker_model.Calibration(
        outer["slope"], np.asarray([pool_features.FEATURES.index(c) for c in outer["columns"]]),
        np.asarray(outer["weights"]), outer["intercept"],
    )  # fmt: skip
    probs = [1 / (1 + np.exp(-layer.logit(r, p.x))) for p, r in zip(pools, raws, strict=True)]
    p = np.concatenate(probs)
    y = np.concatenate([pool.y for pool in pools])
    order = np.argsort(p, kind="stable")
    table, ece = [], 0.0
    for chunk in np.array_split(order, 10):
        mean_p, rate = float(p[chunk].mean()), float(y[chunk].mean())
        ece += len(chunk) / len(p) * abs(mean_p - rate)
        table.append({"n": len(chunk), "mean_p": round(mean_p, 4), "observed": round(rate, 4)})
    q = np.clip(p, 1e-12, 1 - 1e-12)
    top = {
        kind: np.percentile([float(pr.max()) for pool, pr in zip(pools, probs, strict=True)
                             if pool.own is own and len(pr)], [25, 50, 75]).round(4).tolist()
        for kind, own in (("own", True), ("other", False))
    }  # fmt: skip
    summary = {
        "brier": round(float(np.mean((p - y) ** 2)), 5),
        "log_loss": round(float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q))), 5),
        "ece": round(ece, 5),
        "best_hit_quartiles": top,
    }
    return {"summary": summary, "reliability": table}


def line(name: str, s: dict[str, Any]) -> str:
    """One printed line of a summary."""
    lo, lm = s["locomo"], s["longmemeval"]
    b = lo["bootstrap"]
    return (
        f"{name:34s} LoCoMo {lo['hand']:.4f} -> {lo['learned']:.4f} "
        f"({b['diff']:+.4f} [{b['lo']:+.4f}, {b['hi']:+.4f}] up {b['up']} down {b['down']})  "
        f"LME {lm['hand']:.4f} -> {lm['learned']:.4f} (down {lm['bootstrap']['down']})"
        + "".join(
            f"  {split[7:]} R@10 {s[split]['hand']:.3f} -> {s[split]['learned']:.3f}, "
            f"Ans|Ev@3 {s[split]['answer_or_evidence@3']['hand']:.3f} -> "
            f"{s[split]['answer_or_evidence@3']['learned']:.3f}"
            for split in SPLITS[2:]
            if split in s
        )
    )


# ---- probes (the drift test's reference) ---------------------------------------------------


def probe_rows(embedder: str, depth: int, work: Path) -> list[dict[str, Any]]:
    """The features of :data:`PROBES` over the bundled sample conversation."""
    db = work / "probes.db"
    db.unlink(missing_ok=True)
    out = []
    with Memory(str(db), embedder=embedder, ranker_depth=0, pool_factor=1) as mem:
        for batch in jsonl_batches(sample_path(), "maya", "default"):
            mem.add_messages(batch.turns, user_id="maya", session_id=batch.session_id)
        for q in PROBES:
            hits = mem.search(q, user_id="maya", limit=depth, now=PROBE_NOW, explain=True)
            x = pool_features.matrix(hits, q, mem.pipeline.calibration, depth)
            out.append({"query": q, "contents": [h.content for h in hits], "x": x.tolist()})
    return out


#: The drift test's embedder: the hashing one gives the same vectors on every CPU, so the rows
#: match anywhere to 1e-4 (the int8 embedder's are held to their own stored vectors instead).
PROBE_EMBEDDER = "hashing"


def write_probes(depth: int, work: Path) -> None:
    """Write the drift test's reference features (:data:`PROBE_FILE`), computed with
    :data:`PROBE_EMBEDDER`."""
    PROBE_FILE.parent.mkdir(parents=True, exist_ok=True)
    probes = {
        "embedder": PROBE_EMBEDDER, "depth": depth, "now": PROBE_NOW.isoformat(),
        "probes": probe_rows(PROBE_EMBEDDER, depth, work),
    }  # fmt: skip
    PROBE_FILE.write_text(json.dumps(probes, indent=1) + "\n", encoding="utf-8")
    console.print(f"wrote {PROBE_FILE}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", default=str(DATA / "locomo-dev.json"))
    ap.add_argument("--longmemeval", default=str(DATA / "longmemeval-s-dev.json"))
    ap.add_argument("--work", default="/tmp/mnemo-ranker")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--depth", type=int, default=50)
    ap.add_argument("--model", choices=("logistic", "trees", "both"), default="both")
    ap.add_argument("--lme-weight", type=float, default=12.0)
    ap.add_argument(
        "--replay", action="store_true",
        help="also the chat replay's pools (ranker_replay.py): stored answers count as evidence",
    )  # fmt: skip
    ap.add_argument("--replay-weight", type=float, default=1.0)
    ap.add_argument(
        "--levels", default=",".join(LEVEL),
        help="the features whose pool maxima the calibration layer reads",
    )  # fmt: skip
    ap.add_argument(
        "--params",
        default=None,
        help='cross-validate only these, e.g. \'{"trees": 200, "leaves": 7, "rate": 0.05, '
        '"min_leaf": 100}\' (with one --model)',
    )
    ap.add_argument("--ablation", action="store_true", help="also the feature-group ablation")
    ap.add_argument("--write", action="store_true", help="fit on all of dev and ship it")
    ap.add_argument("--json", default=None)
    ap.add_argument("--probes", action="store_true", help="only write the probe features")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    if args.probes:
        write_probes(args.depth, work)
        return
    cache = work / f"pools-{args.embedder}-{args.depth}-v3.pkl"
    t0 = time.perf_counter()
    with Memory(str(work / "id.db"), embedder=args.embedder) as mem:
        model = calibrated.model_for(mem.embedder.id)
    if cache.exists():  # the searches are kept: features are computed again from the hits
        pools = pickle.loads(cache.read_bytes())
        for p in pools:
            p.x = pool_features.matrix(p.hits, p.query, model, args.depth)
    else:
        splits = [
            locomo_split(args.locomo, work, args.embedder),
            lme_split(args.longmemeval, work, args.embedder),
        ]
        pools = [p for s in splits for p in collect(s, args.embedder, args.depth)]
        cache.write_bytes(pickle.dumps(pools))
    if args.replay:
        replayed = work / f"replay-{args.embedder}-{args.depth}-v1.pkl"
        if replayed.exists():
            more = pickle.loads(replayed.read_bytes())
            for p in more:
                p.x = pool_features.matrix(p.hits, p.query, model, args.depth)
        else:
            split = locomo_split(args.locomo, work, args.embedder)
            more = collect_replay(split, args.locomo, work, args.embedder, args.depth)
            replayed.write_bytes(pickle.dumps(more))
        pools += more
    console.print(f"{len(pools)} pools, {sum(len(p.y) for p in pools)} rows "
                  f"({time.perf_counter() - t0:.0f} s)")  # fmt: skip
    features = pool_features.FEATURES
    every = list(range(len(features)))
    report: dict[str, Any] = {"machine": announce_machine(), "depth": args.depth, "models": {}}
    kinds = ("logistic", "trees") if args.model == "both" else (args.model,)
    best: tuple[float, str, dict[str, Any], list[np.ndarray]] | None = None
    for kind in kinds:
        for params in [json.loads(args.params)] if args.params else GRID[kind]:
            scored, raws = cross_validate(
                pools, kind, params, every, args.lme_weight, args.replay_weight
            )
            s = summary(pools, scored)
            name = f"{kind} {params}"
            console.print(line(name, s))
            report["models"][name] = s
            gain = s["locomo"]["bootstrap"]["diff"]
            if s["longmemeval"]["learned"] >= s["longmemeval"]["hand"] and (
                best is None or gain > best[0]
            ):
                best = (gain, kind, params, raws)
    if best is None:
        raise SystemExit("no model keeps LongMemEval dev: nothing to ship")
    _, kind, params, raws = best
    report["chosen"] = {"kind": kind, "params": params}
    outer = calibrate(
        pools, raws, args.lme_weight, args.replay_weight, tuple(args.levels.split(","))
    )
    report["calibration"] = {"layer": outer, **calibration_report(pools, raws, outer)}
    console.print(f"calibration (out of fold): {report['calibration']['summary']}")
    if args.ablation:
        report["ablation"] = {}
        names: list[str] = []
        for group, members in pool_features.GROUPS.items():
            names += members
            cols = [features.index(n) for n in names]
            weight = args.replay_weight
            scored, _ = cross_validate(pools, kind, params, cols, args.lme_weight, weight)
            s = summary(pools, scored)
            order = list(pool_features.GROUPS)
            label = "+".join(order[: order.index(group) + 1])
            console.print(line(label, s))
            report["ablation"][label] = s
    if args.write:
        own = [p for p in pools if p.own]
        x = np.vstack([p.x for p in own])
        y = np.concatenate([p.y for p in own])
        model = fit(kind, params, x, y, weights(own, args.lme_weight, args.replay_weight))
        body = export(kind, model, features, x)
        body["calibration"] = outer
        with Memory(str(work / "id.db"), embedder=args.embedder) as mem:
            embedder_id = mem.embedder.id
        body["provenance"] = {
            "date": datetime.now(UTC).date().isoformat(),
            "commit": report["machine"].get("git_commit"),
            "embedder": embedder_id,
            "data": [Path(args.locomo).name, Path(args.longmemeval).name],
            "rows": len(y), "positives": int(y.sum()), "depth": args.depth,
            "params": params, "lme_weight": args.lme_weight,
            "replay": args.replay, "replay_weight": args.replay_weight,
            "cross_validated": {
                s: {k: report["models"][f"{kind} {params}"][s][k] for k in ("hand", "learned")}
                for s in SPLITS if s in report["models"][f"{kind} {params}"]
            },
            "calibration": report["calibration"]["summary"],
        }  # fmt: skip
        path = ROOT / "mnemo" / ranker_model.FOLDER / ranker_model.file_name(embedder_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(body, separators=(",", ":")) + "\n", encoding="utf-8")
        console.print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
        write_probes(args.depth, work)
    write_json(args.json, report)


if __name__ == "__main__":
    main()

__all__ = ["Pool", "collect", "cross_validate", "export", "fit", "summary"]
