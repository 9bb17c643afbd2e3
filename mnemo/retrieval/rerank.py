"""Optional reranking: a cross-encoder rescoring the best fused candidates.

A :class:`Reranker` scores (query, passage) pairs jointly, which reads a passage more closely
than the lexical and dense retrievers do, at the cost of one model pass per pair. It is off by
default; ``settings.reranker`` names one in :data:`REGISTRY` (imports are lazy, so
sentence-transformers stays optional) and ``settings.reranker_model`` gives a local model
directory. No cross-encoder is bundled and none is ever downloaded.

The pipeline rescores the ``rerank_top_n`` candidates of highest fused relevance and blends the
reranker's score into their relevance with :func:`rerank_blend`; with ``rerank_relevance =
"sigmoid"`` (`agent-cli`) it rescores every candidate and relevance is :func:`sigmoid` of the
logit.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mnemo.config.search import RetrievalSettings
from mnemo.errors import ConfigError

_MODELS: dict[str, Any] = {}
_LOCK = threading.Lock()


@runtime_checkable
class Reranker(Protocol):
    """Scores passages against a query; higher is more relevant, on any scale."""

    #: Short name shown in logs and explanations, e.g. ``cross-encoder:ms-marco-MiniLM-L6``.
    id: str

    def score(self, query: str, texts: list[str]) -> np.ndarray:
        """One float per text, in the order given."""
        ...


def rerank_blend(relevance: np.ndarray, rerank: np.ndarray, weight: float) -> np.ndarray:
    """Blend reranker scores into the fused relevance of the rescored candidates.

    relevance' = (1 - w) * rel + w * (lo + (hi - lo) * (s - s_min) / (s_max - s_min))

    where ``lo``/``hi`` are the lowest/highest fused relevance of the rescored set and
    ``s_min``/``s_max`` the lowest/highest reranker score in it. The reranker score is mapped
    onto the set's own relevance range, so relevance keeps its scale (``score_threshold`` and
    the recency blend mean what they meant) and the rescored set still ranks above every
    candidate that was not rescored. ``w = 1`` orders the set by the reranker alone, ``w = 0``
    changes nothing. Equal reranker scores carry no order: relevance is returned unchanged.
    """
    rel = np.asarray(relevance, dtype=np.float64)
    s = np.asarray(rerank, dtype=np.float64)
    if rel.size == 0 or weight <= 0:
        return rel.copy()
    s_min, s_max = float(s.min()), float(s.max())
    if s_max - s_min < 1e-12:
        return rel.copy()
    lo, hi = float(rel.min()), float(rel.max())
    span = max(hi - lo, 1e-9)  # equal fused relevance: the reranker alone orders the set
    mapped = lo + span * (s - s_min) / (s_max - s_min)
    return np.asarray((1.0 - weight) * rel + weight * mapped)


def sigmoid(scores: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-s))`` of each reranker logit: `agent-cli`'s relevance in (0, 1)."""
    s = np.asarray(scores, dtype=np.float64)
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * s)))  # the same function, never overflows


def top_n(relevance: dict[Any, float], n: int) -> list[Any]:
    """The ``n`` keys of highest relevance, best first (ties keep their first appearance)."""
    return sorted(relevance, key=lambda k: -relevance[k])[:n]


def load_cross_encoder(path: str) -> Any:
    """The CrossEncoder in the local directory ``path``, loaded once per process.

    Never downloads: the directory must exist and hold a ``config.json``, and the Hugging Face
    hub is kept offline. A model that cannot be loaded is a ConfigError.
    """
    with _LOCK:
        model = _MODELS.get(path)
        if model is not None:
            return model
        check_model_dir(path)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise ConfigError(
                "the cross-encoder reranker needs sentence-transformers: "
                'pip install "mnemo-ltm[torch]"'
            ) from None
        try:
            model = CrossEncoder(path, device="cpu", local_files_only=True)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise ConfigError(f"cannot load the cross-encoder in {path}: {exc}") from None
        if model.num_labels != 1:
            raise ConfigError(
                f"the cross-encoder in {path} has {model.num_labels} labels; "
                "a reranker needs a single relevance score (num_labels=1)"
            )
        _MODELS[path] = model
        return model


def check_model_dir(path: str) -> None:
    """ConfigError unless ``path`` is a directory holding a model's ``config.json``."""
    p = Path(path)
    if not p.is_dir():
        raise ConfigError(
            f"reranker model directory not found: {path} (reranker_model must be a local "
            "cross-encoder directory; mnemo never downloads one)"
        )
    if not (p / "config.json").is_file():
        raise ConfigError(
            f"reranker model directory {path} holds no config.json; save the cross-encoder "
            "there with save_pretrained()"
        )


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder from a local directory, loaded on first use.

    Scores are the model's raw logits (no sigmoid): monotone in its relevance estimate and not
    squashed, so the blend keeps their spread.
    """

    def __init__(self, model_path: str, batch_size: int = 32) -> None:
        check_model_dir(model_path)
        self.model_path = model_path
        self.batch_size = batch_size
        self.id = f"cross-encoder:{Path(model_path).name}"
        self._lock = threading.Lock()

    @property
    def model(self) -> Any:
        """The loaded CrossEncoder (loads it on first use)."""
        return load_cross_encoder(self.model_path)

    def score(self, query: str, texts: list[str]) -> np.ndarray:
        """The model's logit for each (query, text) pair."""
        if not texts:
            return np.zeros(0)
        import torch

        model = self.model
        with self._lock, torch.inference_mode():
            out = model.predict(
                [(query, t) for t in texts],
                batch_size=self.batch_size,
                activation_fn=torch.nn.Identity(),
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        return np.asarray(out, dtype=np.float64).reshape(len(texts))


def _cross_encoder(s: RetrievalSettings) -> Reranker:
    if not s.reranker_model:
        raise ConfigError(
            "the cross-encoder reranker needs MNEMO_RERANKER_MODEL, a local model directory "
            "(none is bundled and none is downloaded)"
        )
    return CrossEncoderReranker(s.reranker_model, batch_size=s.rerank_batch_size)


#: Reranker name -> factory taking the retrieval settings.
REGISTRY: dict[str, Callable[[RetrievalSettings], Reranker]] = {"cross-encoder": _cross_encoder}


def create_reranker(settings: RetrievalSettings) -> Reranker | None:
    """The reranker named by ``settings.reranker``, or None when reranking is off."""
    if not settings.reranker:
        return None
    factory = REGISTRY.get(settings.reranker)
    if factory is None:
        raise ConfigError(
            f"unknown reranker {settings.reranker!r}; choose one of {sorted(REGISTRY)}"
        )
    return factory(settings)


__all__ = [
    "REGISTRY",
    "CrossEncoderReranker",
    "Reranker",
    "create_reranker",
    "rerank_blend",
    "sigmoid",
    "top_n",
]
