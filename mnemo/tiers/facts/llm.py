"""The fact tier's LLM calls: extraction (`llm-managed`: single, `agent-cli`: atomic) and
reconciliation.

Each function sends one prompt from ``mnemo/llm/prompts/facts_*.md`` and parses the answer.
The JSON calls send their answer's JSON Schema (structured output, where the server has it)
and a token budget sized to what they may answer, so a small model that runs on is cut there
instead of generating until the request times out. Transport failures surface as the client's
LLMTransientError; an answer of the wrong shape is an LLMOutputError, so the caller can fall
back to rules for both.
"""

from __future__ import annotations

import logging
from typing import Any

from mnemo.errors import LLMOutputError
from mnemo.llm import ChatModel, JsonSchema, Usage, render_prompt
from mnemo.text.grounding import GROUNDED_SHARE, grounded
from mnemo.tiers.facts.reconcile import Decision, DecisionFormatError, Neighbour, parse_decisions

SINGLE_INSTRUCTION = "Reply with exactly one line: NOTHING or the single fact. No explanation."
log = logging.getLogger("mnemo.llm")
_YES_NO = frozenset({"yes", "no", "yes.", "no."})
#: Answer tokens allowed per fact (or decision) a JSON answer may hold, plus ``SLACK`` once.
FACT_TOKENS = 100
SLACK = 16

#: The reconciliation answer: ``{"decisions": [{"event", "id", "text"}]}`` (id/text may be null).
DECISIONS_SCHEMA = JsonSchema(
    "decisions",
    {
        "type": "object",
        "properties": {
            "decisions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "event": {"type": "string", "enum": ["ADD", "UPDATE", "DELETE", "NONE"]},
                        "id": {"type": ["integer", "null"]},
                        "text": {"type": ["string", "null"]},
                    },
                    "required": ["event", "id", "text"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["decisions"],
        "additionalProperties": False,
    },
)


def facts_schema(max_facts: int) -> JsonSchema:
    """The extraction answer: ``{"facts": [...]}``, at most ``max_facts`` strings."""
    facts = {"type": "array", "items": {"type": "string"}, "maxItems": max_facts}
    body = {"type": "object", "properties": {"facts": facts}, "required": ["facts"]}
    return JsonSchema("facts", {**body, "additionalProperties": False})


def bullet_list(lines: list[str], empty: str = "(none)") -> str:
    """``lines`` as a Markdown bullet list, or ``empty``."""
    return "\n".join(f"- {line}" for line in lines) if lines else empty


def parse_single(text: str, min_chars: int, max_chars: int) -> str | None:
    """`llm-managed`'s filters over a one-line answer: the fact, or None.

    Discarded: an empty or short answer (< ``min_chars``), one containing NOTHING (any case),
    a bare yes/no, a question (ends with "?"), and one longer than ``max_chars``. Only the
    first non-empty line counts; list markers and quotes around it are removed.
    """
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    line = lines[0].lstrip("-*• ").strip().strip('"').strip()
    if "nothing" in line.lower() or line.lower() in _YES_NO or line.endswith("?"):
        return None
    if not min_chars <= len(line) <= max_chars:
        return None
    return line


def parse_atomic(data: Any, max_facts: int, min_chars: int, max_chars: int) -> list[str]:
    """The facts of an atomic answer ``{"facts": [...]}`` (or a bare list), filtered.

    Non-string items and facts outside [``min_chars``, ``max_chars``] are dropped, repeats
    are dropped, and at most ``max_facts`` are kept. LLMOutputError when ``data`` holds no
    list of facts at all.
    """
    items = data.get("facts") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise LLMOutputError(f"fact extraction: expected a list of facts, got {str(data)[:120]!r}")
    out: list[str] = []
    for item in items:
        fact = item.strip() if isinstance(item, str) else ""
        if min_chars <= len(fact) <= max_chars and fact not in out:
            out.append(fact)
    return out[:max_facts]


def extract_single(
    chat: ChatModel,
    user_text: str,
    assistant_text: str,
    existing: list[str],
    context: str,
    limits: tuple[int, int],
) -> tuple[list[str], Usage]:
    """`llm-managed`: one fact (or none) from the last exchange, given known facts and context."""
    system = render_prompt(
        "facts_single",
        existing_memories=bullet_list(existing),
        existing_context=context or "(none)",
        user_text=user_text,
        assistant_text=assistant_text or "(no reply yet)",
    )
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": SINGLE_INSTRUCTION},
    ]
    result = chat.complete(messages)
    fact = parse_single(result.text, *limits)
    return ([fact] if fact else []), result.usage


def extract_atomic(
    chat: ChatModel, user_text: str, message_time: str, max_facts: int, limits: tuple[int, int]
) -> tuple[list[str], Usage]:
    """`agent-cli`: 0 to ``max_facts`` atomic facts from one user message. A fact whose words
    are mostly not the message's (:func:`~mnemo.text.grounding.grounded`: an invention), or
    the prompt's own example not wholly in the message, is dropped, logged (:func:`kept_fact`)."""
    system = render_prompt("facts_atomic", max_facts=str(max_facts), message_time=message_time)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user_text}]
    budget = SLACK + max_facts * FACT_TOKENS
    result = chat.complete(messages, schema=facts_schema(max_facts), max_tokens=budget)
    kept = []
    for fact in parse_atomic(result.data, max_facts, *limits):
        if kept_fact(fact, user_text, system):
            kept.append(fact)
        else:
            log.info("dropped a fact not grounded in its message: %r", fact)
    return kept, result.usage


def kept_fact(fact: str, message: str, prompt: str) -> bool:
    """Whether an extracted fact is kept: it is grounded in ``message``, and when ``prompt``
    holds it (its example, copied), every content word of it is in ``message``."""
    copied = fact.casefold().strip(" .") in prompt.casefold()
    return grounded(fact, message, 1.0 if copied else GROUNDED_SHARE)


def reconcile(
    chat: ChatModel, new_facts: list[str], neighbours: list[Neighbour], ids: dict[int, str]
) -> tuple[list[Decision], list[str], Usage]:
    """`agent-cli`: ADD/UPDATE/DELETE/NONE decisions for ``new_facts`` against ``neighbours``
    (shown under the short ids of ``ids``); returns decisions, rejected items and usage."""
    shown = "\n".join(f"{i}: {n.text}" for i, n in enumerate(neighbours)) or "(none)"
    prompt = render_prompt(
        "facts_reconcile", existing_facts=shown, new_facts=bullet_list(new_facts)
    )
    budget = SLACK + (len(new_facts) + len(neighbours)) * FACT_TOKENS
    messages = [{"role": "user", "content": prompt}]
    result = chat.complete(messages, schema=DECISIONS_SCHEMA, max_tokens=budget)
    try:
        decisions, rejected = parse_decisions(result.data, ids)
    except DecisionFormatError as exc:
        raise LLMOutputError(f"fact reconciliation: {exc}") from None
    return decisions, rejected, result.usage


__all__ = [
    "DECISIONS_SCHEMA",
    "bullet_list",
    "extract_atomic",
    "extract_single",
    "facts_schema",
    "kept_fact",
    "parse_atomic",
    "parse_single",
    "reconcile",
]
