"""MCP resources: a user's profile and recent memories as JSON documents.

``mnemo://users/{user_id}/profile`` and ``mnemo://users/{user_id}/memories`` (the 50 newest),
each read from the Memory the caller may touch.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from mnemo.errors import MnemoError
from mnemo.mcp.models import MemoryList, Profile
from mnemo.mcp.source import MemorySource

Ctx = Context[Any, Any]
RECENT = 50


def register_resources(server: MCPServer[Any], source: MemorySource) -> None:
    """Add the profile and recent-memories resource templates to ``server``."""

    @server.resource(
        "mnemo://users/{user_id}/profile",
        name="profile",
        description="A user's active profile facts, most important first (JSON).",
        mime_type="application/json",
    )
    def profile_resource(user_id: str, ctx: Ctx) -> str:
        try:
            mem = source.memory(ctx.request_context.request)
            facts = mem.profile(user_id, min_importance=0.0)
        except MnemoError as exc:
            raise ResourceError(str(exc)) from exc
        return Profile(user_id=user_id, facts=facts).model_dump_json()

    @server.resource(
        "mnemo://users/{user_id}/memories",
        name="recent_memories",
        description=f"A user's {RECENT} newest live memories (JSON).",
        mime_type="application/json",
    )
    def memories_resource(user_id: str, ctx: Ctx) -> str:
        try:
            mem = source.memory(ctx.request_context.request)
            page = mem.list_page(user_id, limit=RECENT)
        except MnemoError as exc:
            raise ResourceError(str(exc)) from exc
        return MemoryList.of(page).model_dump_json()


__all__ = ["register_resources"]
