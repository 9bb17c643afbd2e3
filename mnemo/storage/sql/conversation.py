"""The conversation-tiers role of a SQL store (``store.conversation``): profile facts, session
reads, eviction; the port (:class:`~mnemo.storage.ports.conversation.ConversationStore`)
documents every method."""

from __future__ import annotations

from mnemo.schemas import HistoryEntry, Message, ProfileFact
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import NewProfileFact, ProfileDecide, ProfileDecision
from mnemo.storage.ports.conversation import ConversationStore
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
    def profile_facts(
        self,
        c: Tx,
        tenant: str,
        user_id: str,
        *,
        include_inactive: bool = False,
        min_importance: float | None = None,
        category: str | None = None,
        key: str | None = None,
        as_of: str | None = None,
        agents: AgentView | None = None,
    ) -> list[ProfileFact]:
        return profile_sql.select_facts(
            c,
            tenant,
            user_id,
            include_inactive,
            min_importance,
            category,
            key,
            as_of,
            agents=agents,
        )

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
    def session_messages(
        self,
        c: Tx,
        tenant: str,
        user_id: str,
        session_id: str,
        after_seq: int = 0,
        ids: list[str] | None = None,
    ) -> list[Message]:
        now = self.core.now()
        return msg_sql.session(c, tenant, user_id, session_id, after_seq, ids, now)

    @stamped(
        observe=lambda n, tenant, user_id, session_id, *_, **__: (
            (lambda o: o.evicted(tenant, user_id, session_id)) if n else None
        )
    )
    def evict_oldest(
        self,
        c: Tx,
        now: str,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        mem_sql.own_user(c, tenant, user_id, None)
        msg_ids, mem_ids = profile_sql.evict_oldest(
            c, tenant, user_id, session_id, max_entries, kinds, now
        )
        for memory_id in mem_ids:
            mem_sql.delete(c, tenant, memory_id, actor, [], now)
        if msg_ids:
            mem_sql.bump(c, tenant, user_id)
        return len(msg_ids) + len(mem_ids)


__all__ = ["SQLConversationStore"]
