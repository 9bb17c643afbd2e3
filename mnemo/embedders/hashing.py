"""A deterministic, dependency-free embedder: hashed word and character n-gram features.

It captures lexical overlap only, not meaning. It exists for fast tests and minimal installs.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from mnemo.embedders.base import Embedder

_WORD = re.compile(r"\w+", re.UNICODE)


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if (value >> 63) & 1 else -1.0)


class HashingEmbedder(Embedder):
    """Signed feature hashing of lower-cased words and character trigrams into ``dim`` slots."""

    def __init__(self, dim: int = 384, batch_size: int = 256) -> None:
        self.dim = dim
        self.batch_size = batch_size
        self.id = f"hashing:{dim}"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts by hashing their words (weight 1) and character trigrams (weight 0.5)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                idx, sign = _bucket("w:" + word, self.dim)
                out[row, idx] += sign
                padded = f"#{word}#"
                for i in range(len(padded) - 2):
                    idx, sign = _bucket("c:" + padded[i : i + 3], self.dim)
                    out[row, idx] += 0.5 * sign
        return out
