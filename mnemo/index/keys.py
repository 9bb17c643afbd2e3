"""Extra index keys of long turns: runs of whole sentences, each embedded on its own.

A turn's vector describes the whole turn. In a long user message, one sentence ("by the way, I
just turned 32 last month") is drowned by the rest, and the bundled MiniLM was trained on texts
of at most 128 word pieces. So a user turn longer than ``max_words`` is also cut into chunks of
whole sentences of at most ``max_words`` words, each embedded as an extra key of that turn. The
dense score of a turn blends its own cosine with its best key's (:func:`blend_keys`).

Measured on the dev splits (docs/evaluation.md): keys on long user turns raise LongMemEval's
R@5 by 5.6 points and its all-evidence-sessions-in-first-5 by one question of 24, and leave
LoCoMo unchanged (its turns are short); keys on assistant turns cost as much to embed again and
did not help, so they are user-only.

Facts as keys (the LongMemEval paper's "key = turn + facts"): with ``fact_keys`` every turn
also gets the facts the write path's rules find in it ("User adopted a beagle called Biscuit
last week"), embedded and blended the same way. LoCoMo dev R@5 +0.9, multi-hop R@10 +1.5.

Stored per message as one blob of float32 vectors (``messages.key_vectors``): NULL means not
computed yet (a store written before keys existed, or just re-embedded), an empty blob means
the turn needs none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mnemo.config.settings import Settings
from mnemo.embedders.base import Embedder
from mnemo.storage.ports.search import SearchSource
from mnemo.text.fact_rules import extract_facts
from mnemo.text.sentences import sentences

#: Roles whose long turns get keys.
KEYED_ROLES = frozenset({"user"})


def chunk_text(text: str, max_words: int) -> list[str]:
    """Runs of consecutive sentences of at most ``max_words`` words (a longer sentence stands
    alone); ``[]`` when the text fits in one chunk or ``max_words`` is 0."""
    if max_words <= 0 or len(text.split()) <= max_words:
        return []
    out: list[str] = []
    run: list[str] = []
    words = 0
    for sentence in sentences(text):
        n = len(sentence.split())
        if run and words + n > max_words:
            out.append(" ".join(run))
            run, words = [], 0
        run.append(sentence)
        words += n
    if run:
        out.append(" ".join(run))
    return out if len(out) > 1 else []


@dataclass(frozen=True)
class KeySpec:
    """Which keys a turn gets: chunks of long user turns (``max_words``, 0 = none) and the
    facts the rules find in any turn (``facts``, with the fact tier's length bounds)."""

    max_words: int = 0
    facts: bool = False
    max_facts: int = 3
    min_chars: int = 10
    max_chars: int = 500

    @classmethod
    def from_settings(cls, settings: Settings) -> KeySpec:
        """The spec of ``key_chunk_words`` and ``fact_keys`` (and the fact tier's bounds)."""
        return cls(
            settings.key_chunk_words,
            settings.fact_keys,
            settings.fact_max_per_turn,
            settings.fact_min_chars,
            settings.fact_max_chars,
        )

    @property
    def off(self) -> bool:
        """True when no turn gets keys."""
        return self.max_words <= 0 and not self.facts


def keyed(role: str, text: str, spec: KeySpec) -> list[str]:
    """The key texts of one turn: chunks of a long turn by a keyed role, then the facts the
    rules find in it ("I adopted a beagle called Biscuit" in a longer message), each once."""
    out = chunk_text(text, spec.max_words) if role in KEYED_ROLES else []
    if spec.facts:
        found = extract_facts(text, spec.max_facts, spec.min_chars, spec.max_chars)
        out += [f for f in found if f != text.strip() and f not in out]
    return out


def blend_keys(
    sims: np.ndarray, key_sims: np.ndarray, owners: np.ndarray, weight: float
) -> np.ndarray:
    """``(1-w) * cos(turn) + w * max(cos(turn), max cos(key of the turn))`` per row.

    ``key_sims[i]`` is the cosine of a key owned by row ``owners[i]``; rows without keys keep
    their cosine.
    """
    if weight <= 0 or len(owners) == 0:
        return sims
    best = sims.copy()
    np.maximum.at(best, owners, key_sims)
    return (1.0 - weight) * sims + weight * best


def embed_keys(
    embedder: Embedder,
    store: SearchSource,
    tenant: str | None,
    turns: Sequence[tuple[str, str]],
    hashes: Sequence[str],
    spec: KeySpec,
) -> list[np.ndarray | None]:
    """The key vectors of each ``(role, text)`` turn: (k, dim), k = 0 when it needs none;
    all None when keys are off. Keys ``tenant`` already stored for the same text (by content
    hash) are reused (None: any tenant's, for maintenance); the rest are embedded in one batch."""
    if spec.off:
        return [None] * len(turns)
    wanted = [keyed(role, text, spec) for role, text in turns]
    known = store.key_vectors_for(
        tenant, embedder.id, [h for h, w in zip(hashes, wanted, strict=True) if w]
    )
    todo: dict[str, list[str]] = {}
    for h, w in zip(hashes, wanted, strict=True):
        if w and len(known.get(h, ())) != len(w):
            todo.setdefault(h, w)
    if todo:
        flat = [t for w in todo.values() for t in w]
        vectors = embedder.embed(flat)
        at = 0
        for h, w in todo.items():
            known[h] = vectors[at : at + len(w)]
            at += len(w)
    empty = np.zeros((0, embedder.dim), np.float32)
    return [known[h] if w else empty for h, w in zip(hashes, wanted, strict=True)]
