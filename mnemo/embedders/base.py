"""The Embedder interface: one abstract method, capabilities as plain attributes."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

from mnemo.errors import EmbeddingError

Progress = Callable[[int], None]


def content_hash(text: str) -> str:
    """Hex digest identifying ``text``: equal texts share one embedding (blake2b, 128 bits)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to unit length (zero rows stay zero), as float32."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: np.ndarray = v / norms
    return out


class Embedder(ABC):
    """Turns texts into unit-length float32 vectors.

    Subclasses set ``id`` (stored with every vector, so a change of model is detected) and
    ``dim``, and implement :meth:`embed_batch`. :meth:`embed` splits work into batches of
    ``batch_size`` and normalises the result.
    """

    id: str = "embedder"
    dim: int = 0
    batch_size: int = 64
    #: "en" for a model trained on English only, "multilingual", or None when unknown.
    languages: str | None = None

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed at most ``batch_size`` texts; returns an array of shape (len(texts), dim)."""

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Embed any number of texts; returns unit rows of shape (n, dim), in input order.

        Texts are batched in order of length, so a batch pads its texts to similar lengths.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = []
        for start in range(0, len(order), self.batch_size):
            chunk = [texts[i] for i in order[start : start + self.batch_size]]
            vecs = np.asarray(self.embed_batch(chunk), dtype=np.float32)
            if vecs.shape != (len(chunk), self.dim):
                raise EmbeddingError(
                    f"{self.id} returned shape {vecs.shape}, expected {(len(chunk), self.dim)}"
                )
            out.append(vecs)
            if progress is not None:
                progress(len(chunk))
        result = np.empty((len(texts), self.dim), dtype=np.float32)
        result[order] = np.concatenate(out)
        return normalize_rows(result)

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of a search query (default: as any text; models trained with
        query/document prefixes override it)."""
        out: np.ndarray = self.embed([text])[0]
        return out

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release network clients or other resources (default: nothing)."""
