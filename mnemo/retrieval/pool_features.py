"""The learned last stage's features: one row per hit of a search's de-duplicated pool.

The pool is the search's best ``ranker_depth`` distinct hits in the hand-tuned order (every
stage before the last, see :mod:`mnemo.retrieval.pipeline`), each with its per-stage scores
(``hit.scores``, ranks included). :func:`matrix` turns them into the matrix the model of
:mod:`mnemo.retrieval.ranker_model` reads, one column per name of :data:`FEATURES`:

* stage scores: ``fused``, ``final``, ``dense`` (0 without one; ``no_dense`` 1 then),
  ``lexical_share`` = BM25 / the pool's best BM25 (0 without; ``no_lexical``), the ranks
  ``dense_rank`` and ``lexical_rank`` as ln(1 + rank) (ln(1 + max(pool, depth)) without one),
  ``lexical_scale``, ln of the priors ``speaker_prior``, ``date_prior``, ``turn_prior``,
  ``recency``, and ``calibrated``: the probability of :mod:`mnemo.retrieval.relevance`
  (0 where the embedder has no coefficients);
* place: ``position`` = ln(1 + i); per query, ``final_share`` = final / best final,
  ``final_z`` = (final - mean) / sd, ``gap_prev``/``gap_next`` = the final-score gap to the
  hit above / below, ``dense_share``, ``dense_z`` and ``fused_share`` likewise;
* what the hit is: ``memory`` (a distilled memory, not a turn), ``assistant``, the turn kinds
  ``question``, ``non_answer``, ``greeting``, ``duplicates`` = ln(1 + collapsed copies);
* names: ``names_this`` = the query names this turn's speaker (its speaker prior is above 1),
  ``names_other`` = the query names a speaker, another one;
* words: ``overlap`` = share of the query's content words the hit holds (stop words out,
  words compared by a crude stem, :func:`stem`), ``overlap_count``, ``query_words`` and
  ``content_words`` (ln(1 + count)), ``query_covered`` = share of the query's content words
  that any hit of the pool holds (one value per query: a question about the history finds
  its words there, one about anything else mostly does not);
* session context: ``session_hits`` = the hits from the hit's session / max(pool, depth),
  ``session_best`` = ln(1 + the place of that session's best hit), ``session_place`` =
  ln(1 + the hit's place among its session's hits in the pool), ``near_gap`` = ln(1 + the
  seconds to the nearest other pool hit of its session, at most a day), ``near_share`` =
  that hit's final score / the best final (0 without one): a turn said next to another
  candidate;
* age: ``age`` = ln(1 + days before the pool's newest hit);
* borrowed relevance (the neighbours signal's notes): ``borrowed_share`` = the part of the
  hit's fused score it borrowed from its neighbours / its fused score, ``reply`` = 1 for the
  turn right after a candidate question by another speaker, ``asked_share`` = that
  question's relevance / the pool's best fused score (0 otherwise): a stored reply to an
  earlier question like this one is told apart from a turn that merely sits next to a match.

No feature names a dataset, a speaker or a phrasing. Every value comes from the hits and the
query, so the bench that fits the model (``bench/ranker.py``) computes the very same rows
from a search's hits as the pipeline does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from mnemo.retrieval import relevance as calibrated
from mnemo.schemas import Hit
from mnemo.text.stopwords import STOPWORDS

#: Feature groups, for the bench's ablation; the matrix's columns are the groups' features
#: in this order (:data:`FEATURES`).
GROUPS: dict[str, tuple[str, ...]] = {
    "stage": (
        "fused",
        "final",
        "dense",
        "no_dense",
        "lexical_share",
        "no_lexical",
        "dense_rank",
        "lexical_rank",
        "lexical_scale",
        "speaker_prior",
        "date_prior",
        "turn_prior",
        "recency",
        "calibrated",
        "position",
        "final_share",
        "final_z",
        "gap_prev",
        "gap_next",
        "dense_share",
        "dense_z",
        "fused_share",
    ),
    "kind": ("memory", "assistant", "question", "non_answer", "greeting", "duplicates"),
    "names": ("names_this", "names_other"),
    "words": ("overlap", "overlap_count", "query_words", "content_words", "query_covered"),
    "session": (
        "session_hits",
        "session_best",
        "session_place",
        "near_gap",
        "near_share",
        "age",
    ),
    "borrowed": ("borrowed_share", "reply", "asked_share"),
}
#: The features, in the order of the matrix's columns.
FEATURES: tuple[str, ...] = tuple(name for group in GROUPS.values() for name in group)

DAY = 86400.0
_WORD = re.compile(r"[a-z0-9]+")
_STEM = 5
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem: a plural or verb ending off (when three letters stay), then the first
    five letters ("cooked" and "cook" meet, so do "married" and "marriage")."""
    cut = _SUFFIX.sub("", word)
    return (cut if len(cut) >= 3 else word)[:_STEM]


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """The stems (:func:`stem`) of the lower-case words of ``text`` that are no stop words
    (remembered for the texts seen last: a user's turns come back search after search)."""
    return frozenset(stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS)


def _column(values: Sequence[float]) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def _share(x: np.ndarray) -> np.ndarray:
    top = float(x.max()) if x.size else 0.0
    return x / top if top > 0 else np.zeros_like(x)


def _z(x: np.ndarray) -> np.ndarray:
    sd = float(x.std()) if x.size else 0.0
    return (x - x.mean()) / sd if sd > 1e-12 else np.zeros_like(x)


def _log_prior(hits: Sequence[Hit], name: str) -> np.ndarray:
    return _column([math.log(max(float(h.scores.get(name, 1.0)), 1e-9)) for h in hits])


