"""Embedder settings: which model turns text into vectors, and how it is called.

Names in this group: ``embedder``, ``embedder_model``, ``embedder_base_url``,
``embedder_api_key``, ``embedder_dim``, ``embed_batch_size``, ``embed_batch_tokens``,
``embed_threads``, ``embed_cache_dir``, ``embed_query_threads``, ``embed_precision``,
``embed_timeout_s``, ``embed_max_retries``, ``query_cache_size``.

Prefix drift, kept for compatibility: the choice of embedder is ``embedder_*`` while the way it
runs is ``embed_*``; ``query_cache_size`` (cached query vectors) has neither prefix.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mnemo.config.bounds import count, positive, retries
from mnemo.config.group import SettingsGroup


class EmbeddingSettings(SettingsGroup):
    """The embedder: its name and model, endpoint, batching, threads and query cache."""

    embedder: str = Field(
        "local",
        description="Embedder name: local (bundled ONNX model, no torch), sentence-transformers "
        "(needs the torch extra), openai or hashing.",
    )
    embedder_model: str | None = Field(
        None,
        description="Model for the embedder: a bundled model name for `local` "
        "(all-MiniLM-L6-v2-q8, the default, all-MiniLM-L6-v2-int8, paraphrase-MiniLM-L3-v2, "
        "nomic-embed-text-v1.5 / -256 / -f32 with the `nomic` extra, or "
        "multilingual-e5-small / -f32 with the `multilingual` extra), "
        "a model directory for `sentence-transformers` (default: the bundled all-MiniLM-L6-v2), "
        "a model name for `openai`.",
    )
    embedder_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible /v1/embeddings endpoint."
    )
    embedder_api_key: str | None = Field(None, description="API key for `embedder_base_url`.")
    embedder_dim: int = Field(384, ge=8, le=8192, description="Vector size of `hashing`.")
    embed_batch_size: int = Field(64, ge=1, le=4096, description="Texts per embedding batch.")
    embed_batch_tokens: int = Field(
        512,
        ge=16,
        le=1_000_000,
        description="`local` (ONNX) embedder: at most this many padded tokens (texts x the "
        "longest) per batch, besides `embed_batch_size`. Small length-sorted batches keep "
        "padding and cache misses low: 512 ran LoCoMo turns 1.37x faster than 64-text batches.",
    )
    embed_threads: int | None = Field(
        None,
        ge=1,
        le=256,
        description="CPU threads of a local embedder for batches (ingest). `local` (ONNX): "
        "unset means min(4, usable CPUs); `sentence-transformers`: torch's process-wide thread "
        "count, unset keeps torch's default.",
    )
    embed_cache_dir: str | None = Field(
        None,
        description="Where the `local` embedder keeps the model it builds on first use (the "
        "default all-MiniLM-L6-v2-q8, about 23 MB, 2 s once). Unset: $XDG_CACHE_HOME/mnemo/models "
        "or ~/.cache/mnemo/models.",
    )
    embed_query_threads: int = Field(
        1,
        ge=1,
        le=256,
        description="CPU threads of the `local` (ONNX) embedder for a single text (a query). "
        "1 keeps a query from competing with itself on a busy machine; thread pools never spin.",
    )
    embed_precision: Literal["auto", "float32", "bfloat16"] = Field(
        "auto",
        description="`sentence-transformers` embedder arithmetic: bfloat16 is ~1.7x faster on "
        "CPUs with native bf16 (vectors within cosine 0.9999 of float32); auto uses it only there.",
    )
    embed_timeout_s: float = positive(30.0, "Timeout of one embedding request.")
    embed_max_retries: int = retries(3, "Retries of a failed request.")
    query_cache_size: int = count(2048, "Query embeddings kept in memory (LRU); 0 disables.")


__all__ = ["EmbeddingSettings"]
