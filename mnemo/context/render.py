"""Renderers of context sections, one per preset format, and the `llmplatform` JSON bundle.

Each renderer takes the gathered sections (see :mod:`mnemo.context.assemble`) and returns the prompt
text; empty sections are left out. Nothing here touches storage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from mnemo.schemas import ContextBundle, ContextItem, ContextSection


class _Request(Protocol):
    @property
    def query(self) -> str:
        """The text the prompt answers."""
        ...


def _items(sections: list[ContextSection], name: str) -> list[ContextItem]:
    return next((s.items for s in sections if s.name == name), [])


def speaker(item: ContextItem) -> str:
    """``name`` or ``role`` of a turn, else its kind."""
    return item.name or item.role or item.kind


def dated(item: ContextItem) -> str:
    """``[YYYY-MM-DD] speaker: content`` for turns, ``[YYYY-MM-DD] content`` otherwise."""
    when = f"[{item.created_at:%Y-%m-%d}] " if item.created_at else ""
    who = f"{speaker(item)}: " if item.kind == "message" else ""
    return f"- {when}{who}{item.content}"


def render_default(sections: list[ContextSection], req: _Request) -> str:
    """``# Long-term Memory`` with profile, relevant memories (dated) and summaries."""
    out: list[str] = []
    profile = _items(sections, "profile")
    if profile:
        out += ["## User Profile", *(f"- {i.content}" for i in profile)]
    memories = _items(sections, "memories")
    if memories:
        out += ["## Relevant Memories (most relevant first)", *(dated(i) for i in memories)]
    summaries = _items(sections, "summaries")
    if summaries:
        out += ["## Summaries", *(dated(i) for i in summaries)]
    return "\n".join(["# Long-term Memory", *out]) if out else ""


def render_llmplatform(sections: list[ContextSection], req: _Request) -> str:
    """`llmplatform`'s prompt order: history, past context, location, query."""
    out: list[str] = []
    history = _items(sections, "history")
    if history:
        out += ["Recent conversation history:", *(f"{speaker(i)}: {i.content}" for i in history)]
    past: list[str] = []
    for name, title in (("summaries", "Session summaries"), ("facts", "Stored user facts")):
        items = _items(sections, name)
        if items:
            past += [f"{title}:", *(f"- {i.content}" for i in items)]
    similar = _items(sections, "similar")
    if similar:
        past += ["Semantically similar messages:"]
        past += [f"- ({i.score or 0:.2f}) {speaker(i)}: {i.content}" for i in similar]
    recent = _items(sections, "recent")
    if recent:
        past += ["Recent turns:", *(f"- {speaker(i)}: {i.content}" for i in recent)]
    if past:
        out += ["", "Relevant past context:", *past]
    for item in _items(sections, "location"):
        out += ["", f"User location: {item.content}"]
    out += ["", f"User query: {req.query}"]
    return "\n".join(out).strip()


def render_llm_managed(sections: list[ContextSection], req: _Request) -> str:
    """`llm-managed`: a ``## Relevant memory`` block for the system message."""
    items = _items(sections, "memory")
    if not items:
        return ""
    return "\n".join(["## Relevant memory", *(f"- {i.content}" for i in items)])


def render_agent_cli(sections: list[ContextSection], req: _Request) -> str:
    """`agent-cli`: summary, long-term memory, then the current message (a user message);
    empty when retrieval was skipped (no sections: the request goes upstream unchanged)."""
    if not sections:
        return ""
    out: list[str] = []
    for item in _items(sections, "summary"):
        out += ["Conversation summary:", item.content, ""]
    memory = _items(sections, "memory")
    if memory:
        out += ["Long-term memory (most relevant first):"]
        out += [f"- [{i.role or i.kind}] {i.content}" for i in memory]
        out += [""]
    out += [f"Current message: {req.query}"]
    return "\n".join(out)


