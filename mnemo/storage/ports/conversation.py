"""The conversation-tiers port: profile facts, session reads and eviction, with the requests
its reads and eviction take (each built once by the caller and passed down to the SQL)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from mnemo.schemas import HistoryEntry, Message, ProfileFact
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import NewProfileFact, ProfileDecide, ProfileDecision


@dataclass(frozen=True)
class ProfileQuery:
    """Which profile facts to read: whose (a user's, only those the agent view ``agents``
    sees; None: every one), then which: the active ones (with ``include_inactive`` the
    replaced ones after them), at least ``min_importance``, of one ``category``; with
    ``as_of`` (a stored time) the facts current then."""

    tenant: str
    user_id: str
    agents: AgentView | None = None
    include_inactive: bool = False
    min_importance: float | None = None
    category: str | None = None
    as_of: str | None = None


@dataclass(frozen=True)
class SessionTurns:
    """The turns of one session with seq > ``after_seq`` (with ``ids``: only those)."""

    tenant: str
    user_id: str
    session_id: str
    after_seq: int = 0
    ids: Sequence[str] | None = None


@dataclass(frozen=True)
class Eviction:
    """Keep at most ``max_entries`` turns and memories of ``kinds`` of one conversation in
    the working set; ``actor`` is recorded on the memories it deletes."""

    tenant: str
    user_id: str
    session_id: str
    max_entries: int
    kinds: tuple[str, ...]
    actor: str


class ConversationStore(Protocol):
    """What the profile, episode, summary and eviction tiers read and write."""

    def profile_facts(self, q: ProfileQuery) -> list[ProfileFact]:
        """The profile facts ``q`` selects: active ones by importance, then inactive history
        (as of a time: the facts current then, listed as active)."""
        ...

    def put_profile_fact(
        self, row: NewProfileFact, actor: str, decide: ProfileDecide
    ) -> tuple[ProfileDecision, ProfileFact | None]:
        """Atomically read the active fact of (category, key), apply ``decide`` and record
        history; returns the decision and the resulting (or unchanged) active fact (None
        after END: the state ended, nothing is active)."""
        ...

    def profile_history(self, tenant: str, user_id: str) -> list[HistoryEntry]:
        """History entries of every profile fact of a user, oldest first."""
        ...

    def session_messages(self, span: SessionTurns) -> list[Message]:
        """The turns of ``span`` not expired by the store's clock, by seq."""
        ...

    def evict_oldest(self, e: Eviction) -> int:
        """Take the oldest turns and memories (of the kinds ``e`` names) of its conversation
        out of the working set (search) until its ``max_entries`` remain; turns stay stored.
        Returns how many."""
        ...


__all__ = ["ConversationStore", "Eviction", "ProfileQuery", "SessionTurns"]
