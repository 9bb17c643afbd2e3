"""Context documents (`llm-managed`'s "context files"): validation and chunking before storage.

A document is attached to a user, for one session or for all of them. Facts the document
already states are not extracted again (see :mod:`mnemo.tiers.facts.dedupe`).
"""

from __future__ import annotations

from typing import Any

from mnemo import validation as check
from mnemo.config.settings import Settings
from mnemo.errors import ValidationError
from mnemo.ids import new_id
from mnemo.schemas import format_time, utcnow
from mnemo.storage.base import NewDocument
from mnemo.tiers.facts.dedupe import chunk_words
from mnemo.tiers.facts.tier import Embed

DOCUMENT_PREFIX = "doc_"
MAX_TITLE_CHARS = 256


def new_document(
    content: Any,
    user_id: Any,
    session_id: Any,
    title: Any,
    metadata: Any,
    *,
    tenant: str,
    settings: Settings,
    embedder_id: str,
    embed: Embed,
) -> NewDocument:
    """A validated, chunked and embedded document; ValidationError before any work."""
    text = check.content(content, settings.max_document_chars)
    user_id = check.identifier(user_id, "user_id")
    if session_id is not None:
        session_id = check.identifier(session_id, "session_id")
    if title is not None:
        check.text(title, "title")
        if len(title) > MAX_TITLE_CHARS:
            raise ValidationError(f"title is longer than {MAX_TITLE_CHARS} characters")
    meta = check.json_object(metadata, "metadata", settings.max_metadata_bytes)
    chunks = chunk_words(text, settings.document_chunk_words, settings.document_chunk_overlap)
    _, vectors = embed(chunks)
    return NewDocument(
        id=new_id(DOCUMENT_PREFIX),
        tenant=tenant,
        user_id=user_id,
        session_id=session_id,
        title=title,
        content=text,
        metadata=meta,
        created_at=format_time(utcnow()),
        chunks=chunks,
        embedder=embedder_id,
        embeddings=vectors,
    )


def document_id(value: Any) -> str:
    """A document id as given by the caller: a string starting with ``doc_``."""
    if not isinstance(value, str) or not check.text(value, "id").startswith(DOCUMENT_PREFIX):
        raise ValidationError(f"not a document id: {value!r}")
    return value
