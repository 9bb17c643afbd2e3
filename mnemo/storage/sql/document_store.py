"""The documents role of a SQL store: context documents and their embedded chunks."""

from __future__ import annotations

from mnemo.schemas import Document
from mnemo.storage.base import DocumentChunks, NewDocument
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql.role import SQLRole


class SQLDocumentStore(SQLRole):
    """:class:`~mnemo.storage.ports.documents.DocumentStore` over the store's transactions."""

    def add_document(self, row: NewDocument) -> Document:
        """Insert a context document and its chunks."""
        with self.tx.write() as c:
            mem_sql.own_user(c, row.tenant, row.user_id, row.created_at)
            return docs.insert(c, row)

    def delete_document(self, tenant: str, document_id: str) -> Document:
        """Remove a document and its chunks; NotFoundError when it does not exist."""
        with self.tx.write() as c:
            return docs.delete(c, tenant, document_id)

    def list_documents(
        self, tenant: str, user_id: str, session_id: str | None = None
    ) -> list[Document]:
        """A user's documents, oldest first; with ``session_id``, those attached to that
        session plus those attached to every session."""
        with self.tx.auto() as c:
            return docs.listed(c, tenant, user_id, session_id)

    def document_chunks(self, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
        """Every chunk of a user's documents, with vectors made by ``embedder``."""
        with self.tx.read() as c:
            return docs.chunks(c, tenant, user_id, embedder)


__all__ = ["SQLDocumentStore"]
