"""Calibrated relevance (``hit.relevance``) and the injection floor (``min_relevance``).

One run gives every number of docs/evaluation.md's "Relevance a caller can trust":

1. LoCoMo dev and LongMemEval_S dev are ingested (one store each, kept in ``--work``);
2. every question's top-50 hits are collected twice: in its own history (label 1 for its
   evidence turns) and in another history of the same split, which cannot answer it (label 1
   only for a text equal to one of its evidence turns): half the queries the model sees have
   nothing to find;
3. calibration: the logistic model of ``mnemo.retrieval.relevance`` fitted on one split and
   checked on the other (both ways), and the shipped coefficients on each: Brier score, log
   loss, ECE over 10 equal-count bins, reliability tables; ``--fit`` refits on both splits
   (each split weighing the same) and writes ``mnemo/retrieval/relevance_model.py`` (run
   ``ruff format`` on it afterwards); ``--embedder NAME`` fits another embedder;
4. context side by side, in the same run: every question's ``Memory.context`` (1500 tokens)
   today (both floors 0), with the default floors (``min_relevance``, ``min_expected_evidence``)
   and with each floor alone: items and tokens injected and the share of evidence turns the
   context carries; the same for LoCoMo's unanswerable category 5 and LongMemEval's
   abstention questions (``_abs``; none in the dev split), and for off-topic probes
   ("quantum chromodynamics lecture") in every store.

    OMP_NUM_THREADS=1 python bench/relevance.py --locomo ../shared/data/locomo-dev.json \
        --longmemeval ../shared/data/longmemeval-s-dev.json --fit \
        --json docs/results/relevance.json
"""

from __future__ import annotations

import argparse
import importlib
import json
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from common import ROOT, announce_machine, console, write_json
from mnemo import Memory
from mnemo.eval.locomo import ingest_locomo, load_locomo
from mnemo.eval.longmemeval import ingest_longmemeval, load_longmemeval, turn_key
from mnemo.retrieval import relevance, relevance_model
from mnemo.schemas import ContextItem, Hit

DATA = ROOT.parent / "shared" / "data"
LIMIT = 50
BUDGET = 1500
PROBES = (
    "quantum chromodynamics lecture",
    "What is the boiling point of liquid nitrogen?",
    "Explain the offside rule in ice hockey",
)
MODEL_PATH = ROOT / "mnemo" / "retrieval" / "relevance_model.py"


@dataclass
class Ask:
    """One question as the bench asks it: where, when, and what counts as its evidence."""

    id: str
    split: str
    group: str
    user: str
    text: str
    now: datetime | None
    evidence: set[str]
    evidence_texts: set[str]
    key: Callable[[str | None, dict[str, Any], str | None], str | None]
    answerable: bool = True


@dataclass
class Split:
    """One dev split: its store and its questions."""

    name: str
    db: str
    asks: list[Ask]
    users: dict[str, datetime | None] = field(default_factory=dict)


def locomo_key(kind: str | None, meta: dict[str, Any], session: str | None) -> str | None:
    """A LoCoMo turn's id (its dia_id)."""
    dia = meta.get("dia_id") if kind == "message" else None
    return dia if isinstance(dia, str) else None


def lme_key(kind: str | None, meta: dict[str, Any], session: str | None) -> str | None:
    """A LongMemEval turn's id (``<session>#<index>``)."""
    index = meta.get("turn_index")
    if kind != "message" or session is None or not isinstance(index, int):
        return None
    return turn_key(session, index)


def store(work: Path, name: str, embedder: str, ingest: Callable[[Memory], object]) -> str:
    """The path of a split's store for an embedder (the default one keeps the plain name),
    ingested by ``ingest`` unless it is already there."""
    db = str(work / (f"{name}.db" if embedder == "local" else f"{name}-{embedder}.db"))
    if not Path(db).exists():
        with Memory(db, embedder=embedder) as mem:
            ingest(mem)
    return db


