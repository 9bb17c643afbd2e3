"""Offline retrieval experiments that the settings cannot express, over an eval store.

``mnemo eval --compare`` measures every variant the settings can express. The variants here
change what is indexed (another tokenizer, other keys), so this script re-implements the fused
relevance of the read path in numpy over every turn of each user, swaps one part, and scores
both with the eval's metrics. Its fusion is the pipeline's: min-max blend 1 : 1 of the top-150
BM25 and cosine candidates, neighbour boost 0.3, speaker prior 0.5, extra keys, the date prior
0.5 and recency 0.15 (it lands within a point of ``mnemo eval``; compare rows of one run).

Experiments:

* ``lexical``: the full-text index rebuilt in memory over the same turns: Porter stemming vs
  none, stopwords dropped vs kept, a x(1 + b) bonus per query bigram found as a phrase;
* ``fact-keys`` (LoCoMo): facts as extra keys of the turns they came from, blended like the
  keys of long turns: LoCoMo's own LLM-written ``observation`` facts, and the facts tier's
  rule-based facts.

The store is an eval store with extra keys (``mnemo eval ... --db FILE``; ``mnemo repair --db
FILE`` adds keys to an older one).

    python bench/retrieval_lab.py lexical --bench locomo --data ../shared/data/locomo-dev.json \\
        --db .eval/locomo-keys.db
    python bench/retrieval_lab.py fact-keys --bench locomo --data ../shared/data/locomo-dev.json \\
        --db .eval/locomo-keys.db
"""

from __future__ import annotations

import argparse
import itertools
import json
import sqlite3
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

import common  # puts the checkout on sys.path
from mnemo import Memory
from mnemo.config.settings import Settings
from mnemo.eval.locomo import load_locomo
from mnemo.eval.longmemeval import load_longmemeval, turn_key
from mnemo.index.keys import blend_keys
from mnemo.retrieval import dates, lexical, speakers
from mnemo.retrieval.scoring import recency
from mnemo.storage.scope import ReadScope
from mnemo.storage.sql.rows import epoch_seconds, unpack_keys
from mnemo.storage.sqlite.fts_terms import match_expression
from mnemo.text.fact_rules import extract_facts

POOL, NEIGHBOR, SPEAKER, KEY_W, DATE_W, RECENCY_W, TAU = 150, 0.3, 0.5, 0.5, 0.5, 0.15, 30.0


@dataclass
class User:
    """Every turn of one user, in store order."""

    rowids: list[int]
    keys: list[str]
    sessions: np.ndarray
    roles: np.ndarray
    names: np.ndarray
    texts: list[str]
    times: np.ndarray
    vectors: np.ndarray
    key_owners: np.ndarray
    key_vectors: np.ndarray
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Q:
    """A question with its evidence and its per-turn scores."""

    user: str
    group: str
    text: str
    now: float
    evidence: set[str]
    sessions: set[str]
    lex: np.ndarray
    qvec: np.ndarray
    about: speakers.QuerySpeakers


def load_users(db: str) -> dict[str, User]:
    c = sqlite3.connect(db)
    out: dict[str, list[Any]] = defaultdict(list)
    for r in c.execute(
        "SELECT user_id, rowid, session_id, role, name, content, metadata, created_at, embedding,"
        " key_vectors FROM messages WHERE evicted_at IS NULL ORDER BY rowid"
    ):
        out[r[0]].append(r)
    users = {}
    for uid, rows in out.items():
        vecs = np.frombuffer(b"".join(r[8] for r in rows), np.float32).reshape(len(rows), -1)
        mats = [unpack_keys(r[9], vecs.shape[1]) for r in rows]
        owners = np.concatenate([np.full(len(m), i) for i, m in enumerate(mats)]).astype(int)
        meta = [json.loads(r[6]) for r in rows]
        users[uid] = User(
            rowids=[r[1] for r in rows],
            keys=[
                m.get("dia_id") or turn_key(r[2], m.get("turn_index"))
                for r, m in zip(rows, meta, strict=True)
            ],
            sessions=np.array([r[2] for r in rows]),
            roles=np.array([r[3] for r in rows]),
            names=np.array([(r[4] or "").lower() for r in rows]),
            texts=[r[5] for r in rows],
            times=epoch_seconds([r[7] for r in rows]),
            vectors=vecs,
            key_owners=owners,
            key_vectors=np.concatenate(mats) if len(owners) else np.zeros((0, vecs.shape[1])),
        )
    c.close()
    return users


