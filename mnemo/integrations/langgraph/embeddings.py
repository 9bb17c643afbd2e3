"""The embedder behind a store's ``IndexConfig["embed"]``: mnemo's own, or the caller's.

``embed`` may be

* absent or ``"mnemo"``: the ``Memory``'s own embedder (the bundled local model by default);
* a mnemo embedder name (``"local"``, ``"hashing"``, ...): that embedder;
* a LangChain ``Embeddings``, or a function from texts to vectors (sync or async):
  :class:`LangChainEmbedder` makes it a mnemo embedder;
* any other text (``"openai:text-embedding-3-small"``): refused, since mnemo never fetches a
  model or calls a provider it was not given; pass an ``Embeddings`` object instead.

Any embedder other than the ``Memory``'s own runs in the ``Memory`` that
``Memory.with_embedder`` gives over the same store, so mnemo's rule holds: a store keeps the
vectors of one embedder (a SchemaError names the other and the way out, ``mnemo reembed``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from langgraph.store.base import Embeddings, ensure_embeddings

from mnemo.embedders import REGISTRY, Embedder, normalize_rows
from mnemo.errors import ValidationError
from mnemo.memory.facade import Memory


class LangChainEmbedder(Embedder):
    """A LangChain ``Embeddings`` as a mnemo :class:`~mnemo.embedders.Embedder` of ``dims``
    dimensions; its ``id`` (stored with each vector) is ``langchain:<name>:<dims>``."""

    def __init__(self, embeddings: Any, dims: int, name: str) -> None:
        self.embeddings = embeddings
        self.dim = dims
        self.id = f"langchain:{name}:{dims}"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """The ``Embeddings``' document vectors of ``texts``."""
        return np.asarray(self.embeddings.embed_documents(list(texts)), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """The ``Embeddings``' query vector of ``text``, at unit length."""
        vector = np.asarray([self.embeddings.embed_query(text)], dtype=np.float32)
        out: np.ndarray = normalize_rows(vector)[0]
        return out


class MnemoEmbeddings(Embeddings):
    """A mnemo :class:`~mnemo.embedders.Embedder` as a LangChain ``Embeddings`` (what a
    store's ``embeddings`` attribute gives, as LangGraph's stores do)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Unit vectors of ``texts``."""
        return [[float(x) for x in row] for row in self.embedder.embed(texts)]

    def embed_query(self, text: str) -> list[float]:
        """The unit vector of a search query."""
        return [float(x) for x in self.embedder.embed_query(text)]


def as_embeddings(embedder: Embedder) -> Any:
    """The LangChain ``Embeddings`` behind ``embedder``: the caller's own object when it was
    given one, else :class:`MnemoEmbeddings` over mnemo's."""
    if isinstance(embedder, LangChainEmbedder):
        return embedder.embeddings
    return MnemoEmbeddings(embedder)


def embedder_name(embed: Any) -> str:
    """A readable name for an ``Embeddings`` object or function: its model, else its type's or
    function's name."""
    model = getattr(embed, "model", None) or getattr(embed, "model_name", None)
    if isinstance(model, str) and model:
        return model
    return str(getattr(embed, "__name__", None) or type(embed).__name__)


def index_memory(memory: Memory, index: Mapping[str, Any]) -> Memory:
    """The ``Memory`` whose embedder serves ``index`` (``memory`` itself unless ``embed``
    names another embedder); ValidationError when ``dims`` disagrees with it."""
    embed = index.get("embed", "mnemo")
    dims = index.get("dims")
    if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int) or dims < 1):
        raise ValidationError(f"index dims must be a positive integer, got {dims!r}")
    chosen = memory
    if embed is None or embed == "mnemo" or embed == memory.settings.embedder:
        pass
    elif isinstance(embed, str):
        if embed not in REGISTRY:
            raise ValidationError(
                f"index embed {embed!r} is not a mnemo embedder ({', '.join(sorted(REGISTRY))}"
                ", or \"mnemo\" for the Memory's own); mnemo fetches no provider's model: pass "
                "a LangChain Embeddings object or a function from texts to vectors instead"
            )
        chosen = memory.with_embedder(embed)
    else:
        if dims is None:
            raise ValidationError("index dims is required with an Embeddings object or function")
        wrapped = LangChainEmbedder(ensure_embeddings(embed), dims, embedder_name(embed))
        chosen = memory.with_embedder(wrapped)
    if dims is not None and dims != chosen.embedder.dim:
        raise ValidationError(
            f"index dims is {dims}, but the embedder {chosen.embedder.id!r} makes "
            f"{chosen.embedder.dim}-dimensional vectors"
        )
    return chosen


__all__ = ["LangChainEmbedder", "MnemoEmbeddings", "as_embeddings", "embedder_name", "index_memory"]
