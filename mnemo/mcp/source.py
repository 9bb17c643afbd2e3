"""Which tenant's :class:`~mnemo.memory.facade.Memory` a tool call works on.

Over stdio there is one caller, so one Memory (:class:`FixedMemory`). Over HTTP the tenant
is the one the request's API key maps to: the HTTP endpoint (:mod:`mnemo.mcp.http`)
authenticates every request and stores the tenant in the ASGI scope's state, and
:class:`TenantMemory` reads it back from the request that carried the tool call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from mnemo.errors import MnemoError
from mnemo.memory.facade import Memory

#: Key of the authenticated tenant in ``scope["state"]`` of an MCP HTTP request.
TENANT_STATE_KEY = "mnemo_tenant"


class MemorySource(Protocol):
    """Gives the Memory a tool call may touch, from the call's request context."""

    def memory(self, request: Any) -> Memory:
        """The Memory for the request that carried the call (``None`` over stdio)."""
        ...


class FixedMemory:
    """One Memory for every call (stdio: the process owner is the only caller)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def memory(self, request: Any) -> Memory:
        """The one Memory, whatever the request."""
        return self._memory


class TenantMemory:
    """The Memory of the tenant the HTTP endpoint authenticated for this request."""

    def __init__(self, tenant_memory: Callable[[str], Memory]) -> None:
        self._tenant_memory = tenant_memory

    def memory(self, request: Any) -> Memory:
        """The tenant's Memory; MnemoError when the request was not authenticated (it never
        reached the endpoint's check, so it gets nothing)."""
        scope = getattr(request, "scope", None)
        state = scope.get("state") if isinstance(scope, dict) else None
        tenant = state.get(TENANT_STATE_KEY) if isinstance(state, dict) else None
        if not isinstance(tenant, str) or not tenant:
            raise MnemoError("this MCP request was not authenticated")
        return self._tenant_memory(tenant)


__all__ = ["TENANT_STATE_KEY", "FixedMemory", "MemorySource", "TenantMemory"]
