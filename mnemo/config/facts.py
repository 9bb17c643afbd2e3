"""Fact settings: how facts are drawn from turns and documents on the write path.

Names in this group: ``fact_extraction``, ``fact_rule_fallback``, ``fact_max_per_turn``,
``fact_min_chars``, ``fact_max_chars``, ``fact_dedupe_threshold``, ``fact_context_k``,
``fact_reconcile``, ``fact_reconcile_k``, ``fact_reconcile_none_adds``, ``document_chunk_words``,
``document_chunk_overlap``, ``max_document_chars``.

Prefix drift, kept for compatibility: attached documents (whose chunks facts are deduplicated
against) are ``document_*`` but their size limit is ``max_document_chars``; ``fact_keys`` is a
retrieval setting (:mod:`mnemo.config.search`) despite its prefix.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mnemo.config.bounds import share, size
from mnemo.config.group import SettingsGroup


class FactSettings(SettingsGroup):
    """Fact extraction, deduplication and reconciliation, and document chunking."""

    fact_extraction: Literal["single", "atomic", "off"] = Field(
        "atomic",
        description="How facts are drawn from turns: atomic (0-3 facts from each user message, "
        "`agent-cli`), single (one fact or nothing per user/assistant exchange, `llm-managed`) "
        "or off.",
    )
    fact_rule_fallback: bool = Field(
        True,
        description="Without an LLM, or when it fails, extract facts by rules; off extracts "
        "nothing then (`llm-managed`: with no extractor model nothing is extracted).",
    )
    fact_max_per_turn: int = Field(
        3, ge=1, le=20, description="Most facts taken from one user message in atomic mode."
    )
    fact_min_chars: int = size(10, "Shorter extracted facts are discarded.")
    fact_max_chars: int = Field(500, ge=10, description="Longer extracted facts are discarded.")
    fact_dedupe_threshold: float = share(
        0.90,
        "A new fact whose cosine with an existing fact or a document chunk reaches "
        "this is a duplicate and is not stored.",
    )
    fact_context_k: int = Field(
        8,
        ge=0,
        le=100,
        description="Existing facts shown to the single-fact extractor: its query's top-k "
        "with a cosine of at least `min_similarity` (`llm-managed`: top-8 over 0.5).",
    )
    fact_reconcile: bool = Field(
        True,
        description="Reconcile new facts with the nearest existing ones (ADD / UPDATE / DELETE "
        "/ NONE; with an LLM one more call); off stores each fact that passes the duplicate "
        "checks as it is (`llm-managed`).",
    )
    fact_reconcile_k: int = Field(
        5, ge=1, le=50, description="Nearest existing facts each new fact is reconciled against."
    )
    fact_reconcile_none_adds: bool = Field(
        False,
        description="Reconciliation safeguard: an answer with no ADD or UPDATE (NONE or "
        "DELETE only, or empty) adds the new facts as extracted (`agent-cli`: 'no additions -> "
        "add the originals'); off, a NONE keeps them out (the fact is taken as already known) "
        "and only an empty or delete-only answer adds them.",
    )
    document_chunk_words: int = Field(
        150,
        ge=10,
        le=5000,
        description="Words per chunk of an attached document (fits the embedder's window).",
    )
    document_chunk_overlap: int = Field(
        25, ge=0, le=1000, description="Words shared by neighbouring document chunks."
    )
    max_document_chars: int = size(1_000_000, "Longest context document accepted, in characters.")


__all__ = ["FactSettings"]
