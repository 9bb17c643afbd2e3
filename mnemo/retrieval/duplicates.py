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
        for k in self.kept:
            if self._same(k, id_, key, vector, src):
                k.duplicates.append(id_)
                return k
        self.kept.append(Kept(id_, key, vector, src))
        return None

    def _same(
        self, k: Kept, id_: str, key: str, vector: np.ndarray | None, sources: frozenset[str]
    ) -> bool:
        if key == k.key:
            return True
        if vector is None or k.vector is None or vector.shape != k.vector.shape:
            return False
        cos = float(vector @ k.vector)
        if cos >= self.similarity:
            return True
        related = id_ in k.sources or k.id in sources
        return related and cos >= self.source_similarity


def exclusion_keys(texts: Iterable[str]) -> frozenset[str]:
    """The text keys of a request's own texts (blank ones left out)."""
    return frozenset(k for k in (text_key(t) for t in texts) if k)


__all__ = ["Collapser", "Kept", "exclusion_keys", "text_key"]
