"""Embedders by name. Imports are lazy so optional dependencies stay optional.

``create_embedder(settings)`` builds the one named by ``settings.embedder``:
``local`` (a bundled ONNX MiniLM on onnxruntime, no torch; the default),
``sentence-transformers`` (a sentence-transformers model directory on torch, the ``torch``
extra; default the bundled all-MiniLM-L6-v2), ``openai`` (any OpenAI-compatible
/v1/embeddings) or ``hashing`` (deterministic, dependency-free).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mnemo.embedders.base import Embedder, content_hash, normalize_rows
from mnemo.errors import ConfigError

if TYPE_CHECKING:
    from mnemo.config.settings import Settings


def _local(s: Settings) -> Embedder:
    from mnemo.embedders.onnx import OnnxEmbedder

    return OnnxEmbedder(
        s.embedder_model,
        batch_size=s.embed_batch_size,
        batch_tokens=s.embed_batch_tokens,
        threads=s.embed_threads,
        query_threads=s.embed_query_threads,
        cache_dir=s.embed_cache_dir,
    )


def _sentence_transformers(s: Settings) -> Embedder:
    from mnemo.embedders.local import LocalEmbedder

    return LocalEmbedder(
        s.embedder_model,
        batch_size=s.embed_batch_size,
        threads=s.embed_threads,
        precision=s.embed_precision,
    )


def _openai(s: Settings) -> Embedder:
    from mnemo.embedders.openai import OpenAIEmbedder

    if s.embedder_base_url:
        base_url, api_key = s.embedder_base_url, s.embedder_api_key
    elif s.llm_base_url:  # the LLM's key goes only to the LLM's own host
        base_url, api_key = s.llm_base_url, s.embedder_api_key or s.llm_api_key
    else:
        raise ConfigError(
            "the openai embedder needs MNEMO_EMBEDDER_BASE_URL (or MNEMO_LLM_BASE_URL)"
        )
    return OpenAIEmbedder(
        base_url=base_url,
        model=s.embedder_model or "text-embedding-3-small",
        api_key=api_key,
        batch_size=s.embed_batch_size,
        timeout_s=s.embed_timeout_s,
        max_retries=s.embed_max_retries,
    )


def _hashing(s: Settings) -> Embedder:
    from mnemo.embedders.hashing import HashingEmbedder

    return HashingEmbedder(dim=s.embedder_dim)


#: Embedder name -> factory taking Settings.
REGISTRY: dict[str, Callable[[Settings], Embedder]] = {
    "local": _local,
    "sentence-transformers": _sentence_transformers,
    "openai": _openai,
    "hashing": _hashing,
}


def create_embedder(settings: Settings) -> Embedder:
    """Build the embedder named by ``settings.embedder``; ConfigError for an unknown name."""
    factory = REGISTRY.get(settings.embedder)
    if factory is None:
        raise ConfigError(
            f"unknown embedder {settings.embedder!r}; choose one of {sorted(REGISTRY)}"
        )
    return factory(settings)


__all__ = ["REGISTRY", "Embedder", "content_hash", "create_embedder", "normalize_rows"]