def locomo_split(path: str, work: Path, embedder: str) -> Split:
    """LoCoMo dev: questions of categories 1-4, and category 5 as unanswerable."""
    data = load_locomo(path)
    db = store(work, "locomo", embedder, lambda mem: ingest_locomo(mem, data))
    ended = {c.sample_id: c.ended_at for c in data.conversations}
    texts = {
        (c.sample_id, t.dia_id): t.content for c in data.conversations for s in c.sessions
        for t in s.turns
    }  # fmt: skip
    asks = [
        Ask(q.id, "locomo", q.group, q.sample_id, q.question, ended[q.sample_id],
            set(q.evidence), {texts[(q.sample_id, e)] for e in q.evidence}, locomo_key)
        for q in data.questions
    ]  # fmt: skip
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    for sample in raw:  # category 5: adversarial, unanswerable (the loader leaves it out)
        sid = sample["sample_id"]
        for i, qa in enumerate(sample["qa"]):
            if qa.get("category") == 5:
                asks.append(
                    Ask(f"{sid}#{i}", "locomo", "unanswerable", sid, qa["question"],
                        ended[sid], set(), set(), locomo_key, answerable=False)
                )  # fmt: skip
    return Split("locomo", db, asks, ended)


def lme_split(path: str, work: Path, embedder: str) -> Split:
    """LongMemEval_S dev: every question in its own haystack (``_abs`` ones unanswerable)."""
    data = load_longmemeval(path)
    db = store(work, "longmemeval", embedder, lambda mem: ingest_longmemeval(mem, data))
    asks = []
    for q in data.questions:
        texts = {
            t.content for s in q.sessions for t in s.turns if turn_key(s.id, t.index) in q.evidence
        }
        asks.append(
            Ask(q.question_id, "longmemeval", q.question_type, q.question_id, q.question,
                q.question_date, set(q.evidence), texts, lme_key,
                answerable=not q.question_id.endswith("_abs"))
        )  # fmt: skip
    return Split("longmemeval", db, asks, {q.question_id: q.question_date for q in data.questions})


# ---- 2. hits and labels -------------------------------------------------------------------


def rows_of(mem: Memory, split: Split) -> list[dict[str, Any]]:
    """Features and labels of every answerable question's top hits, in its own history and
    in the next history of the split (a store that cannot answer it)."""
    users = list(split.users)
    rows = []
    for n, ask in enumerate(a for a in split.asks if a.answerable):
        other = users[(users.index(ask.user) + 1 + n % (len(users) - 1)) % len(users)]
        for user, own in ((ask.user, True), (other, False)):
            hits = mem.search(ask.text, user_id=user, limit=LIMIT, now=split.users[user])
            for i, h in enumerate(hits):
                key = ask.key(h.kind, h.metadata, h.session_id) if own else None
                label = key in ask.evidence if own else h.content in ask.evidence_texts
                x = relevance.features(h.scores, i)
                rows.append({"q": ask.id, "own": own, "y": int(label), "x": x})
    return rows


def matrix(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """(X with a leading column of ones, y)."""
    x = np.array([[1.0] + [r["x"][f] for f in relevance.FEATURES] for r in rows])
    return x, np.array([r["y"] for r in rows], dtype=np.float64)


# ---- 3. fit and calibration ---------------------------------------------------------------


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1e-2) -> np.ndarray:
    """Weighted logistic regression (Newton's method, an L2 penalty on all but the intercept)
    held to :data:`relevance.SIGNS`: a coefficient that leaves its sign is set to 0 and the
    others refitted, until every one keeps its sign."""
    free = np.ones(x.shape[1], dtype=bool)
    signs = np.array([0] + [relevance.SIGNS[f] for f in relevance.FEATURES])
    while True:
        beta = np.zeros(x.shape[1])
        cols = np.flatnonzero(free)
        xs = x[:, cols]
        penalty = np.full(len(cols), l2)
        penalty[cols == 0] = 0.0
        b = np.zeros(len(cols))
        for _ in range(100):
            p = 1.0 / (1.0 + np.exp(-(xs @ b)))
            grad = xs.T @ (w * (p - y)) + penalty * b
            hess = (xs * (w * p * (1 - p))[:, None]).T @ xs + np.diag(penalty + 1e-9)
            step = np.linalg.solve(hess, grad)
            b -= step
            if np.abs(step).max() < 1e-9:
                break
        beta[cols] = b
        wrong = (signs * beta < 0) & free
        if not wrong.any():
            return beta
        free &= ~wrong