def _nearest(
    sessions: list[str], times: np.ndarray, share: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per hit: ln(1 + seconds) to the nearest other hit of its session (at most a day), and
    that hit's ``share``."""
    codes = np.unique(np.asarray(sessions), return_inverse=True)[1]
    same = (codes[:, None] == codes[None, :]) & ~np.eye(len(sessions), dtype=bool)
    gap = np.where(same, np.abs(times[:, None] - times[None, :]), np.inf)
    nearest = gap.argmin(axis=1)
    found = np.isfinite(gap[np.arange(len(sessions)), nearest])
    seconds = np.where(found, gap[np.arange(len(sessions)), nearest], DAY)
    return np.log1p(np.minimum(seconds, DAY)), np.where(found, share[nearest], 0.0)


def matrix(
    hits: Sequence[Hit],
    query: str,
    model: calibrated.RelevanceModel | None = None,
    depth: int = 0,
) -> np.ndarray:
    """The (len(hits), len(FEATURES)) feature matrix of a pool of ``hits`` (in the pipeline's
    order, ranks in their scores) for ``query``; ``model`` is the embedder's calibrated
    relevance model (its probability is one feature); ``depth`` the pool's intended size
    (``ranker_depth``): a smaller pool (a short history) counts its sizes against it, as a
    full one would (the pool size in ``session_hits`` and a missing rank)."""
    n = len(hits)
    cols: dict[str, np.ndarray] = {}
    if n == 0:
        return np.zeros((0, len(FEATURES)))
    scores = [h.scores for h in hits]
    final = _column([s.get("final", h.score) for s, h in zip(scores, hits, strict=True)])
    fused = _column([s.get("fused", 0.0) for s in scores])
    dense = _column([s.get("dense", 0.0) for s in scores])
    lexical = _column([s.get("lexical", 0.0) for s in scores])
    size = max(n, depth)
    missing_rank = math.log1p(size)
    cols["fused"], cols["final"], cols["dense"] = fused, final, dense
    cols["no_dense"] = _column([0.0 if "dense" in s else 1.0 for s in scores])
    cols["lexical_share"] = _share(np.maximum(lexical, 0.0))
    cols["no_lexical"] = _column([0.0 if "lexical" in s else 1.0 for s in scores])
    for name in ("dense", "lexical"):
        key = f"{name}_rank"
        cols[key] = _column([math.log1p(s[key]) if key in s else missing_rank for s in scores])
    cols["lexical_scale"] = _column([s.get("lexical_scale", 1.0) for s in scores])
    for name in ("speaker_prior", "date_prior", "turn_prior"):
        cols[name] = _log_prior(hits, name)
    cols["recency"] = _column([s.get("recency", 0.0) for s in scores])
    cols["calibrated"] = model.probabilities(scores) if model is not None else np.zeros(n)
    cols["position"] = np.log1p(np.arange(n, dtype=np.float64))
    cols["final_share"], cols["final_z"] = _share(final), _z(final)
    gaps = -np.diff(final)
    cols["gap_prev"] = np.concatenate([[0.0], gaps])
    cols["gap_next"] = np.concatenate([gaps, [0.0]])
    cols["dense_share"], cols["dense_z"], cols["fused_share"] = (
        _share(dense),
        _z(dense),
        _share(fused),
    )
    cols["memory"] = _column([0.0 if h.kind == "message" else 1.0 for h in hits])
    cols["assistant"] = _column([1.0 if h.role == "assistant" else 0.0 for h in hits])
    for kind in ("question", "non_answer", "greeting"):
        cols[kind] = _column([1.0 if h.turn_kind == kind else 0.0 for h in hits])
    cols["duplicates"] = np.log1p(_column([len(h.duplicates) for h in hits]))
    named = cols["speaker_prior"] > 0
    cols["names_this"] = named.astype(np.float64)
    cols["names_other"] = (~named & bool(named.any())).astype(np.float64)
    asked = content_words(query)
    held = [content_words(h.content) for h in hits]
    count = _column([len(asked & words) for words in held])
    cols["overlap"] = count / len(asked) if asked else np.zeros(n)
    cols["overlap_count"] = np.log1p(count)
    cols["query_words"] = np.full(n, math.log1p(len(asked)))
    cols["content_words"] = np.log1p(_column([len(words) for words in held]))
    covered = len(asked & frozenset().union(*held)) / len(asked) if asked else 0.0
    cols["query_covered"] = np.full(n, covered)
    sessions = [h.session_id or f"#{h.id}" for h in hits]
    best: dict[str, int] = {}
    seen: dict[str, int] = {}
    place = []
    for i, sid in enumerate(sessions):
        best.setdefault(sid, i)
        place.append(seen.get(sid, 0))
        seen[sid] = seen.get(sid, 0) + 1
    cols["session_hits"] = _column([seen[sid] / size for sid in sessions])
    cols["session_best"] = np.log1p(_column([best[sid] for sid in sessions]))
    cols["session_place"] = np.log1p(_column(place))
    times = _column([h.created_at.timestamp() for h in hits])
    cols["near_gap"], cols["near_share"] = _nearest(sessions, times, cols["final_share"])
    cols["age"] = np.log1p(np.maximum(times.max() - times, 0.0) / 86400.0)
    lent = _column([s.get("borrowed", 0.0) for s in scores])
    cols["borrowed_share"] = np.where(fused > 0, lent / np.maximum(fused, 1e-12), 0.0)
    cols["reply"] = _column([1.0 if "asked" in s else 0.0 for s in scores])
    top_fused = float(fused.max())
    question = _column([s.get("asked", 0.0) for s in scores])
    cols["asked_share"] = question / top_fused if top_fused > 0 else np.zeros(n)
    return np.column_stack([cols[name] for name in FEATURES])


__all__ = ["DAY", "FEATURES", "GROUPS", "content_words", "matrix", "stem"]
