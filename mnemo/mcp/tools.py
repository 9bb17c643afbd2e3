"""The MCP tools: remember, recall, context, list/get/update/forget memories,
count_memories and forget_memories (by filter), profile, entities and entity, forget_user and
forget_agent, audit_memories, each over the Memory its caller may touch (see
:mod:`mnemo.mcp.source`).

Tools are plain functions (the SDK runs them on worker threads, over the sync core). Argument
schemas come from their type hints; a rejected argument, an unknown id or any other
:class:`~mnemo.errors.MnemoError` comes back as a tool error (``isError``) with mnemo's
one-line message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from mnemo.context.options import BudgetTokens
from mnemo.errors import MnemoError, ValidationError
from mnemo.list_query import MemoryQuery
from mnemo.mcp.field_params import remember_fields, update_fields
from mnemo.mcp.models import (
    AgentErased,
    Counted,
    Entities,
    Erased,
    MemoryKind,
    MemoryList,
    Profile,
    PromptContext,
    Recalled,
    RecallResult,
    Remembered,
    Turn,
)
from mnemo.mcp.params import tool_params
from mnemo.mcp.source import MemorySource
from mnemo.memory.facade import Memory
from mnemo.ops.audit.findings import AuditReport
from mnemo.schemas import EntityDetail, MemoryItem
from mnemo.search_query import Filters, SearchQuery
from mnemo.signatures import REQUIRED, keyword, with_params

Ctx = Context[Any, Any]
UserId = Annotated[str, Field(description="The user whose memory this is.", min_length=1)]
SessionId = Annotated[
    str | None, Field(description="Conversation (session) id; omit for any session.")
]
OptionalUserId = Annotated[
    str | None,
    Field(description="The user; omit with agent_id for the agent's own memories.", min_length=1),
]
MemoryId = Annotated[str, Field(description="A memory id (mem_...).", min_length=1)]
AgentId = Annotated[
    str | None,
    Field(
        description="The agent: stores the memory private to it; reads what it sees (the "
        "user's shared memories and its own). Omit for shared memories and the whole user.",
        min_length=1,
    ),
]
UnitInterval = Annotated[float, Field(ge=0.0, le=1.0)]
#: Hits ``recall`` returns when the call does not say.
DEFAULT_HITS = 10

#: The search arguments no tool takes (the chat proxy's own texts, per-call setting overrides).
NOT_SEARCH_TOOL = frozenset({"exclude", "recency_weight", "score_threshold"})
#: ``recall``'s arguments: SearchQuery's fields, a user required, ten hits by default.
RECALL = tool_params(
    SearchQuery,
    hidden=NOT_SEARCH_TOOL | {"explain"},
    types={"user_id": UserId},
    defaults={"user_id": REQUIRED, "limit": DEFAULT_HITS},
)
#: ``context``'s search arguments: SearchQuery's fields but the hits' number, kinds and scores
#: (the preset's layout sets those for each of its searches).
CONTEXT = tool_params(
    SearchQuery,
    hidden=NOT_SEARCH_TOOL | {"explain", "limit", "kinds", "current_session"},
    types={
        "query": Annotated[str, Field(description="The message the prompt answers.")],
        "user_id": UserId,
    },
    defaults={"user_id": REQUIRED},
)
#: ``list_memories``'s arguments: MemoryQuery's fields, a user required, live memories only.
LIST = tool_params(
    MemoryQuery,
    hidden={"since", "until", "include_deleted"},
    types={"user_id": UserId},
    defaults={"user_id": REQUIRED},
)
#: The memories ``count_memories`` and ``forget_memories`` select.
SELECTION = [
    keyword("user_id", OptionalUserId, None),
    keyword("session_id", SessionId, None),
    keyword("agent_id", AgentId, None),
    keyword("filters", Filters, None),
]

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a MnemoError into a ToolError carrying its message (an ``isError`` result)."""
    try:
        yield
    except MnemoError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from exc


