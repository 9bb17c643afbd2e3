"""The start-up check of a bundled embedder: probe texts against stored reference vectors.

The first time a process runs a bundled ONNX model, it embeds a few probe texts and compares
each vector with the one stored for that model in ``data/reference_vectors.json``. The stored
vectors were computed in float32 from the same weights (``scripts/reference_vectors.py``);
float32 gives the same vectors on AVX2 and AVX-512 CPUs to a cosine of .9999999, so they hold
on any x86 machine. The lowest cosine must reach the model's ``min_agreement``::

    agree(model) = min_p cos(embed_model(p), stored_p) >= min_agreement

A model that fails the check is not served. When it names a ``fallback`` (the float32 arm of
the same weights: slower, never wrong), the embedder runs that instead, under the same id
since it is the vector space the fast arm approximates, and says so once on the log. A
fallback that fails too, or a model without one, is a :class:`~mnemo.errors.ConfigError`
that names the cosines. The verdict is kept per process; the check costs a few milliseconds.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from mnemo.errors import ConfigError

log = logging.getLogger("mnemo.embedders")

#: Embeds probe texts with a model: ``(model, texts) -> unit rows``.
EmbedWith = Callable[[Any, Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Reference:
    """The stored vectors of one model: probe texts, their float32 vectors, what made them."""

    texts: tuple[str, ...]
    vectors: np.ndarray
    source: str


@lru_cache(maxsize=1)
def stored_references() -> dict[str, Reference]:
    """The references shipped in ``mnemo/embedders/data/reference_vectors.json``, by model
    (vectors stored as base64 little-endian float16: a cosine error below 1e-6)."""
    raw = resources.files("mnemo.embedders").joinpath("data/reference_vectors.json").read_text()
    out: dict[str, Reference] = {}
    stored = json.loads(raw)
    texts = tuple(stored["texts"])
    for name, ref in stored["models"].items():
        flat = np.frombuffer(base64.b64decode(ref["float16"]), dtype="<f2")
        out[name] = Reference(texts, flat.reshape(len(texts), -1).astype(np.float32), ref["source"])
    return out


def agreement(got: np.ndarray, reference: Reference) -> np.ndarray:
    """Cosine of each embedded probe to its stored vector (rows renormalised)."""
    want = reference.vectors / np.linalg.norm(reference.vectors, axis=1, keepdims=True)
    have = got / np.maximum(np.linalg.norm(got, axis=1, keepdims=True), 1e-12)
    out: np.ndarray = (have * want).sum(axis=1)
    return out


_VERDICTS: dict[tuple[str, str | None], Any] = {}
_LOCK = threading.Lock()


def verified_model(
    model: Any,
    embed_with: EmbedWith,
    cache: str | None = None,
    references: dict[str, Reference] | None = None,
) -> Any:
    """The model to serve in place of ``model`` (an :class:`OnnxModel`): ``model`` itself when
    it agrees with its reference, else its checked ``fallback``; ConfigError when neither
    agrees. Kept per process by model and cache unless ``references`` is given (tests pass
    their own)."""
    key = (model.name, cache)
    if references is None:
        with _LOCK:
            if key in _VERDICTS:
                return _VERDICTS[key]
    refs = stored_references() if references is None else references
    chosen = _choose(model, embed_with, refs)
    if references is None:
        with _LOCK:
            _VERDICTS[key] = chosen
    return chosen


def _choose(model: Any, embed_with: EmbedWith, refs: dict[str, Reference]) -> Any:
    """:func:`verified_model`'s decision, uncached."""
    reference = refs.get(model.name)
    if reference is None:
        return model  # a model outside the bundle (tests build tiny ones): nothing to hold it to
    cosines = agreement(embed_with(model, reference.texts), reference)
    if float(cosines.min()) >= model.min_agreement:
        return model
    found = f"cosines {np.round(cosines, 4).tolist()} < {model.min_agreement}"
    if model.fallback is None:
        raise ConfigError(
            f"the local embedder {model.name} disagrees with its stored reference vectors on "
            f"this machine ({found}); not serving its vectors. Choose another model with "
            "MNEMO_EMBEDDER_MODEL, and please report the CPU (lscpu) and onnxruntime version"
        )
    fallback = model.fallback
    back = agreement(embed_with(fallback, reference.texts), reference)
    if float(back.min()) < fallback.min_agreement:
        raise ConfigError(
            f"the local embedder {model.name} ({found}) and its fallback {fallback.name} "
            f"(cosines {np.round(back, 4).tolist()}) both disagree with the stored reference "
            "vectors on this machine; not serving their vectors. Please report the CPU (lscpu) "
            "and onnxruntime version"
        )
    log.warning(
        "the local embedder %s disagrees with its stored reference vectors on this CPU (%s); "
        "running %s (float32, slower) instead",
        model.name,
        found,
        fallback.name,
    )
    return fallback


__all__ = ["EmbedWith", "Reference", "agreement", "stored_references", "verified_model"]
