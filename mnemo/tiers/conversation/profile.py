"""The structured profile (`tiered`): facts about a user with confidence-based conflicts.

Every user turn is read for profile facts (LLM prompt ``profile_extract``; rules in
:mod:`mnemo.text.profile_rules` without an LLM or when it fails). Candidates are validated
(category known, confidence >= 0.4, importance >= 0.2, one per key per message), then applied
against the active fact of the same (category, key) by :func:`decide`:

* no active fact: ADD;
* the candidate comes from an older statement than the active fact: NONE (so re-running a
  job, or running jobs out of order, never rolls a fact back);
* same value: REFRESH (raise confidence/importance in place) if either is higher, else NONE;
* the new value refines the old one (extends it: "Alex" -> "Alexander"): UPDATE;
* a key of a state that changes (:data:`~mnemo.text.profile_rules.CHANGING_KEYS`: location,
  employer, occupation, relationship status, ...) takes the later statement: UPDATE ("I live
  in Berlin", then "I just moved to Paris": Paris, whatever the patterns' confidences);
* otherwise UPDATE only when the new confidence >= the old, else NONE (ignored).

A statement that ends a state with no new value ("I quit my job", "I used to live in Austin",
"we broke up": :func:`~mnemo.text.profile_rules.extract_endings`, or an LLM fact with
``"ended": true``) is applied after the turn's values, by :func:`decide_end`: it ENDs the
active fact of its key (inactive, superseded at the statement's time, a DELETE in history)
when that fact was stated before it and holds the value it names (any value when it names
none); otherwise NONE.

An UPDATE keeps the replaced row as inactive history. `tiered`'s example plays out so:
"My name is Alex" (1.0) is stored, "Call me Al" (0.6) is ignored, "My full name is
Alexander" (0.95) updates it. Read literally, the seed's SQL (update when the new confidence
is at least the old) would ignore 0.95 < 1.0 too; its example says UPDATED, which this module
reads as a refinement of the same name rather than a conflicting one.
"""

from __future__ import annotations

import re
from typing import Any

from mnemo.config.settings import Settings
from mnemo.ids import PROFILE_PREFIX, stable_id
from mnemo.llm import JsonSchema, Usage
from mnemo.schemas import PROFILE_CATEGORIES, Message, ProfileFact, format_time
from mnemo.storage.base import NewProfileFact, ProfileDecision
from mnemo.storage.ports.conversation import SessionTurns
from mnemo.text.fact_subjects import same_value
from mnemo.text.grounding import grounded
from mnemo.text.profile_rules import CHANGING_KEYS, Candidate, extract_endings, extract_profile
from mnemo.tiers.conversation.base import Answer, TierContext, ask_json

_KEY = re.compile(r"[^a-z0-9]+")
MAX_VALUE_CHARS = 200
#: Most facts one profile extraction may answer (a small model lists invented preferences
#: until it is cut off), and most answer tokens for them.
PROFILE_MAX_FACTS = 8
PROFILE_TOKENS = 400
_PROFILE_FACT = {
    "type": "object",
    "properties": {
        "category": {"type": "string", "enum": list(PROFILE_CATEGORIES)},
        "key": {"type": "string"},
        "value": {"type": "string"},
        "confidence": {"type": "number"},
        "importance": {"type": "number"},
    },
    "required": ["category", "key", "value", "confidence", "importance"],
    "additionalProperties": False,
}
#: The profile extraction answer: ``{"facts": [{category, key, value, confidence, importance}]}``.
PROFILE_SCHEMA = JsonSchema(
    "profile",
    {
        "type": "object",
        "properties": {
            "facts": {"type": "array", "items": _PROFILE_FACT, "maxItems": PROFILE_MAX_FACTS}
        },
        "required": ["facts"],
        "additionalProperties": False,
    },
)


def normalize_value(value: str) -> str:
    """A value compared case- and space-insensitively."""
    return " ".join(value.casefold().split())


def is_refinement(old: str, new: str) -> bool:
    """True when ``new`` extends ``old`` (it starts with it and is longer): more specific."""
    o, n = normalize_value(old), normalize_value(new)
    return len(n) > len(o) > 0 and n.startswith(o)


def decide(
    old: ProfileFact | None,
    old_seq: int,
    value: str,
    confidence: float,
    importance: float,
    observed: tuple[str, int],
    changing: bool = False,
) -> ProfileDecision:
    """What a candidate does to the active fact of its key (see the module docstring);
    ``changing`` says the key is a state that changes over time."""
    if old is None:
        return "ADD"
    if old.observed_at is not None and observed < (format_time(old.observed_at), old_seq):
        return "NONE"
    if normalize_value(value) == normalize_value(old.value):
        raised = confidence > old.confidence or importance > old.importance
        return "REFRESH" if raised else "NONE"
    if is_refinement(old.value, value) or changing:
        return "UPDATE"
    return "UPDATE" if confidence >= old.confidence else "NONE"


def decide_end(
    old: ProfileFact | None,
    old_seq: int,
    value: str,
    observed: tuple[str, int],
) -> ProfileDecision:
    """What a statement ending a state does to the active fact of its key: END when there is
    one, stated strictly before the ending (so an ending never undoes a value of its own turn,
    nor one stated after it), holding the value the ending names (``value``, when not empty:
    "I quit my job at Acme" does not end Globex); else NONE."""
    if old is None:
        return "NONE"
    if old.observed_at is not None and (format_time(old.observed_at), old_seq) >= observed:
        return "NONE"  # a fact with no observed time was stated before any that has one
    if value.strip() and not same_value(old.value, value):
        return "NONE"
    return "END"


