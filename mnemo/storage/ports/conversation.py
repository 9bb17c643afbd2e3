"""The conversation-tiers port: profile facts, session reads and eviction."""

from __future__ import annotations

from typing import Protocol

from mnemo.schemas import HistoryEntry, Message, ProfileFact
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import NewProfileFact, ProfileDecide, ProfileDecision


class ConversationStore(Protocol):
    """What the profile, episode, summary and eviction tiers read and write."""

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
        ...

    def put_profile_fact(
        self, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        """Atomically read the active fact of (category, key), apply ``decide`` and record
        history; returns the decision and the resulting (or unchanged) active fact."""
        ...

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        ...

    def session_messages(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        after_seq: int = 0,
        ids: list[str] | None = None,
    ) -> list[Message]:
        """Messages of one session with seq > ``after_seq`` (optionally only ``ids``), by seq."""
        ...

    def evict_oldest(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        """Take the oldest turns and memories of ``kinds`` of a conversation out of the
        working set (search) until ``max_entries`` remain; turns stay stored. Returns how many."""
        ...


__all__ = ["ConversationStore"]