def predict(beta: np.ndarray, x: np.ndarray) -> np.ndarray:
    """p = sigmoid(X beta)."""
    return np.asarray(1.0 / (1.0 + np.exp(-(x @ beta))))


def reliability(p: np.ndarray, y: np.ndarray, bins: int) -> tuple[list[dict[str, Any]], float]:
    """The reliability table over ``bins`` equal-count bins of ``p``, and its ECE."""
    order = np.argsort(p, kind="stable")
    table, ece = [], 0.0
    for chunk in np.array_split(order, bins):
        if not len(chunk):
            continue
        mean_p, rate = float(p[chunk].mean()), float(y[chunk].mean())
        ece += len(chunk) / len(p) * abs(mean_p - rate)
        table.append({"n": len(chunk), "mean_p": round(mean_p, 4), "observed": round(rate, 4)})
    return table, ece


def calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> dict[str, Any]:
    """Brier score, log loss, ECE over ``bins`` equal-count bins, the reliability table, and
    the table of the top tenth of ``p`` in ``bins`` bins of its own (where the evidence is)."""
    table, ece = reliability(p, y, bins)
    top = p >= np.quantile(p, 0.9)
    q = np.clip(p, 1e-12, 1 - 1e-12)
    return {
        "n": len(p),
        "positives": int(y.sum()),
        "brier": round(float(np.mean((p - y) ** 2)), 5),
        "brier_base_rate": round(float(np.mean((y.mean() - y) ** 2)), 5),
        "log_loss": round(float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q))), 5),
        "ece": round(ece, 5),
        "reliability": table,
        "reliability_top_tenth": reliability(p[top], y[top], bins)[0],
    }


def beta_of(model: relevance.RelevanceModel) -> np.ndarray:
    """The model's coefficients as a vector (intercept first)."""
    return np.array([model.intercept] + [model.coef.get(f, 0.0) for f in relevance.FEATURES])


def coef_dict(beta: np.ndarray) -> dict[str, Any]:
    """A fitted vector as the model module stores it."""
    coef = {f: round(float(b), 4) for f, b in zip(relevance.FEATURES, beta[1:], strict=True)}
    return {"intercept": round(float(beta[0]), 4), "coef": {k: v for k, v in coef.items() if v}}


def write_model(embedder: str, fitted: dict[str, Any], rows: dict[str, int]) -> None:
    """Write ``mnemo/retrieval/relevance_model.py`` with ``fitted`` for ``embedder`` (the
    other embedders' coefficients are kept)."""
    models = {**relevance_model.MODELS, embedder: {**fitted, "fitted_on": rows}}
    body = json.dumps(models, indent=4)
    MODEL_PATH.write_text(
        '"""Coefficients of :mod:`mnemo.retrieval.relevance` per embedder id (written by\n'
        '``bench/relevance.py --fit``; do not edit by hand)."""\n\n'
        "from __future__ import annotations\n\nfrom typing import Any\n\n"
        "#: The embedder whose coefficients serve embedders that have none of their own.\n"
        f'DEFAULT_EMBEDDER = "{relevance_model.DEFAULT_EMBEDDER}"\n'
        "#: Per embedder id: intercept, coefficients, and how many hits they were fitted on.\n"
        f"MODELS: dict[str, dict[str, Any]] = {body}\n",
        encoding="utf-8",
    )
    console.print(f"[dim]wrote {MODEL_PATH}[/dim]")


# ---- 4. context before / after ------------------------------------------------------------


def injected(items: Iterable[ContextItem]) -> list[ContextItem]:
    """The recalled hits among a bundle's items (profile and summaries apart)."""
    return [i for i in items if i.kind not in ("profile", "summary", "query")]


def arms(settings: Any) -> dict[str, tuple[float, float]]:
    """The context arms measured side by side: (min_relevance, min_expected_evidence)."""
    floor, top = settings.min_relevance, settings.min_expected_evidence
    return {
        "today": (0.0, 0.0),
        "default": (floor, top),
        "floor_only": (floor, 0.0),
        "top_only": (0.0, top),
    }