def load_questions(bench: str, data: str, mem: Memory, users: dict[str, User]) -> list[Q]:
    if bench == "locomo":
        ds = load_locomo(data)
        ends = {u: float(users[u].times.max()) for u in users}
        raw = [
            (q.sample_id, q.group, q.question, ends[q.sample_id], q.evidence, [])
            for q in ds.questions
        ]
    else:
        lme = load_longmemeval(data)
        raw = [
            (q.question_id, q.question_type, q.question, q.question_date.timestamp(), q.evidence,
             q.evidence_sessions)
            for q in lme.questions
        ]  # fmt: skip
    out = []
    for user, group, text, now, evidence, ev_sessions in raw:
        u = users[user]
        names = sorted({n for n in u.names.tolist() if n})
        about = speakers.analyze(text, names)
        lex = np.zeros(len(u.rowids))
        terms = lexical.query_terms(text)
        if terms:
            pos = {r: i for i, r in enumerate(u.rowids)}
            for (table, rowid), score in mem.store.search.lexical(
                ReadScope(mem.tenant, user), terms, 10**6
            ):
                if table == 0 and rowid in pos:
                    lex[pos[rowid]] = score
        qvec = mem.embedder.embed([about.dense_text])[0]
        out.append(Q(user, group, text, now, set(evidence), set(ev_sessions), lex, qvec, about))
    return out


