"""Context documents (`llm-managed`'s context files) and the structured profile (`tiered`) of
:class:`mnemo.Memory`."""

from __future__ import annotations

import builtins
from typing import Any

from mnemo import validation as check
from mnemo.memory.tenant import TenantService
from mnemo.schemas import Document, ProfileFact
from mnemo.storage.agent_scope import read_scope
from mnemo.storage.ports.conversation import ProfileQuery
from mnemo.tiers.facts import documents as doc_tier


class Documents(TenantService):
    """One tenant's context documents and profile facts (``settings.tenant``); documents are
    chunked and embedded by ``embed``."""

    def attach_document(
        self,
        content: str,
        user_id: str,
        *,
        session_id: str | None = None,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Document:
        """Attach a context document to a user's session (or all sessions when None).

        Facts the document already states are not extracted from later turns (`llm-managed`).
        """
        row = doc_tier.new_document(
            content,
            user_id,
            session_id,
            title,
            metadata,
            tenant=self.tenant,
            settings=self.settings,
            embedder_id=self.embed.id,
            embed=self.embed,
        )
        return self.store.documents.add_document(row)

    def detach_document(self, id: str) -> Document:
        """Remove an attached document; NotFoundError for an unknown id."""
        return self.store.documents.delete_document(self.tenant, doc_tier.document_id(id))

    def documents(self, user_id: str, *, session_id: str | None = None) -> builtins.list[Document]:
        """A user's documents, oldest first; with ``session_id``, those that session sees."""
        user_id = check.identifier(user_id, "user_id")
        if session_id is not None:
            session_id = check.identifier(session_id, "session_id")
        return self.store.documents.list_documents(self.tenant, user_id, session_id)

    # ---- profile ------------------------------------------------------------------------
    def profile(
        self,
        user_id: str | None = None,
        *,
        min_importance: float | None = None,
        include_inactive: bool = False,
        category: str | None = None,
        agent_id: str | None = None,
    ) -> builtins.list[ProfileFact]:
        """A user's profile facts: the active ones, most important first (then by category
        and key). ``min_importance=settings.profile_context_min_importance`` (0.5) is stage 1
        of retrieval (`tiered`);
        ``include_inactive`` appends replaced values, oldest first. ``agent_id`` narrows it
        to what that agent sees (see :mod:`mnemo.storage.agent_scope`)."""
        user_id, agents = read_scope(user_id, agent_id)
        floor = (
            None if min_importance is None else check.unit_float(min_importance, "min_importance")
        )
        if category is not None:
            category = check.profile_category(category)
        return self.store.conversation.profile_facts(
            ProfileQuery(
                self.tenant,
                user_id,
                include_inactive=include_inactive,
                min_importance=floor,
                category=category,
                agents=agents,
            )
        )

    def profile_view(
        self,
        user_id: str | None = None,
        *,
        min_importance: float | None = None,
        agent_id: str | None = None,
    ) -> builtins.list[ProfileFact]:
        """The active profile facts a surface shows (REST, MCP): importance >=
        ``min_importance``, by default stage 1's floor, ``profile_context_min_importance``."""
        if min_importance is None:
            min_importance = self.settings.profile_context_min_importance
        return self.profile(user_id, min_importance=min_importance, agent_id=agent_id)
