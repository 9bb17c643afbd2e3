"""Summaries: `llmplatform`'s session summary every N pairs, `agent-cli`'s rolling summary.

*Session summaries* (``turns.summary``): after every ``summary_interval`` (10) message pairs
of a session, the last ``summary_messages`` (12) messages are summarised: by the LLM in 4-6
bullets under ``summary_max_tokens`` (120) at temperature 0.2, or by rules as Q&A pairs and
key points. Each is a memory of kind ``summary`` with metadata ``summary_kind="session"``,
``pair_count``, ``message_count`` and ``model`` (the LLM's name or ``rule_based``). A session's
pairs are its user and assistant turns counted in twos.

*Rolling summary* (``turns.rolling_summary``): one summary per conversation, rewritten after
each batch from the previous summary and the new turns (LLM, or extractive key points),
metadata ``summary_kind="rolling"`` and ``through_seq`` (the last turn it covers).

Both are embedded and searchable and list their source messages. Ids are derived from the
session (and pair count), so a job that runs twice changes nothing.
"""

from __future__ import annotations

from typing import Any

from mnemo.embedders import content_hash
from mnemo.ids import MEMORY_PREFIX, stable_id
from mnemo.llm import Usage
from mnemo.schemas import Message, format_time
from mnemo.storage.ports.conversation import SessionTurns
from mnemo.storage.ports.rows import MemoryChange
from mnemo.text import extractive
from mnemo.tiers.conversation.base import (
    TierContext,
    ask_json,
    session_memories,
    summary_field,
    transcript,
    write_memory,
    write_turns_memory,
)

MIN_BULLETS, MAX_BULLETS = 4, 6  # `llmplatform`: 4-6 bullet points
MAX_SUMMARY_CHARS = 4000
MAX_ROLLING_SOURCES = 200  # the rolling summary lists its newest source turns, up to this many
PAIR_ROLES = ("user", "assistant")


def parse_bullets(data: Any) -> str | None:
    """``{"bullets": [4-6 non-empty strings]}`` as ``- bullet`` lines; None otherwise."""
    items = data.get("bullets") if isinstance(data, dict) else None
    if not isinstance(items, list) or not MIN_BULLETS <= len(items) <= MAX_BULLETS:
        return None
    lines = [" ".join(b.split()).lstrip("-*• ") for b in items if isinstance(b, str)]
    if len(lines) != len(items) or not all(lines):
        return None
    return "\n".join(f"- {b}" for b in lines)[:MAX_SUMMARY_CHARS]


def parse_summary(data: Any) -> str | None:
    """``{"summary": "non-empty text"}`` as text; None otherwise."""
    text = summary_field(data)
    return None if text is None else text.strip()[:MAX_SUMMARY_CHARS]


def due_pair_counts(pairs: int, interval: int, done: set[int]) -> list[int]:
    """Pair counts (multiples of ``interval`` up to ``pairs``) that still need a summary."""
    return [k for k in range(interval, pairs + 1, interval) if k not in done]


def _summaries(ctx: TierContext, user_id: str, session_id: str, kind: str) -> list[Any]:
    summaries = session_memories(ctx, user_id, session_id, "summary")
    return [m for m in summaries if m.metadata.get("summary_kind") == kind]


def session_summary(ctx: TierContext, turns: list[Message], pair_count: int) -> Usage:
    """Write the summary of ``turns`` taken at ``pair_count`` pairs; returns usage."""
    s, last = ctx.settings, turns[-1]
    memory_id = stable_id(MEMORY_PREFIX, ctx.tenant, last.user_id, last.session_id, "summary",
                          str(pair_count))  # fmt: skip
    answer = ask_json(
        ctx,
        "summary_session",
        {"messages": transcript(turns)},
        parse_bullets,
        temperature=s.summary_temperature,
        max_tokens=s.summary_max_tokens + 32,  # the bullets plus their JSON wrapping
    )
    meta = {"summary_kind": "session", "pair_count": pair_count}
    content = answer.value or extractive.session_summary(turns)
    write_turns_memory(ctx, memory_id, "summary", turns, content, meta, answer)
    return answer.usage


def run_session(ctx: TierContext, payload: dict[str, Any]) -> dict[str, int]:
    """Job ``turns.summary``: a session summary at every ``summary_interval`` pairs."""
    s, user, session = ctx.settings, payload["user_id"], payload["session_id"]
    turns = [
        m
        for m in ctx.store.conversation.session_messages(SessionTurns(ctx.tenant, user, session))
        if m.role in PAIR_ROLES
    ]
    done = {int(m.metadata.get("pair_count", 0)) for m in _summaries(ctx, user, session, "session")}
    usage, due = Usage(), due_pair_counts(len(turns) // 2, s.summary_interval, done)
    for k in due:
        upto = turns[: 2 * k]
        usage += session_summary(ctx, upto[-s.summary_messages :], k)
    return {**usage.as_dict(), "summaries": len(due)}


def run_rolling(ctx: TierContext, payload: dict[str, Any]) -> dict[str, int]:
    """Job ``turns.rolling_summary``: fold the turns after ``through_seq`` into the summary."""
    user, session = payload["user_id"], payload["session_id"]
    memory_id = stable_id(MEMORY_PREFIX, ctx.tenant, user, session, "rolling")
    current = ctx.store.rows.get_memory(ctx.tenant, memory_id)
    if current is not None and current.deleted_at is not None:
        return {"summaries": 0}  # deleted on purpose: not brought back
    through = int(current.metadata.get("through_seq", 0)) if current else 0
    new = ctx.store.conversation.session_messages(
        SessionTurns(ctx.tenant, user, session, after_seq=through)
    )
    if not new:
        return {"summaries": 0}
    prior = current.content if current else ""
    answer = ask_json(
        ctx,
        "summary_rolling",
        {"prior_summary": prior or "(none yet)", "messages": transcript(new)},
        parse_summary,
        temperature=ctx.settings.summary_temperature,
    )
    content = answer.value or extractive.rolling_summary(
        prior, new, ctx.settings.rolling_summary_max_points
    )
    content = content or extractive.episode_summary(new)
    covered = int(current.metadata.get("message_count", 0)) if current else 0
    meta = {
        "summary_kind": "rolling",
        "through_seq": new[-1].seq,
        "message_count": covered + len(new),
        **answer.note(),
    }
    sources = [*(current.source_message_ids if current else []), *(m.id for m in new)]
    sources = sources[-MAX_ROLLING_SOURCES:]
    if current is None:
        write_memory(ctx, memory_id=memory_id, kind="summary", user_id=user, session_id=session,
                     content=content, metadata=meta, sources=sources,
                     created_at=format_time(new[-1].created_at), actor=answer.actor)  # fmt: skip
    else:
        vector = ctx.embedder.embed([content])[0]
        changes = {
            "content": content,
            "metadata": meta,
            "source_message_ids": sources,
            "embedding": vector,
            "embedder": ctx.embedder.id,
            "content_hash": content_hash(content),
        }
        ctx.store.rows.update_memory(
            MemoryChange(ctx.tenant, memory_id, changes, answer.actor, [m.id for m in new])
        )
    return {**answer.usage.as_dict(), "summaries": 1}


__all__ = ["due_pair_counts", "parse_bullets", "parse_summary", "run_rolling", "run_session"]
