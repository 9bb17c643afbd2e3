"""The documents port: context documents and their embedded chunks."""

from __future__ import annotations

from typing import Protocol

from mnemo.schemas import Document
from mnemo.storage.base import DocumentChunks, NewDocument


class DocumentStore(Protocol):
    """Context documents of a user, and their chunks for the fact tier."""

    def add_document(self, row: NewDocument) -> Document:
        """Insert a context document and its chunks."""
        ...

    def delete_document(self, tenant: str, document_id: str) -> Document:
        """Remove a document and its chunks; NotFoundError when it does not exist."""
        ...

    def list_documents(
        self, tenant: str, user_id: str, session_id: str | None = None
    ) -> list[Document]:
        """A user's documents, oldest first; with ``session_id``, those attached to that
        session plus those attached to every session."""
        ...

    def document_chunks(self, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
        """Every chunk of a user's documents, with vectors made by ``embedder``."""
        ...


__all__ = ["DocumentStore"]
