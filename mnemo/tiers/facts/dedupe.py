"""Duplicate tests for new facts: against existing facts and attached context documents.

`llm-managed`: a candidate is not stored when an existing memory has cosine >= 0.90 with it, or
when a context document already holds it, by chunk cosine >= 0.90 or by plain substring (the
candidate in the document, or the document in the candidate). All functions here are pure.
"""

from __future__ import annotations

import re

import numpy as np

from mnemo.storage.base import DocumentChunks

_SPACE = re.compile(r"\s+")


def chunk_words(text: str, size: int, overlap: int) -> list[str]:
    """Cut ``text`` into pieces of ``size`` words, neighbours sharing ``overlap`` words.

    The step between chunk starts is ``max(size - overlap, 1)``; the last chunk ends at the
    text's end. A text of at most ``size`` words is one chunk.

    >>> chunk_words("a b c d e", 3, 1)
    ['a b c', 'c d e']
    """
    words = text.split()
    if len(words) <= size:
        return [" ".join(words)] if words else []
    step = max(size - overlap, 1)
    out = []
    for start in range(0, len(words), step):
        out.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            break
    return out


def normalized(text: str) -> str:
    """Lower case with runs of whitespace folded to one space, trimmed."""
    return _SPACE.sub(" ", text).strip().lower()


def best_match(vector: np.ndarray, matrix: np.ndarray) -> tuple[int, float]:
    """Row of ``matrix`` with the highest cosine to ``vector`` (unit rows): (index, cosine).

    cosine = matrix @ vector; (-1, -inf) for an empty matrix.
    """
    if matrix.size == 0 or len(matrix) == 0 or matrix.shape[1] != len(vector):
        return -1, float("-inf")
    sims = matrix @ vector.astype(np.float32)
    i = int(np.argmax(sims))
    return i, float(sims[i])


def in_documents(
    candidate: str, vector: np.ndarray, chunks: DocumentChunks, threshold: float
) -> str | None:
    """The id of a document that already states ``candidate``, or None.

    A document states it when one of its chunks has cosine >= ``threshold`` with the
    candidate, or when the candidate's text is inside a chunk (or a whole short document is
    inside the candidate), compared case- and whitespace-insensitively.
    """
    i, sim = best_match(vector, chunks.vectors)
    if i >= 0 and sim >= threshold:
        return chunks.document_ids[i]
    text = normalized(candidate)
    for chunk, doc_id in zip(chunks.texts, chunks.document_ids, strict=True):
        piece = normalized(chunk)
        if piece and (text in piece or piece in text):
            return doc_id
    return None


def first_of_near_copies(vectors: np.ndarray, threshold: float) -> list[int]:
    """Indexes of the rows to keep: a row whose cosine with a kept earlier row reaches
    ``threshold`` is a near copy and is dropped."""
    kept: list[int] = []
    for i in range(len(vectors)):
        if all(float(vectors[i] @ vectors[j]) < threshold for j in kept):
            kept.append(i)
    return kept
