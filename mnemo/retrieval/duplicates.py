"""One hit per thing said: exact and near-duplicate hits collapse into the best-ranked one.

Walking the ranked candidates best first, a candidate is a duplicate of a hit already kept when

* their texts are equal once lower-cased and reduced to their words (:func:`text_key`), or
* the cosine of their vectors is >= ``similarity`` (near-duplicates), or
* one is a memory distilled from the other turn (the turn is in the memory's
  ``source_message_ids``) and their cosine is >= ``source_similarity``: a fact and the turn it
  came from that say the same thing.

A duplicate is not shown; its id joins the kept hit's ``duplicates``. Turns whose text is
already in the request being answered (``exclude``) are left out altogether: the model reads
them there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def text_key(text: str) -> str:
    """The words of ``text``, lower-cased, joined by one space ("Hi, Ann!" -> "hi ann")."""
    return " ".join(_WORD.findall(text.lower()))


@dataclass
class Kept:
    """A hit kept so far: its id, text key, vector, source turns and the duplicates it holds."""

    id: str
    key: str
    vector: np.ndarray | None
    sources: frozenset[str] = frozenset()
    duplicates: list[str] = field(default_factory=list)


@dataclass
class Collapser:
    """Keeps the first of every group of duplicates (see the module docstring)."""

    similarity: float = 1.0
    source_similarity: float = 1.0
    exclude: frozenset[str] = frozenset()
    kept: list[Kept] = field(default_factory=list)
    _by_key: dict[str, Kept] = field(default_factory=dict)
    _matrix: np.ndarray | None = None  # vectors of the kept hits that have one, by row
    _rows: list[Kept] = field(default_factory=list)

    def excluded(self, text: str) -> bool:
        """True when ``text`` is one of the request's own texts."""
        return bool(self.exclude) and text_key(text) in self.exclude

    def admit(
        self,
        id_: str,
        text: str,
        vector: np.ndarray | None,
        sources: Iterable[str] = (),
    ) -> Kept | None:
        """The kept hit this candidate duplicates (its id recorded there), or None after
        keeping the candidate as a new hit."""
        key = text_key(text)
        src = frozenset(sources)
        same = self._by_key.get(key) or self._similar(id_, vector, src)
        if same is not None:
            same.duplicates.append(id_)
            return same
        kept = Kept(id_, key, vector, src)
        self.kept.append(kept)
        self._by_key.setdefault(key, kept)
        if vector is not None:
            self._add_row(kept, vector)
        return None

    def _similar(self, id_: str, vector: np.ndarray | None, sources: frozenset[str]) -> Kept | None:
        """The first kept hit whose cosine with ``vector`` is >= ``similarity``, or >=
        ``source_similarity`` when one was distilled from the other."""
        if vector is None or self._matrix is None or self._matrix.shape[1] != vector.shape[0]:
            return None
        cos = self._matrix[: len(self._rows)] @ vector.astype(np.float32)
        for i in np.flatnonzero(cos >= min(self.similarity, self.source_similarity)).tolist():
            k = self._rows[i]
            if cos[i] >= self.similarity or id_ in k.sources or k.id in sources:
                return k
        return None

    def _add_row(self, kept: Kept, vector: np.ndarray) -> None:
        n = len(self._rows)
        if self._matrix is None or self._matrix.shape[1] != vector.shape[0]:
            if self._matrix is not None:
                return  # another embedder's vector: compared on its text only
            self._matrix = np.zeros((16, vector.shape[0]), np.float32)
        if n == len(self._matrix):
            self._matrix = np.concatenate([self._matrix, np.zeros_like(self._matrix)])
        self._matrix[n] = vector
        self._rows.append(kept)


def exclusion_keys(texts: Iterable[str]) -> frozenset[str]:
    """The text keys of a request's own texts (blank ones left out)."""
    return frozenset(k for k in (text_key(t) for t in texts) if k)


__all__ = ["Collapser", "Kept", "exclusion_keys", "text_key"]
