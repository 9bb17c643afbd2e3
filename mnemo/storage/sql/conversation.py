"""The conversation-tiers role of a SQL store: profile facts, session reads, eviction."""

from __future__ import annotations

from mnemo.schemas import HistoryEntry, Message, ProfileFact, format_time
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import NewProfileFact, ProfileDecide, ProfileDecision
from mnemo.storage.sql import memories as mem_sql
from mnemo.storage.sql import messages as msg_sql
from mnemo.storage.sql import profile as profile_sql
from mnemo.storage.sql import rows
from mnemo.storage.sql.role import SQLRole


class SQLConversationStore(SQLRole):
    """:class:`~mnemo.storage.ports.conversation.ConversationStore` over the store's
    transactions."""

    def profile_facts(
        self,
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
        """A user's profile facts: active ones by importance, then inactive history; with
        ``as_of`` (a stored time), the facts current then; only those the agent view
        ``agents`` sees (None: every one)."""
        with self.tx.auto() as c:
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

    def put_profile_fact(
        self, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        """Apply ``decide`` to a candidate against the active fact, in one transaction."""
        now = format_time(self.clock())
        with self.tx.write() as c:
            mem_sql.own_user(c, row.tenant, row.user_id, now)
            return profile_sql.put_fact(c, row, actor, decide, now)

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        with self.tx.read() as c:
            return [rows.history(r) for r in profile_sql.profile_history(c, tenant, user_id)]

    def session_messages(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        after_seq: int = 0,
        ids: list[str] | None = None,
    ) -> list[Message]:
        """Messages of one session with seq > ``after_seq`` (optionally only ``ids``), by seq."""
        with self.tx.auto() as c:
            now = format_time(self.clock())
            return msg_sql.session(c, tenant, user_id, session_id, after_seq, ids, now)

    def evict_oldest(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        """Evict the oldest turns (kept, flagged) and memories (soft-deleted, with history)."""
        now = format_time(self.clock())
        with self.tx.write() as c:
            mem_sql.own_user(c, tenant, user_id, None)
            msg_ids, mem_ids = profile_sql.evict_oldest(
                c, tenant, user_id, session_id, max_entries, kinds, now
            )
            for memory_id in mem_ids:
                mem_sql.delete(c, tenant, memory_id, actor, [], now)
            if msg_ids:
                mem_sql.bump(c, tenant, user_id)
        if msg_ids or mem_ids:
            self.committed(lambda o: o.evicted(tenant, user_id, session_id))
        return len(msg_ids) + len(mem_ids)


__all__ = ["SQLConversationStore"]