def turn_range(item: ContextItem) -> str:
    """An episode's ``turns a-b`` label from its metadata, else its date."""
    meta = item.metadata
    if meta.get("turn_range"):
        return str(meta["turn_range"])
    if meta.get("turn_start") is not None and meta.get("turn_end") is not None:
        return f"turns {meta['turn_start']}-{meta['turn_end']}"
    return f"{item.created_at:%Y-%m-%d}" if item.created_at else "episode"


def render_tiered(sections: list[ContextSection], req: _Request) -> str:
    """`tiered`'s injection format."""
    out = ["# Long-term Memory", "## User Profile"]
    out += [f"- {i.content}" for i in _items(sections, "profile")]
    out += ["", "## Recent Context"]
    out += [f"- {turn_range(i)}: {i.content}" for i in _items(sections, "episodes")]
    window = _items(sections, "conversation")
    if window:
        out += ["", "# Recent Conversation", *(f"{i.role}: {i.content}" for i in window)]
    out += ["", "Answer consistently using the memory and conversation above."]
    return "\n".join(out)


def memory_context(bundle: ContextBundle) -> dict[str, Any]:
    """`llmplatform`'s JSON memory bundle: context, recent_messages, summaries, memories.

    The ``llmplatform`` preset's bundle carries it whole in ``bundle.data`` (see
    :mod:`mnemo.context.llmplatform`); for another preset it is read off the sections.
    """
    if bundle.data:
        return dict(bundle.data)
    out: dict[str, list[dict[str, Any]]] = {
        "context": [],
        "recent_messages": [],
        "summaries": [],
        "memories": [],
    }
    for section in bundle.sections:
        for i in section.items:
            when = i.created_at.isoformat() if i.created_at else None
            if i.kind == "summary":
                out["summaries"].append(
                    {"session_id": i.session_id, "summary": i.content, "timestamp": when,
                     "message_count": i.metadata.get("message_count"),
                     "model": i.metadata.get("model")}
                )  # fmt: skip
            elif i.kind == "profile" or (i.kind == "fact" and i.score is None):
                key, value = i.metadata.get("key"), i.metadata.get("value", i.content)
                out["memories"].append({"key": key, "value": value, "id": i.id})
            elif i.score is not None:
                out["context"].append(
                    {"id": i.id, "kind": i.kind, "role": i.role, "content": i.content,
                     "similarity": i.score, "timestamp": when, "session_id": i.session_id}
                )  # fmt: skip
            elif i.kind == "message":
                out["recent_messages"].append(
                    {"role": i.role, "content": i.content, "timestamp": when}
                )
    return out


def message_text(content: Any) -> str:
    """The text of an OpenAI message ``content``: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    return ""


def last_user_text(messages: Sequence[dict[str, Any]]) -> str:
    """The text of the last user message ("" when there is none)."""
    for m in reversed(messages):
        if m.get("role") == "user":
            return message_text(m.get("content"))
    return ""


def inject(bundle: ContextBundle, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of chat ``messages`` with the bundle placed as its preset says.

    ``system``: appended to the first system message (or a new one in front); ``user``: the
    bundle text replaces the last user message (`agent-cli`). An empty bundle changes nothing.
    """
    out = [dict(m) for m in messages]
    if not bundle.text:
        return out
    if bundle.placement == "user":
        for m in reversed(out):
            if m.get("role") == "user":
                m["content"] = bundle.text
                return out
        return [*out, {"role": "user", "content": bundle.text}]
    if out and out[0].get("role") == "system" and isinstance(out[0].get("content"), str):
        out[0]["content"] = f"{out[0]['content']}\n\n{bundle.text}"
        return out
    return [{"role": "system", "content": bundle.text}, *out]


__all__ = [
    "inject",
    "last_user_text",
    "memory_context",
    "message_text",
    "render_agent_cli",
    "render_default",
    "render_llm_managed",
    "render_llmplatform",
    "render_tiered",
]