def context_rows(
    mem: Memory, split: Split, arm_floors: dict[str, tuple[float, float]]
) -> list[dict[str, Any]]:
    """Per question and arm: items, tokens and evidence turns the context carries."""
    out = []
    for ask in split.asks:
        row: dict[str, Any] = {"id": ask.id, "group": ask.group, "answerable": ask.answerable}
        for arm, (floor, top) in arm_floors.items():
            bundle = mem.context(
                ask.text, ask.user, None, BUDGET, now=ask.now,
                min_relevance=floor, min_expected_evidence=top,
            )  # fmt: skip
            items = injected(bundle.hits())
            held = {ask.key(i.kind, i.metadata, i.session_id) for i in items}
            row[arm] = {
                "items": len(items),
                "tokens": bundle.token_count,
                "evidence": len(ask.evidence & held),
            }
        row["evidence_total"] = len(ask.evidence)
        out.append(row)
    return out


def summarize(rows: list[dict[str, Any]], names: Iterable[str]) -> dict[str, Any]:
    """Means per arm: items, tokens, share of empty contexts; for answerable questions, the
    share of evidence turns in the context (pooled over turns) and the questions that carry
    fewer evidence turns than today."""
    out: dict[str, Any] = {"questions": len(rows)}
    total = sum(r["evidence_total"] for r in rows)
    for arm in names:
        out[arm] = {
            "items_mean": round(float(np.mean([r[arm]["items"] for r in rows])), 2),
            "tokens_mean": round(float(np.mean([r[arm]["tokens"] for r in rows])), 1),
            "empty_share": round(float(np.mean([r[arm]["items"] == 0 for r in rows])), 3),
        }
        if total:
            out[arm]["evidence_share"] = round(sum(r[arm]["evidence"] for r in rows) / total, 4)
            out[arm]["questions_losing_evidence"] = sum(
                r[arm]["evidence"] < r["today"]["evidence"] for r in rows
            )
    return out


def probe_rows(
    mem: Memory, split: Split, arm_floors: dict[str, tuple[float, float]]
) -> list[dict[str, Any]]:
    """Off-topic probes in every store of the split: top score and relevance, and per arm
    the items and tokens injected."""
    out = []
    for user, now in split.users.items():
        for text in PROBES:
            hits: list[Hit] = mem.search(text, user_id=user, limit=10, now=now)
            row: dict[str, Any] = {
                "user": user,
                "query": text,
                "top_score": round(hits[0].score, 4) if hits else None,
                "top_relevance": max((h.relevance or 0.0 for h in hits), default=None),
            }
            for arm, (floor, top) in arm_floors.items():
                floors = {"min_relevance": floor, "min_expected_evidence": top}
                bundle = mem.context(text, user, None, BUDGET, now=now, **floors)
                row[arm] = {"items": len(injected(bundle.hits())), "tokens": bundle.token_count}
            out.append(row)
    return out


def probe_summary(rows: list[dict[str, Any]], names: Iterable[str]) -> dict[str, Any]:
    """Per probe: the highest top score and relevance over the stores; per arm, mean items
    and tokens and the share of stores that inject nothing."""
    out = {}
    names = list(names)
    for text in PROBES:
        mine = [r for r in rows if r["query"] == text]
        out[text] = {
            "stores": len(mine),
            "top_score_max": max((r["top_score"] or 0.0) for r in mine),
            "top_relevance_max": max((r["top_relevance"] or 0.0) for r in mine),
            **{
                arm: {
                    "items_mean": round(float(np.mean([r[arm]["items"] for r in mine])), 2),
                    "tokens_mean": round(float(np.mean([r[arm]["tokens"] for r in mine])), 1),
                    "empty_share": round(float(np.mean([r[arm]["items"] == 0 for r in mine])), 3),
                }
                for arm in names
            },
        }
    return out


