"""The conversation-tiers role of a SQL store (``store.conversation``): profile facts, session
reads, eviction; the port (:class:`~mnemo.storage.ports.conversation.ConversationStore`)
documents every method."""

from __future__ import annotations

from mnemo.schemas import HistoryEntry, Message, ProfileFact
from mnemo.storage.base import NewProfileFact, ProfileDecide, ProfileDecision
from mnemo.storage.ports.conversation import (
    ConversationStore,
    Eviction,
    ProfileQuery,
    SessionTurns,
)
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql import messages as msg_sql
from mnemo.storage.sql import profile as profile_sql
from mnemo.storage.sql import rows
from mnemo.storage.sql.role import SQLRole
from mnemo.storage.sql.transactional import auto, reads, stamped
from mnemo.storage.sql.tx import Tx


class SQLConversationStore(SQLRole, ConversationStore):
    """:class:`~mnemo.storage.ports.conversation.ConversationStore` over the store's core."""

    @auto
    def profile_facts(self, c: Tx, q: ProfileQuery) -> list[ProfileFact]:
        return profile_sql.select_facts(c, q)

    @stamped()
    def put_profile_fact(
        self, c: Tx, now: str, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        mem_sql.own_user(c, row.tenant, row.user_id, now)
        return profile_sql.put_fact(c, row, actor, decide, now)

    @reads
    def profile_history(self, c: Tx, tenant: str, user_id: str) -> list[HistoryEntry]:
        return [rows.history(r) for r in profile_sql.profile_history(c, tenant, user_id)]

    @auto
    def session_messages(self, c: Tx, span: SessionTurns) -> list[Message]:
        return msg_sql.session(c, span, self.core.now())

    @stamped(
        observe=lambda n, e: (lambda o: o.evicted(e.tenant, e.user_id, e.session_id)) if n else None
    )
    def evict_oldest(self, c: Tx, now: str, e: Eviction) -> int:
        mem_sql.own_user(c, e.tenant, e.user_id, None)
        msg_ids, mem_ids = profile_sql.evict_oldest(c, e, now)
        for memory_id in mem_ids:
            mem_sql.delete(c, e.tenant, memory_id, e.actor, [], now)
        if msg_ids:
            mem_sql.bump(c, e.tenant, e.user_id)
        return len(msg_ids) + len(mem_ids)


__all__ = ["SQLConversationStore"]
