"""The SQL condition of an :class:`~mnemo.storage.agent_scope.AgentView` (both dialects)."""

from __future__ import annotations

from typing import Any

from mnemo.storage.agent_scope import AgentView
from mnemo.storage.sql.dialect import Dialect


def agent_where(
    view: AgentView | None, d: Dialect, column: str = "agent_id"
) -> tuple[str, list[Any]]:
    """``(condition, args)`` selecting the rows ``view`` sees; ``("", [])`` for no view.

    ``AgentView("A")``: ``(agent_id IS NULL OR agent_id = 'A')``; exact views drop one side.
    """
    if view is None:
        return "", []
    if view.agent_id is None:
        return (f"{column} IS NULL", []) if view.shared else ("1 = 0", [])
    if view.shared:
        return f"({column} IS NULL OR {column} = {d.mark})", [view.agent_id]
    return f"{column} = {d.mark}", [view.agent_id]


def add_agent_where(
    view: AgentView | None, d: Dialect, where: list[str], args: list[Any], column: str = "agent_id"
) -> None:
    """Append the condition of ``view`` (if any) to ``where`` and its arguments to ``args``."""
    cond, more = agent_where(view, d, column)
    if cond:
        where.append(cond)
        args.extend(more)


__all__ = ["add_agent_where", "agent_where"]