# ---- main ---------------------------------------------------------------------------------


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", default=str(DATA / "locomo-dev.json"))
    parser.add_argument("--longmemeval", default=str(DATA / "longmemeval-s-dev.json"))
    parser.add_argument("--work", help="Directory for the two stores (reused when present).")
    parser.add_argument("--embedder", default="local", help="Embedder to fit and measure.")
    parser.add_argument("--fit", action="store_true", help="Refit and write the coefficients.")
    parser.add_argument("--json", help="Write the results to this file.")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="mnemo-relevance-"))
    work.mkdir(parents=True, exist_ok=True)
    splits = [
        locomo_split(args.locomo, work, args.embedder),
        lme_split(args.longmemeval, work, args.embedder),
    ]
    data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    embedder = ""
    for split in splits:
        with Memory(split.db, embedder=args.embedder) as mem:
            embedder = mem.embedder.id
            data[split.name] = matrix(rows_of(mem, split))
        console.print(f"{split.name}: {len(data[split.name][1])} hits collected")
    result: dict[str, Any] = {"embedder": embedder, "features": list(relevance.FEATURES)}
    cross: dict[str, Any] = {}
    for train, test in (("locomo", "longmemeval"), ("longmemeval", "locomo")):
        x, y = data[train]
        beta = fit(x, y, np.ones(len(y)))
        cross[f"fit_{train}_check_{test}"] = {
            "model": coef_dict(beta),
            "check": calibration(predict(beta, data[test][0]), data[test][1]),
        }
    result["cross_split"] = cross
    if args.fit:
        x = np.vstack([d[0] for d in data.values()])
        y = np.concatenate([d[1] for d in data.values()])
        w = np.concatenate([np.full(len(d[1]), len(y) / (2 * len(d[1]))) for d in data.values()])
        fitted = coef_dict(fit(x, y, w))
        write_model(embedder, fitted, {k: len(v[1]) for k, v in data.items()})
        importlib.reload(relevance_model)  # the Memories below read the new coefficients
        importlib.reload(relevance)
    model = relevance.model_for(embedder)
    result["shipped"] = {
        "model": coef_dict(beta_of(model)),
        **{k: calibration(predict(beta_of(model), x), y) for k, (x, y) in data.items()},
    }
    for name, res in cross.items():
        c = res["check"]
        console.print(f"{name}: brier {c['brier']} (base rate {c['brier_base_rate']}), "
                      f"log loss {c['log_loss']}, ECE {c['ece']}")  # fmt: skip
    # 4. context side by side (each Memory is opened after the coefficients were written)
    contexts: dict[str, Any] = {}
    probes: dict[str, Any] = {}
    arm_floors: dict[str, tuple[float, float]] = {}
    for split in splits:
        with Memory(split.db, embedder=args.embedder) as mem:
            arm_floors = arms(mem.settings)
            rows = context_rows(mem, split, arm_floors)
            by_group: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for r in rows:
                by_group["answerable" if r["answerable"] else "unanswerable"].append(r)
                by_group[r["group"]].append(r)
            contexts[split.name] = {g: summarize(rs, arm_floors) for g, rs in by_group.items()}
            probes[split.name] = probe_summary(probe_rows(mem, split, arm_floors), arm_floors)
    result["arms"] = {k: {"min_relevance": f, "min_expected_evidence": t}
                      for k, (f, t) in arm_floors.items()}  # fmt: skip
    result["context"] = contexts
    result["probes"] = probes
    result["budget_tokens"] = BUDGET
    for name, groups in contexts.items():
        for g in ("answerable", "unanswerable"):
            if g in groups:
                for arm in arm_floors:
                    a = groups[g][arm]
                    console.print(
                        f"{name} {g} {arm}: items {a['items_mean']}, tokens {a['tokens_mean']}"
                        f", empty {a['empty_share']}, evidence {a.get('evidence_share', '-')}"
                    )
    for name, ps in probes.items():
        for text, ps_ in ps.items():
            console.print(
                f"{name} probe {text!r}: top score <= {ps_['top_score_max']}, top relevance <= "
                f"{ps_['top_relevance_max']}, items today {ps_['today']['items_mean']} -> "
                f"{ps_['default']['items_mean']} (empty {ps_['default']['empty_share']})"
            )
    result["machine"] = announce_machine()
    write_json(args.json, result)


if __name__ == "__main__":
    main()
