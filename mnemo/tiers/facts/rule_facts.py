"""The fact tier's extraction without an LLM: the clause reader over a job's user turns.

Every rules unit of a ``turns.facts`` job is parsed in one batch
(:func:`mnemo.text.parsed_facts.extract_many`), each turn with its own date, so the parser's
per-call cost is paid once per job; spaCy loads on the first job that needs it, never on the
write or search path (:mod:`mnemo.text.parser_model`).
"""

from __future__ import annotations

from mnemo.config.settings import Settings
from mnemo.schemas import Message
from mnemo.text import parsed_facts


def limits(settings: Settings) -> parsed_facts.FactLimits:
    """How many facts a turn gives (one in ``single`` mode) and their length bounds."""
    single = settings.fact_extraction == "single"
    n = 1 if single else settings.fact_max_per_turn
    return parsed_facts.FactLimits(n, settings.fact_min_chars, settings.fact_max_chars)


def rule_facts(turns: list[Message], settings: Settings) -> dict[str, list[str]]:
    """The rule facts of each turn, by message id (each turn read with its ``created_at``)."""
    said = [parsed_facts.Said(m.content, m.created_at) for m in turns]
    found = parsed_facts.extract_many(said, limits(settings))
    return {m.id: f for m, f in zip(turns, found, strict=True)}


__all__ = ["limits", "rule_facts"]
