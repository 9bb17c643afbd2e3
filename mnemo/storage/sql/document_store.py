"""The documents role of a SQL store (``store.documents``): context documents and their
embedded chunks; the port (:class:`~mnemo.storage.ports.documents.DocumentStore`) documents
every method."""

from __future__ import annotations

from mnemo.schemas import Document
from mnemo.storage.base import DocumentChunks, NewDocument
from mnemo.storage.ports.documents import DocumentStore
from mnemo.storage.sql import documents as docs
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import auto, reads, writes
from mnemo.storage.sql.tx import Tx


class SQLDocumentStore(SQLRole, DocumentStore):
    """:class:`~mnemo.storage.ports.documents.DocumentStore` over the store's core."""

    @writes
    def add_document(self, c: Tx, row: NewDocument) -> Document:
        mem_sql.own_user(c, row.tenant, row.user_id, row.created_at)
        return docs.insert(c, row)

    @writes
    def delete_document(self, c: Tx, tenant: str, document_id: str) -> Document:
        return docs.delete(c, tenant, document_id)

    @auto
    def list_documents(
        self, c: Tx, tenant: str, user_id: str, session_id: str | None = None
    ) -> list[Document]:
        return docs.listed(c, tenant, user_id, session_id)

    @reads
    def document_chunks(self, c: Tx, tenant: str, user_id: str, embedder: str) -> DocumentChunks:
        return docs.chunks(c, tenant, user_id, embedder)


__all__ = ["SQLDocumentStore"]
