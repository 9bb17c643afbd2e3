"""The learned last stage's model: fitted by ``bench/ranker.py``, evaluated here with numpy.

A model is a JSON file in ``mnemo/data/rankers/`` (one per embedder: a cosine means something
else for each), written by the bench with its provenance (date, data, commit, features and
cross-validated numbers). It gives each row x of :func:`mnemo.retrieval.pool_features.matrix`
the probability that the hit is evidence for the query,

    p = 1 / (1 + exp(-(a * f(x) + sum_j w_j * max_pool(x_j) + c)))

with ``f`` the ranking function, one of

* ``logistic``: f(x) = b0 + sum_j b_j * (x_j - mean_j) / scale_j;
* ``trees``: gradient-boosted regression trees, f(x) = init + rate * sum_t leaf_t(x), where
  each tree sends x left at a node when x[feature] <= threshold, until a leaf.

and the outer layer a calibration fitted after it: ``a`` > 0 and query-level terms only (the
pool's maximum of a few columns, such as its best cosine), so within one search ``p`` orders
the hits exactly as ``f`` does, while across searches it says how likely each hit is to be
evidence: a query the history cannot answer gets low ``p`` everywhere. (``f`` is fitted on
questions asked of their own history, where it learns the order; the calibration on those
and on questions asked of another history, where nothing is evidence.)

The trees of a model are evaluated together: one array of every tree's current node, moved
one level down per step, so a pool of 50 rows costs as many numpy steps as the deepest tree
has levels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

import numpy as np

from mnemo.errors import ConfigError

#: The package folder of the shipped models.
FOLDER = "data/rankers"


def file_name(embedder_id: str) -> str:
    """The model file of an embedder id: ``onnx:all-MiniLM-L6-v2-q8`` ->
    ``onnx-all-MiniLM-L6-v2-q8.json``."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in embedder_id) + ".json"


@dataclass(frozen=True)
class Trees:
    """Every tree's nodes as flat arrays (tree t's nodes start at ``roots[t]``); a leaf's
    ``left`` is -1 and its ``value`` is its output."""

    roots: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    init: float
    rate: float
    depth: int

    @property
    def down_left(self) -> np.ndarray:
        """``left`` with each leaf its own child (so every row can take ``depth`` steps)."""
        return self._down[0]

    @property
    def down_right(self) -> np.ndarray:
        """``right`` with each leaf its own child."""
        return self._down[1]

    @cached_property
    def _down(self) -> tuple[np.ndarray, np.ndarray]:
        at = np.arange(len(self.left))
        leaf = self.left < 0
        return np.where(leaf, at, self.left), np.where(leaf, at, self.right)

    def raw(self, x: np.ndarray) -> np.ndarray:
        """init + rate * sum_t leaf_t(x) per row of ``x``: every node's test of every row
        at once, then ``depth`` steps down (a leaf's children are itself)."""
        passes = x.T[np.maximum(self.feature, 0)] <= self.threshold[:, None]  # (nodes, rows)
        node = np.repeat(self.roots[:, None], len(x), axis=1)  # (trees, rows)
        rows = np.arange(len(x))[None, :]
        for _ in range(self.depth):
            node = np.where(passes[node, rows], self.down_left[node], self.down_right[node])
        return np.asarray(self.init + self.rate * self.value[node].sum(axis=0))


@dataclass(frozen=True)
class Logistic:
    """Standardised logistic regression: intercept, coefficients, means and scales."""

    intercept: float
    coef: np.ndarray
    mean: np.ndarray
    scale: np.ndarray

    def raw(self, x: np.ndarray) -> np.ndarray:
        """b0 + ((x - mean) / scale) @ b per row of ``x``."""
        return np.asarray(self.intercept + ((x - self.mean) / self.scale) @ self.coef)


@dataclass(frozen=True)
class Calibration:
    """The outer layer: ``slope`` * f(x) + ``weights`` . (the pool's max of ``columns``) +
    ``intercept``."""

    slope: float
    columns: np.ndarray
    weights: np.ndarray
    intercept: float

    def logit(self, raw: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The calibrated logit of each row, given the ranking function's ``raw`` values."""
        if not len(x):
            return np.asarray(raw)
        level = float(x[:, self.columns].max(axis=0) @ self.weights)
        return np.asarray(self.slope * raw + level + self.intercept)


@dataclass(frozen=True)
class RankerModel:
    """A fitted model: its feature names (in column order), its ranking function, its
    calibration (None: p = sigmoid(f(x))), its provenance."""

    features: tuple[str, ...]
    function: Trees | Logistic
    provenance: dict[str, Any]
    calibration: Calibration | None = None

    def probability(self, x: np.ndarray) -> np.ndarray:
        """p per row of the pool ``x`` (see the module docstring), in [0, 1]."""
        x = np.asarray(x, dtype=np.float64)
        z = self.function.raw(x)
        if self.calibration is not None:
            z = self.calibration.logit(z, x)
        return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))  # the sigmoid, never overflows

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RankerModel:
        """A model from its JSON form (see ``bench/ranker.py``); a file of another kind is a
        ConfigError."""
        kind = data.get("kind")
        features = tuple(data["features"])
        function: Trees | Logistic
        if kind == "logistic":
            lo = data["logistic"]
            function = Logistic(
                float(lo["intercept"]),
                np.asarray(lo["coef"], dtype=np.float64),
                np.asarray(lo["mean"], dtype=np.float64),
                np.asarray(lo["scale"], dtype=np.float64),
            )
        elif kind == "trees":
            tr = data["trees"]
            sizes = [len(t["feature"]) for t in tr["nodes"]]
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)

            def flat(key: str, shift: bool) -> np.ndarray:
                parts = []
                for off, t in zip(offsets, tr["nodes"], strict=True):
                    a = np.asarray(t[key], dtype=np.int64 if shift else np.float64)
                    parts.append(np.where(a >= 0, a + off, -1) if shift else a)
                return np.concatenate(parts)

            function = Trees(
                roots=offsets,
                feature=np.concatenate([np.asarray(t["feature"], np.int64) for t in tr["nodes"]]),
                threshold=flat("threshold", False),
                left=flat("left", True),
                right=flat("right", True),
                value=flat("value", False),
                init=float(tr["init"]),
                rate=float(tr["rate"]),
                depth=int(tr["depth"]),
            )
        else:
            raise ConfigError(f"unknown ranker model kind {kind!r} (logistic or trees)")
        outer = data.get("calibration")
        calibration = None
        if outer is not None:
            calibration = Calibration(
                float(outer["slope"]),
                np.asarray([features.index(c) for c in outer["columns"]], dtype=np.int64),
                np.asarray(outer["weights"], dtype=np.float64),
                float(outer["intercept"]),
            )
        return cls(features, function, dict(data.get("provenance", {})), calibration)


@lru_cache(maxsize=8)
def load(embedder_id: str) -> RankerModel | None:
    """The shipped model fitted for ``embedder_id``, or None when it has none (read once
    per process)."""
    path = resources.files("mnemo").joinpath(FOLDER, file_name(embedder_id))
    if not path.is_file():
        return None
    return RankerModel.from_json(json.loads(path.read_text(encoding="utf-8")))


__all__ = ["FOLDER", "Calibration", "Logistic", "RankerModel", "Trees", "file_name", "load"]