def _pool_minmax(x: np.ndarray, k: int, matched_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """Min-max of the ``k`` best values (of the matched ones: > 0), 0 elsewhere; and the pool."""
    cand = np.flatnonzero(x > 0) if matched_only else np.arange(len(x))
    top = cand[np.argsort(-x[cand], kind="stable")][:k]
    mask = np.zeros(len(x), bool)
    mask[top] = True
    out = np.zeros(len(x))
    if mask.any():
        lo, hi = x[mask].min(), x[mask].max()
        out[mask] = 1.0 if hi - lo < 1e-12 else (x[mask] - lo) / (hi - lo)
    return out, mask


def relevance(q: Q, u: User, lex: np.ndarray, dense: np.ndarray) -> np.ndarray:
    """The pipeline's fused relevance (see the module docstring), then recency."""
    ln, lm = _pool_minmax(lex, POOL, True)
    dn, dm = _pool_minmax(dense, POOL, False)
    rel = np.where(lm | dm, (ln + dn) / (2 if lm.any() else 1), 0.0)
    same = np.zeros(len(rel), bool)
    same[1:] = u.sessions[1:] == u.sessions[:-1]
    left = np.where(same, np.roll(rel, 1), 0)
    right = np.where(np.roll(same, -1), np.roll(rel, -1), 0)
    best = np.maximum(left, right)
    rel = np.where(best > 0, rel + NEIGHBOR * best, rel)
    spoken = np.isin(u.names, list(q.about.names)) if q.about.names else u.roles == q.about.role
    rel = rel * speakers.speaker_prior(spoken, SPEAKER)
    spans = dates.windows(q.text, q.now)
    if spans:
        rel = rel * dates.date_prior(u.times, spans, DATE_W)
    rec = np.asarray(recency(q.now - u.times, TAU))
    return np.where(rel > 0, (1 - RECENCY_W) * rel + RECENCY_W * rec, 0.0)


def dense_with(q: Q, u: User, owners: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    sims = u.vectors @ q.qvec
    return blend_keys(sims, vectors @ q.qvec, owners, KEY_W) if len(owners) else sims


def metrics(q: Q, u: User, rel: np.ndarray) -> dict[str, float]:
    order = np.argsort(-rel, kind="stable")[:50]
    ranked = [u.keys[i] for i in order]
    out = {f"R@{k}": len(set(ranked[:k]) & q.evidence) / len(q.evidence) for k in (5, 10)}
    out["All@10"] = float(q.evidence <= set(ranked[:10]))
    if q.sessions:
        seen = list(dict.fromkeys(u.sessions[i] for i in order))
        out["AllSess@5"] = float(q.sessions <= set(seen[:5]))
    return out


Variant = Callable[[Q, User], np.ndarray]


def report(name: str, qs: list[Q], users: dict[str, User], fn: Variant) -> None:
    agg: dict[str, list[float]] = defaultdict(list)
    for q in qs:
        for k, v in metrics(q, users[q.user], fn(q, users[q.user])).items():
            agg[k].append(v)
    print(f"{name:52s} " + "  ".join(f"{k} {np.mean(v):.3f}" for k, v in agg.items()))


def lexical_lab(qs: list[Q], users: dict[str, User], db: str) -> None:
    src = sqlite3.connect(db)
    rows = src.execute(
        "SELECT rowid, coalesce(name || ': ', '') || content, user_id FROM messages"
    ).fetchall()
    tables = {}
    for tok in ("porter unicode61 remove_diacritics 2", "unicode61 remove_diacritics 2"):
        c = sqlite3.connect(":memory:")
        c.execute(f"CREATE VIRTUAL TABLE f USING fts5(text, owner, tokenize='{tok}')")
        c.executemany("INSERT INTO f (rowid, text, owner) VALUES (?, ?, ?)", rows)
        tables[tok.split()[0]] = c

    def scores(table: str, q: Q, match: str | None) -> np.ndarray:
        u = users[q.user]
        out = np.zeros(len(u.rowids))
        if not match:
            return out
        pos = {r: i for i, r in enumerate(u.rowids)}
        sql = "SELECT rowid, -bm25(f, 1.0, 0.0) FROM f WHERE f MATCH ? AND owner = ?"
        for rowid, s in tables[table].execute(sql, (match, q.user)):
            if rowid in pos:
                out[pos[rowid]] = s
        return out

    def run(name: str, make: Callable[[Q], np.ndarray]) -> None:
        cache = {id(q): make(q) for q in qs}
        report(name, qs, users, lambda q, u: relevance(q, u, cache[id(q)], keyed_dense(q, u)))

    def terms(q: Q, stop: bool) -> list[str]:
        if not stop:
            return lexical.query_terms(q.text)
        return list(dict.fromkeys(t.lower() for t in lexical._TOKEN.findall(q.text)))

    def phrase(q: Q, b: float) -> np.ndarray:
        base = scores("porter", q, match_expression(terms(q, False)))
        toks = [t.lower() for t in lexical._TOKEN.findall(q.text)]
        bonus = np.zeros(len(base))
        for a, c in itertools.pairwise(toks):
            if not (a in lexical.STOPWORDS and c in lexical.STOPWORDS):
                bonus += scores("porter", q, f'text : "{a} {c}"') > 0
        return base * (1 + b * bonus)

    report("store index (Porter, stopwords dropped)", qs, users,
           lambda q, u: relevance(q, u, q.lex, keyed_dense(q, u)))  # fmt: skip
    run("rebuilt index, same tokenizer and terms", lambda q: scores(
        "porter", q, match_expression(terms(q, False))))  # fmt: skip
    run("no stemming", lambda q: scores("unicode61", q, match_expression(terms(q, False))))
    run("stopwords kept", lambda q: scores("porter", q, match_expression(terms(q, True))))
    for b in (0.25, 0.5):
        run(f"bigram phrase bonus b={b}", lambda q, b=b: phrase(q, b))


def keyed_dense(q: Q, u: User) -> np.ndarray:
    return dense_with(q, u, u.key_owners, u.key_vectors)


def fact_keys_lab(qs: list[Q], users: dict[str, User], data: str, mem: Memory) -> None:
    observations: dict[tuple[str, str], list[str]] = defaultdict(list)
    for sample in json.loads(Path(data).read_text(encoding="utf-8")):
        for per in sample.get("observation", {}).values():
            for items in per.values():
                for text, dia in items:
                    for one in str(dia).replace(";", " ").split():
                        observations[(sample["sample_id"], one)].append(text)
    s = Settings()
    rule_facts: dict[tuple[str, str], list[str]] = {}
    for uid, u in users.items():
        for key, text in zip(u.keys, u.texts, strict=True):
            found = extract_facts(text, s.fact_max_per_turn, s.fact_min_chars, s.fact_max_chars)
            if found:
                rule_facts[(uid, key)] = found
    for label, facts in (("LLM observations", observations), ("rule-based facts", rule_facts)):
        texts = sorted({t for v in facts.values() for t in v})
        vecs = mem.embedder.embed(texts)
        at = {t: i for i, t in enumerate(texts)}
        for uid, u in users.items():
            pairs = [(i, at[t]) for i, k in enumerate(u.keys) for t in facts.get((uid, k), [])]
            owners = np.array([p[0] for p in pairs] + u.key_owners.tolist(), int)
            rows = [vecs[p[1]] for p in pairs]
            u.extra[label] = (
                owners,
                np.concatenate([np.array(rows).reshape(-1, vecs.shape[1]), u.key_vectors]),
            )
        print(f"{label}: {len(texts)} distinct facts")
    report("defaults (keys of long turns)", qs, users,
           lambda q, u: relevance(q, u, q.lex, keyed_dense(q, u)))  # fmt: skip
    for label in ("LLM observations", "rule-based facts"):
        with_facts: Variant = lambda q, u, label=label: relevance(  # noqa: E731
            q, u, q.lex, dense_with(q, u, *u.extra[label])
        )
        report(f"+ {label} as keys", qs, users, with_facts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("experiment", choices=["lexical", "fact-keys"])
    ap.add_argument("--bench", choices=["locomo", "longmemeval"], required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--db", required=True, help="an eval store of --data")
    args = ap.parse_args()
    started = datetime.now()
    users = load_users(args.db)
    with Memory(args.db) as mem:
        qs = load_questions(args.bench, args.data, mem, users)
        print(f"{len(qs)} questions, {sum(len(u.rowids) for u in users.values())} turns")
        if args.experiment == "lexical":
            lexical_lab(qs, users, args.db)
        else:
            fact_keys_lab(qs, users, args.data, mem)
    print(f"took {(datetime.now() - started).total_seconds():.0f} s")
    common.announce_machine(mem.embedder)


if __name__ == "__main__":
    main()