class MemoryTools:
    """The mnemo tools, one method each, over the Memory ``source`` gives each call."""

    def __init__(self, source: MemorySource) -> None:
        self.source = source

    def memory(self, ctx: Ctx) -> Memory:
        """The Memory the call may touch."""
        return self.source.memory(ctx.request_context.request)

    @remember_fields(after="kind")
    def remember(
        self,
        user_id: UserId,
        ctx: Ctx,
        content: Annotated[
            str | None, Field(description="A memory to store (a fact, note, ...).")
        ] = None,
        turns: Annotated[
            list[Turn] | None,
            Field(description="Conversation turns to store instead of a memory (one batch)."),
        ] = None,
        session_id: SessionId = None,
        kind: Annotated[MemoryKind, Field(description="Kind of the memory.")] = "fact",
        expires_at: Annotated[
            str | None,
            Field(description="When it expires (ISO-8601); not with ttl_seconds."),
        ] = None,
        ttl_seconds: Annotated[
            int | None, Field(description="Expire this many seconds from now.")
        ] = None,
        agent_id: AgentId = None,
        **fields: Any,
    ) -> Remembered:
        """Store something about a user: either `content` (one memory, a fact by default) or
        `turns` (conversation turns; the background tiers distil facts from them later).
        `expires_at` or `ttl_seconds` makes it expire (gone from recall from then on).
        Returns the new ids."""
        with tool_errors():
            if (content is None) == (turns is None):
                raise ValidationError("give exactly one of content and turns")
            mem = self.memory(ctx)
            if turns is not None:
                rows = [t.model_dump(exclude_none=True) for t in turns]
                ids = mem.add_messages(
                    rows,
                    user_id=user_id,
                    session_id=session_id or "default",
                    expires_at=expires_at,
                    ttl_seconds=ttl_seconds,
                    agent_id=agent_id,
                )
                return Remembered(ids=ids)
            assert content is not None
            item = mem.add(
                content,
                user_id=user_id,
                session_id=session_id,
                kind=kind,
                expires_at=expires_at,
                ttl_seconds=ttl_seconds,
                agent_id=agent_id,
                **fields,
            )
            return Remembered(ids=[item.id], memory=item)

    @with_params(RECALL)
    def recall(self, ctx: Ctx, **fields: Any) -> RecallResult:
        """Search a user's memories and stored turns; hits come best first, each with its
        relevance score."""
        with tool_errors():
            q = SearchQuery(**fields)
            hits = self.memory(ctx).search(q)
            return RecallResult(query=q.query, hits=[Recalled.of(h) for h in hits])

    @with_params(CONTEXT)
    def context(self, ctx: Ctx, budget_tokens: BudgetTokens = 1500, **fields: Any) -> PromptContext:
        """Build the memory block to put into a prompt about `query`: profile facts, relevant
        memories and turns, within `budget_tokens`."""
        with tool_errors():
            q = SearchQuery(**fields)
            return PromptContext.of(self.memory(ctx).context(q, budget_tokens=budget_tokens))

    @with_params(LIST)
    def list_memories(self, ctx: Ctx, **fields: Any) -> MemoryList:
        """List a user's live memories, newest first, a page at a time: `total` says how many
        there are (how many match `filters`), `next_cursor` (or `next_offset`) where the next
        page starts (null on the last)."""
        with tool_errors():
            return MemoryList.of(self.memory(ctx).list_page(MemoryQuery(**fields)))

    def get_memory(
        self,
        memory_id: MemoryId,
        ctx: Ctx,
        user_id: Annotated[
            str | None, Field(description="Only if it is this user's.", min_length=1)
        ] = None,
        agent_id: AgentId = None,
    ) -> MemoryItem:
        """Fetch one live memory by id (with `user_id`/`agent_id`: only if it is in that
        scope)."""
        with tool_errors():
            return self.memory(ctx).get_memory(memory_id, user_id=user_id, agent_id=agent_id)

    @update_fields(after="ctx")
    def update_memory(self, memory_id: MemoryId, ctx: Ctx, **fields: Any) -> MemoryItem:
        """Change a memory's content, tags, importance or confidence; its history keeps the
        old version. Returns the updated memory."""
        with tool_errors():
            mem = self.memory(ctx)
            mem.get_memory(memory_id)
            return mem.update(memory_id, actor="mcp", **fields)

    def forget_memory(self, memory_id: MemoryId, ctx: Ctx) -> MemoryItem:
        """Delete one memory: it leaves recall, context and listings (a soft delete; its
        history keeps it). Returns the deleted memory."""
        with tool_errors():
            mem = self.memory(ctx)
            mem.get_memory(memory_id)
            return mem.delete(memory_id, actor="mcp")

    @with_params(SELECTION)
    def count_memories(self, ctx: Ctx, **selection: Any) -> Counted:
        """How many live memories of a user (or, with only `agent_id`, of an agent) match
        `filters` (all when omitted): what `list_memories` gives as `total`."""
        with tool_errors():
            return Counted(count=self.memory(ctx).count(**selection))

    @with_params(SELECTION)
    def forget_memories(
        self,
        ctx: Ctx,
        confirm: Annotated[
            bool, Field(description="Must be true: this deletes every matching memory.")
        ] = False,
        **selection: Any,
    ) -> Counted:
        """Delete every live memory of a user that matches `filters` (all of them when
        omitted), as forget_memory does each one; with `agent_id` only the memories private
        to that agent. Turns stay. Requires confirm=true; returns how many were deleted."""
        with tool_errors():
            if not confirm:
                raise ValidationError("forget_memories deletes every match: pass confirm=true")
            return Counted(count=self.memory(ctx).delete_all(**selection, actor="mcp"))

    def profile(
        self,
        user_id: UserId,
        ctx: Ctx,
        min_importance: Annotated[
            UnitInterval | None,
            Field(description="Only facts this important (default: the stage-1 floor)."),
        ] = None,
        agent_id: AgentId = None,
    ) -> Profile:
        """A user's profile: stable facts (identity, preferences, constraints, instructions)
        distilled from conversations, most important first. Empty until the profile tier has
        run on the user's turns."""
        with tool_errors():
            facts = self.memory(ctx).profile_view(
                user_id, min_importance=min_importance, agent_id=agent_id
            )
            return Profile(user_id=user_id, facts=facts)

    def entities(self, user_id: UserId, ctx: Ctx) -> Entities:
        """The people, pets, places, organisations and things a user talks about, each with
        its kind, aliases ("my husband") and how many turns mention it, the most mentioned
        first. Empty until the background fact job has run on the user's turns."""
        with tool_errors():
            return Entities(user_id=user_id, entities=self.memory(ctx).entities(user_id))

    def entity(
        self,
        user_id: UserId,
        name: Annotated[
            str,
            Field(
                description='The entity\'s name, an alias ("my husband") or its id.', min_length=1
            ),
        ],
        ctx: Ctx,
    ) -> EntityDetail:
        """What is known about one person, pet, place, organisation or thing of a user (\"what
        do we know about Raj\"): the entity, the live facts that name it and the turns that
        mention it. An error when the user has no entity of that name."""
        with tool_errors():
            return self.memory(ctx).entity(user_id, name)

    def forget_user(
        self,
        user_id: UserId,
        ctx: Ctx,
        confirm: Annotated[
            bool, Field(description="Must be true: this erases the user's data for good.")
        ] = False,
    ) -> Erased:
        """Erase EVERYTHING stored about a user (turns, memories, profile, history, jobs);
        this cannot be undone. Requires confirm=true."""
        with tool_errors():
            if not confirm:
                raise ValidationError("forget_user erases the user for good: pass confirm=true")
            return Erased(user_id=user_id, deleted=self.memory(ctx).delete_user(user_id))

    def forget_agent(
        self,
        agent_id: Annotated[str, Field(description="The agent to erase.", min_length=1)],
        ctx: Ctx,
        confirm: Annotated[
            bool, Field(description="Must be true: this erases the agent's data for good.")
        ] = False,
    ) -> AgentErased:
        """Erase everything private to an agent, across all users, and its own memories;
        the users' shared memories stay. This cannot be undone. Requires confirm=true."""
        with tool_errors():
            if not confirm:
                raise ValidationError("forget_agent erases the agent for good: pass confirm=true")
            return AgentErased(agent_id=agent_id, deleted=self.memory(ctx).delete_agent(agent_id))

    def audit_memories(
        self,
        user_id: UserId,
        ctx: Ctx,
        fix: Annotated[
            bool,
            Field(
                description="Apply the safe fixes (exact copies, empty junk, values superseded "
                "in time), through history."
            ),
        ] = False,
        apply: Annotated[
            list[str] | None,
            Field(description="Finding ids (aud_...) whose fix to apply, safe or not."),
        ] = None,
    ) -> AuditReport:
        """Audit a user's facts and profile: near-duplicates, contradictions, stale values
        and junk, each finding naming its memories and a fix (merge, supersede or delete).
        Changes nothing unless `fix` or `apply` asks; every change keeps history."""
        with tool_errors():
            return self.memory(ctx).audit(user_id=user_id, fix=fix, apply=apply or ())


#: Every tool, by name, with what it does to the store (the MCP annotations).
TOOLS: dict[str, ToolAnnotations] = {
    "remember": WRITE,
    "recall": READ,
    "context": READ,
    "list_memories": READ,
    "get_memory": READ,
    "update_memory": CHANGE,
    "forget_memory": CHANGE,
    "count_memories": READ,
    "forget_memories": CHANGE,
    "profile": READ,
    "entities": READ,
    "entity": READ,
    "forget_user": CHANGE,
    "forget_agent": CHANGE,
    "audit_memories": CHANGE,
}


def register_tools(server: MCPServer[Any], source: MemorySource) -> None:
    """Add every mnemo tool to ``server``, each resolving its Memory through ``source``."""
    tools = MemoryTools(source)
    for name, hints in TOOLS.items():
        server.tool(annotations=hints)(getattr(tools, name))


__all__ = [
    "CONTEXT",
    "DEFAULT_HITS",
    "LIST",
    "NOT_SEARCH_TOOL",
    "RECALL",
    "SELECTION",
    "TOOLS",
    "MemoryTools",
    "register_tools",
    "tool_errors",
]
