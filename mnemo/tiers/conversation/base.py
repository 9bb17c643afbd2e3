"""What the conversation tiers work with: the store, the embedder, settings and the LLM.

Also the two things every tier does: ask the LLM for JSON (falling back to rules on a
transient or unparseable answer, and saying so), and write a memory under a stable id (so a
job that runs twice writes it once).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mnemo.config.settings import Settings
from mnemo.embedders import Embedder, content_hash
from mnemo.errors import LLMOutputError, LLMTransientError
from mnemo.llm import ChatModel, JsonSchema, Usage, render_prompt
from mnemo.redact import mask_credentials
from mnemo.schemas import MemoryItem, Message, format_time
from mnemo.storage.agent_scope import MixedAgents, derived_agent
from mnemo.storage.base import ListFilter, NewMemory
from mnemo.storage.ports.unions import ConversationTierStore
from mnemo.storage.scope import ReadScope

log = logging.getLogger("mnemo.tiers")

T = TypeVar("T")

RULES_MODEL = "rule_based"  # the "model" recorded for rule-based output (`llmplatform`'s name)


@dataclass
class TierContext:
    """The parts a tier job needs; ``chat`` is None when no LLM is configured."""

    store: ConversationTierStore
    embedder: Embedder
    settings: Settings
    tenant: str
    chat: ChatModel | None = None


@dataclass
class Answer:
    """The outcome of one LLM request: ``value`` is None when rules must be used.

    ``fallback`` says why rules were used although an LLM is configured (None otherwise).
    """

    value: Any = None
    usage: Usage = field(default_factory=Usage)
    model: str = RULES_MODEL
    fallback: str | None = None

    @property
    def actor(self) -> str:
        """``llm`` when the LLM's answer is used, ``rules`` otherwise (history's actor)."""
        return "rules" if self.value is None else "llm"

    def note(self) -> dict[str, Any]:
        """Metadata recording the model, and the fallback reason when there was one."""
        out: dict[str, Any] = {"model": self.model}
        if self.fallback:
            out["fallback"] = self.fallback
        return out


def ask_json(
    ctx: TierContext,
    prompt: str,
    values: dict[str, str],
    check: Callable[[Any], T | None],
    *,
    schema: JsonSchema | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
) -> Answer:
    """Ask the LLM with prompt file ``prompt`` for JSON (following ``schema`` where the server
    has structured output) and validate it with ``check``.

    No LLM configured: an empty Answer (rules, no fallback note). A transient failure
    (timeouts, 429, 5xx after retries), JSON that stays unparseable, or JSON that ``check``
    rejects (returns None): a logged fallback recorded in ``Answer.fallback``. Any other
    error (a 4xx, a bad response body) propagates, so the job fails visibly and is retried.
    """
    if ctx.chat is None:
        return Answer()
    message = render_prompt(prompt, **values)
    try:
        result = ctx.chat.complete(
            [{"role": "user", "content": message}],
            json=True,
            schema=schema,
            temperature=temperature,
            max_tokens=max_tokens,
        )
    except (LLMTransientError, LLMOutputError) as exc:
        reason = mask_credentials(f"{type(exc).__name__}: {exc}")[:500]
        log.warning("%s: LLM failed, using rules: %s", prompt, reason)
        return Answer(fallback=reason)
    value = check(result.data)
    if value is None:
        reason = f"LLMOutputError: answer does not match {prompt}'s format: {result.text[:200]!r}"
        log.warning("%s: %s; using rules", prompt, reason)
        return Answer(usage=result.usage, fallback=reason)
    return Answer(value, result.usage, result.model or ctx.chat.model)


def write_memory(
    ctx: TierContext,
    *,
    memory_id: str,
    kind: str,
    user_id: str,
    session_id: str | None,
    content: str,
    metadata: dict[str, Any],
    sources: list[str],
    created_at: str,
    actor: str,
    importance: float = 0.5,
    agent_id: str | None = None,
) -> MemoryItem | None:
    """Embed and store a memory under ``memory_id`` unless that id exists (deleted or not);
    returns the new memory, or None when it was already written. ``agent_id``: the agent of
    its source turns (None: shared)."""
    if ctx.store.rows.get_memory(ctx.tenant, memory_id) is not None:
        return None
    text = content[: ctx.settings.max_content_chars]
    vector = ctx.embedder.embed([text])[0]
    row = NewMemory(
        id=memory_id,
        tenant=ctx.tenant,
        user_id=user_id,
        session_id=session_id,
        kind=kind,
        content=text,
        tags=[],
        metadata=metadata,
        importance=importance,
        confidence=1.0,
        source_message_ids=sources,
        created_at=created_at,
        content_hash=content_hash(text),
        embedder=ctx.embedder.id,
        embedding=vector,
        agent_id=agent_id,
    )
    return ctx.store.rows.add_memory(row, actor)


def write_turns_memory(
    ctx: TierContext,
    memory_id: str,
    kind: str,
    turns: list[Message],
    content: str,
    metadata: dict[str, Any],
    answer: Answer,
) -> None:
    """:func:`write_memory` of a memory made from ``turns`` (one session's, in order): their
    user and session, the turns as sources, the last turn's time, ``metadata`` plus the
    ``message_count`` and the answer's note, the answer's actor, and the agent of the turns
    (:func:`~mnemo.storage.agent_scope.derived_agent`: nothing is written from turns private
    to different agents)."""
    last = turns[-1]
    try:
        agent_id = derived_agent(m.agent_id for m in turns)
    except MixedAgents as exc:
        log.info("%s %s not written: %s", kind, memory_id, exc)
        return
    write_memory(
        ctx,
        memory_id=memory_id,
        kind=kind,
        user_id=last.user_id,
        session_id=last.session_id,
        content=content,
        metadata={**metadata, "message_count": len(turns), **answer.note()},
        sources=[m.id for m in turns],
        created_at=format_time(last.created_at),
        actor=answer.actor,
        agent_id=agent_id,
    )


def session_memories(
    ctx: TierContext, user_id: str, session_id: str, kind: str
) -> list[MemoryItem]:
    """Every memory of ``kind`` in one session, deleted ones included."""
    scope = ReadScope(ctx.tenant, user_id, session_id, kinds=(kind,), deleted=True)
    flt = ListFilter(scope, limit=100_000)
    return ctx.store.rows.list_memories(flt)


def summary_field(data: Any) -> str | None:
    """The ``summary`` text of a JSON answer ``{"summary": "..."}``; None when it is missing
    or blank."""
    text = data.get("summary") if isinstance(data, dict) else None
    return text if isinstance(text, str) and text.strip() else None


def transcript(messages: list[Any], max_chars: int = 600) -> str:
    """Messages as ``[seq] speaker: text`` lines for a prompt, each cut to ``max_chars``."""
    lines = []
    for m in messages:
        who = m.name or m.role
        text = " ".join(m.content.split())
        lines.append(f"[{m.seq}] {who}: {text[:max_chars]}")
    return "\n".join(lines)
