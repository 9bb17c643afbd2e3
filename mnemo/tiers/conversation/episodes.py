"""Episodes (`tiered`): the short-term window of a session, compressed as it fills.

The window of a session is its turns after the last compressed one. When it holds
``window_max_turns`` (20) turns, the oldest ``window_max_turns - window_keep_turns`` (10) are
summarised into one episode (a memory of kind ``episode``, embedded and searchable) with its
turn range, and the window keeps the last ``window_keep_turns`` (10). With the defaults,
turns 1-10 become an episode when turn 20 arrives, turns 11-20 when turn 30 arrives, and so
on; a bulk import is compressed in the same steps, so after 100 turns the episodes cover
turns 1-90 and the window holds turns 91-100. The turns themselves are never deleted.

An episode's id is derived from its session and first turn, so a job that runs twice
writes each episode once.
"""

from __future__ import annotations

from typing import Any

from mnemo.ids import MEMORY_PREFIX, stable_id
from mnemo.llm import Usage
from mnemo.schemas import Message
from mnemo.storage.ports.conversation import SessionTurns
from mnemo.text import extractive
from mnemo.tiers.conversation.base import (
    TierContext,
    ask_json,
    session_memories,
    summary_field,
    transcript,
    write_turns_memory,
)

MAX_EPISODE_CHARS = 2000


def last_compressed_turn(ctx: TierContext, user_id: str, session_id: str) -> int:
    """The last turn (seq) already in an episode of the session (deleted episodes count)."""
    episodes = session_memories(ctx, user_id, session_id, "episode")
    ends = [int(e.metadata.get("turn_end", 0)) for e in episodes]
    return max(ends, default=0)


def window(ctx: TierContext, user_id: str, session_id: str) -> list[Message]:
    """The session's short-term window: its turns after the last compressed one, by seq."""
    after = last_compressed_turn(ctx, user_id, session_id)
    span = SessionTurns(ctx.tenant, user_id, session_id, after_seq=after)
    return ctx.store.conversation.session_messages(span)


def due_chunks(turns: list[Message], max_turns: int, keep_turns: int) -> list[list[Message]]:
    """The chunks to compress, oldest first: while the window holds ``max_turns`` turns, its
    oldest ``max_turns - keep_turns`` become one episode."""
    step, chunks = max_turns - keep_turns, []
    while len(turns) >= max_turns:
        chunks.append(turns[:step])
        turns = turns[step:]
    return chunks


def _parse_summary(data: Any) -> str | None:
    text = summary_field(data)
    return None if text is None else " ".join(text.split())[:MAX_EPISODE_CHARS]


def compress(ctx: TierContext, turns: list[Message]) -> Usage:
    """Write the episode of ``turns`` (LLM summary, extractive without one); returns usage."""
    first, last = turns[0], turns[-1]
    memory_id = stable_id(MEMORY_PREFIX, ctx.tenant, first.user_id, first.session_id, "episode",
                          str(first.seq))  # fmt: skip
    if ctx.store.rows.get_memory(ctx.tenant, memory_id) is not None:
        return Usage()
    answer = ask_json(ctx, "episode_summary", {"messages": transcript(turns)}, _parse_summary)
    content = answer.value or extractive.episode_summary(turns)
    meta = {
        "turn_range": f"turns {first.seq}-{last.seq}",
        "turn_start": first.seq,
        "turn_end": last.seq,
    }
    write_turns_memory(ctx, memory_id, "episode", turns, content, meta, answer)
    return answer.usage


def run(ctx: TierContext, payload: dict[str, Any]) -> dict[str, int]:
    """Job ``turns.episodes``: compress the session's window while it is full."""
    s = ctx.settings
    turns = window(ctx, payload["user_id"], payload["session_id"])
    usage, written = Usage(), 0
    for chunk in due_chunks(turns, s.window_max_turns, s.window_keep_turns):
        usage += compress(ctx, chunk)
        written += 1
    return {**usage.as_dict(), "episodes": written}


__all__ = ["compress", "due_chunks", "last_compressed_turn", "run", "window"]