def valid(candidates: list[Candidate], settings: Settings) -> list[Candidate]:
    """Candidates that pass `tiered`'s validation: known category, confidence and importance
    at or above the thresholds, a non-empty value (an ending may name none), one per
    (category, key) and kind (values, endings; the most confident)."""
    best: dict[tuple[str, str, bool], Candidate] = {}
    for c in candidates:
        if c.category not in PROFILE_CATEGORIES or not c.key:
            continue
        if not c.ended and not c.value.strip():
            continue
        if c.confidence < settings.profile_min_confidence:
            continue
        if c.importance < settings.profile_min_importance:
            continue
        slot = (c.category, c.key, c.ended)
        if slot not in best or best[slot].confidence < c.confidence:
            best[slot] = c
    return sorted(best.values(), key=lambda c: c.ended)  # values first, then endings


def _unit(value: Any, default: float) -> float | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return min(max(float(value), 0.0), 1.0)


def parse_llm_facts(data: Any) -> list[Candidate] | None:
    """Candidates from the LLM's ``{"facts": [{category, key, value, confidence,
    importance, ended}]}``; None when the answer does not have that shape. Missing confidence
    and importance take `tiered`'s column defaults (1.0, 0.8); ``"ended": true`` marks a
    state that ended, its value (null allowed) what ended."""
    items = data.get("facts") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if not isinstance(item, dict):
            return None
        category, key, value = item.get("category"), item.get("key"), item.get("value")
        ended = item.get("ended") is True
        if not all(isinstance(x, str) for x in (category, key)) or (value is None and not ended):
            return None
        conf, imp = _unit(item.get("confidence"), 1.0), _unit(item.get("importance"), 0.8)
        if conf is None or imp is None:
            return None
        text = "" if value is None else str(value).strip()[:MAX_VALUE_CHARS]
        slug = _KEY.sub("_", str(key).casefold()).strip("_")[:64]
        out.append(Candidate(str(category).casefold(), slug, text, conf, imp, "llm", "", ended))
    return out


def extract(ctx: TierContext, message: Message) -> tuple[list[Candidate], Answer]:
    """Candidates of one user turn: the LLM's when it answers well, the rules' otherwise.

    The LLM is sent :data:`PROFILE_SCHEMA` and a budget of :data:`PROFILE_TOKENS`; a value
    not grounded in the message (:func:`~mnemo.text.grounding.grounded`: a small model invents
    them from small talk) is dropped."""
    values = {"message": message.content}
    answer = ask_json(
        ctx, "profile_extract", values, parse_llm_facts,
        schema=PROFILE_SCHEMA, max_tokens=PROFILE_TOKENS,
    )  # fmt: skip
    if answer.value is not None:
        return [c for c in answer.value if grounded(c.value, message.content)], answer
    return extract_profile(message.content) + extract_endings(message.content), answer


def apply(
    ctx: TierContext, message: Message, candidate: Candidate, answer: Answer
) -> ProfileDecision:
    """Apply one validated candidate from ``message`` to the user's profile."""
    observed = (format_time(message.created_at), message.seq)
    row = NewProfileFact(
        id=stable_id(PROFILE_PREFIX, ctx.tenant, message.id, candidate.category, candidate.key),
        tenant=ctx.tenant,
        user_id=message.user_id,
        category=candidate.category,
        key=candidate.key,
        value=candidate.value,
        confidence=candidate.confidence,
        importance=candidate.importance,
        source_message_ids=[message.id],
        observed_at=observed[0],
        observed_seq=observed[1],
        note={**answer.note(), "pattern": candidate.pattern},
        agent_id=message.agent_id,  # a private turn's fact is private to its agent
    )

    def rule(old: ProfileFact | None, old_seq: int) -> ProfileDecision:
        if candidate.ended:
            return decide_end(old, old_seq, row.value, observed)
        changing = candidate.key in CHANGING_KEYS
        return decide(old, old_seq, row.value, row.confidence, row.importance, observed, changing)

    decision, _ = ctx.store.conversation.put_profile_fact(row, answer.actor, rule)
    return decision


def run(ctx: TierContext, payload: dict[str, Any]) -> dict[str, int]:
    """Job ``turns.profile``: profile facts from the user turns of one batch.

    Returns token usage plus counts of decisions and of fallbacks to rules.
    """
    messages = ctx.store.conversation.session_messages(
        SessionTurns(
            ctx.tenant, payload["user_id"], payload["session_id"], ids=list(payload["message_ids"])
        )
    )
    counts = {"ADD": 0, "UPDATE": 0, "REFRESH": 0, "END": 0, "NONE": 0, "fallbacks": 0}
    usage = Usage()
    for message in messages:
        if message.role != "user":
            continue
        candidates, answer = extract(ctx, message)
        usage += answer.usage
        counts["fallbacks"] += answer.fallback is not None
        for candidate in valid(candidates, ctx.settings):
            counts[apply(ctx, message, candidate, answer)] += 1
    return {**usage.as_dict(), **{k.lower(): v for k, v in counts.items()}}


__all__ = [
    "PROFILE_MAX_FACTS",
    "PROFILE_SCHEMA",
    "PROFILE_TOKENS",
    "decide",
    "decide_end",
    "extract",
    "is_refinement",
    "parse_llm_facts",
    "run",
    "valid",
]
