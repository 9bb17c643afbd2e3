"""The typed arguments and results of the MCP tools (their JSON schemas come from here)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from mnemo import schemas
from mnemo.memory.paging import Page
from mnemo.schemas import ContextBundle, Hit, HitKind, MemoryItem, ProfileFact

MemoryKind = Literal["fact", "episode", "summary", "note"]
Role = Literal["user", "assistant", "system", "tool"]


class Turn(BaseModel):
    """One conversation turn to store."""

    role: Role = Field(description="Who spoke: user, assistant, system or tool.")
    content: str = Field(description="What was said.")
    name: str | None = Field(default=None, description="Speaker name, if any.")


class Remembered(BaseModel):
    """What ``remember`` stored: the new ids, and the memory when one was added."""

    ids: list[str] = Field(description="Ids of the stored memory (mem_...) or turns (msg_...).")
    memory: MemoryItem | None = Field(default=None, description="The stored memory, if any.")


class Recalled(BaseModel):
    """One search hit with its relevance (the number to read and threshold)."""

    id: str
    kind: str = Field(description="message (a stored turn), fact, episode, summary, note, ...")
    content: str
    score: float = Field(
        description="The ranking's own final score (explains the order; not comparable "
        "across queries): read relevance instead."
    )
    relevance: float | None = Field(
        default=None,
        description="Relevance in [0, 1], never rising down the list. When calibrated, the "
        "fitted probability that this hit is evidence for the query, comparable across "
        "queries; else the final score clipped to [0, 1].",
    )
    calibrated: bool = Field(False, description="Whether relevance is a fitted probability.")
    created_at: datetime
    session_id: str | None = None
    role: str | None = None
    name: str | None = None
    agent_id: str | None = Field(None, description="The agent it is private to; null: shared.")

    @classmethod
    def of(cls, hit: Hit) -> Recalled:
        """The tool's view of a search hit."""
        same = hit.model_dump(include=set(cls.model_fields) - {"score"})
        return cls(**same, score=round(hit.score, 6))


class RecallResult(BaseModel):
    """The hits of ``recall``, best first."""

    query: str
    hits: list[Recalled]


class PromptContext(BaseModel):
    """A memory block for a prompt, within a token budget."""

    text: str = Field(description="The block to put in the prompt (empty when nothing fits).")
    placement: Literal["system", "user"] = Field(
        description="Where it goes: a system message, or in place of the last user message."
    )
    token_count: int
    budget_tokens: int
    dropped: int = Field(description="Items left out to stay within the budget.")

    @classmethod
    def of(cls, bundle: ContextBundle) -> PromptContext:
        """The tool's view of a context bundle."""
        return cls(
            text=bundle.render(),
            placement=bundle.placement,
            token_count=bundle.token_count,
            budget_tokens=bundle.budget_tokens,
            dropped=bundle.dropped,
        )


class MemoryList(BaseModel):
    """A page of memories, newest first."""

    memories: list[MemoryItem]
    total: int = Field(description="How many memories match, on every page.")
    next_offset: int | None = Field(description="Offset of the next page; null on the last.")
    next_cursor: str | None = Field(
        default=None,
        description="Cursor of the next page (pass it as `cursor`; it stays right while "
        "memories are written); null on the last.",
    )

    @classmethod
    def of(cls, page: Page[MemoryItem]) -> MemoryList:
        """The tool's view of a page of memories."""
        return cls(
            memories=page.items,
            total=page.total,
            next_offset=page.next_offset,
            next_cursor=page.next_cursor,
        )


class Profile(BaseModel):
    """A user's active profile facts, most important first."""

    user_id: str
    facts: list[ProfileFact]


class Entities(BaseModel):
    """A user's entities (people, pets, places, organisations, things), the most mentioned
    first."""

    user_id: str
    entities: list[schemas.Entity]


class Erased(schemas.ErasedUser):
    """What ``forget_user`` deleted, by table."""


class AgentErased(schemas.ErasedAgent):
    """What ``forget_agent`` deleted, by table."""


class Counted(BaseModel):
    """How many memories ``count_memories`` counted or ``forget_memories`` deleted."""

    count: int


__all__ = [
    "AgentErased",
    "Counted",
    "Entities",
    "Erased",
    "HitKind",
    "MemoryKind",
    "MemoryList",
    "Profile",
    "PromptContext",
    "RecallResult",
    "Recalled",
    "Remembered",
    "Role",
    "Turn",
]
