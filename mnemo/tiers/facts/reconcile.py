"""Reconciling new facts with the nearest existing ones: ADD, UPDATE, DELETE or NONE.

The LLM sees existing facts under short integer ids (0, 1, 2...), never real ids; its
decisions are parsed into the typed union :data:`Decision`, ids are mapped back, and unknown
ids are rejected. `agent-cli`'s safeguards then apply (:func:`safeguard`). Without an LLM,
:func:`reconcile_by_rules` decides: a changed value of the same state, a statement that ends
the state, or a withdrawn statement updates the old fact; anything else is added.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mnemo.text import fact_subjects
from mnemo.text.fact_subjects import Reading
from mnemo.text.grounding import related


@dataclass(frozen=True)
class Add:
    """Store ``text`` as a new fact."""

    text: str


@dataclass(frozen=True)
class Update:
    """Replace the content of existing fact ``memory_id`` with ``text``."""

    memory_id: str
    text: str


@dataclass(frozen=True)
class Delete:
    """Withdraw existing fact ``memory_id`` (soft delete; history keeps it)."""

    memory_id: str


@dataclass(frozen=True)
class Keep:
    """NONE: existing fact ``memory_id`` (if named) already covers what was said."""

    memory_id: str | None = None


Decision = Add | Update | Delete | Keep


@dataclass(frozen=True)
class Neighbour:
    """An existing fact shown to reconciliation, with its best cosine to a new fact."""

    memory_id: str
    text: str
    similarity: float


class DecisionFormatError(ValueError):
    """The reconciliation output is not a list of decisions at all."""


def short_ids(neighbours: list[Neighbour]) -> dict[int, str]:
    """The short ids the LLM sees: 0, 1, 2... in neighbour order, mapped to real ids."""
    return {i: n.memory_id for i, n in enumerate(neighbours)}


def _short_id(value: Any, ids: dict[int, str]) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return ids.get(value) if isinstance(value, int) else None


_PLACEHOLDER = re.compile(r"(?:user(?:'s)?)?[\s.…]*", re.IGNORECASE)


def _text(item: dict[str, Any]) -> str | None:
    """The item's text; None when there is none or it is the prompt's placeholder ("User ...",
    which small models copy from the example)."""
    value = item.get("text")
    if not isinstance(value, str) or _PLACEHOLDER.fullmatch(value.strip()):
        return None
    return value.strip()


def _one(item: Any, ids: dict[int, str]) -> Decision | str:
    """One decision, or the reason it is rejected."""
    if not isinstance(item, dict):
        return f"not an object: {item!r:.80}"
    event = str(item.get("event", "")).upper()
    text = _text(item)
    if event == "ADD":
        return Add(text) if text else "ADD without text"
    if event == "NONE" and item.get("id") is None:
        return Keep()
    real = _short_id(item.get("id"), ids)
    if event not in ("UPDATE", "DELETE", "NONE"):
        return f"unknown event {event!r}"
    if real is None:
        return f"{event} names unknown id {item.get('id')!r}"
    if event == "UPDATE":
        return Update(real, text) if text else "UPDATE without text"
    return Delete(real) if event == "DELETE" else Keep(real)


def parse_decisions(data: Any, ids: dict[int, str]) -> tuple[list[Decision], list[str]]:
    """Decisions from the LLM's JSON, with short ids mapped back, and what was rejected.

    ``data`` is ``{"decisions": [...]}`` or a bare list; each item is
    ``{"event": "ADD"|"UPDATE"|"DELETE"|"NONE", "id": <short id>, "text": ...}``. An item
    with an unknown id, an unknown event or missing text is rejected (listed, not applied).
    DecisionFormatError when ``data`` holds no list of decisions.
    """
    items = data.get("decisions", data.get("memory")) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise DecisionFormatError(f"expected a list of decisions, got {str(data)[:120]!r}")
    decisions: list[Decision] = []
    rejected: list[str] = []
    for item in items:
        parsed = _one(item, ids)
        if isinstance(parsed, str):
            rejected.append(parsed)
        else:
            decisions.append(parsed)
    return decisions, rejected


def _target(d: Decision) -> str | None:
    return d.memory_id if isinstance(d, Update | Delete | Keep) else None


def unrelated_updates(
    decisions: list[Decision], neighbours: list[Neighbour]
) -> tuple[list[Decision], list[str]]:
    """Each UPDATE whose text shares no content word with the fact it replaces becomes an ADD
    of that text (:func:`~mnemo.text.grounding.related`): a small model told to update
    fact 0 rewrites whatever fact 0 was ("User teaches math" -> "User's husband is a pilot");
    the new text is kept, the old fact too. Returns the decisions and a note per change."""
    texts = {n.memory_id: n.text for n in neighbours}
    out: list[Decision] = []
    notes: list[str] = []
    for d in decisions:
        if isinstance(d, Update) and not related(d.text, texts.get(d.memory_id, d.text)):
            notes.append(f"UPDATE of unrelated {d.memory_id} added instead: {d.text[:80]}")
            d = Add(d.text)
        out.append(d)
    return out, notes


def safeguard(
    decisions: list[Decision], new_facts: list[str], shown: int, none_adds: bool = False
) -> tuple[list[Decision], list[str]]:
    """`agent-cli`'s safeguards over parsed decisions; returns what is applied and why not.

    1. One decision per existing fact: later ones naming the same id are dropped.
    2. At most ``len(new_facts)`` ADDs (the LLM may not invent facts nobody stated).
    3. Deleting every fact shown (when more than one was shown) is refused: the deletes drop.
    4. New facts with no ADD, UPDATE or NONE at all (an empty or delete-only answer) are
       added as they are, so a lazy answer never loses what the user said. With
       ``none_adds`` (`agent-cli`, whose seed says "no additions -> add the originals") a
       NONE-only answer adds them too.
    """
    notes: list[str] = []
    out: list[Decision] = []
    seen: set[str] = set()
    adds = 0
    for d in decisions:
        target = _target(d)
        if target is not None and target in seen:
            notes.append(f"second decision for {target} dropped")
            continue
        if isinstance(d, Add):
            if adds >= len(new_facts):
                notes.append(f"ADD beyond the {len(new_facts)} new facts dropped")
                continue
            adds += 1
        if target is not None:
            seen.add(target)
        out.append(d)
    deletes = [d for d in out if isinstance(d, Delete)]
    if shown > 1 and len(deletes) >= shown:
        notes.append(f"refused to delete all {shown} facts shown")
        out = [d for d in out if not isinstance(d, Delete)]
    answered = (Add, Update) if none_adds else (Add, Update, Keep)
    if new_facts and not any(isinstance(d, answered) for d in out):
        what = "ADD/UPDATE" if none_adds else "ADD/UPDATE/NONE"
        notes.append(f"no {what} for the new facts: added them as extracted")
        out += [Add(f) for f in new_facts]
    return out, notes


def settle_states(
    decisions: list[Decision], shown: list[Neighbour]
) -> tuple[list[Decision], list[str]]:
    """One live value per state on the LLM path too: an ADD giving a single-valued state
    (:data:`fact_subjects.SINGLE_VALUED`: home, employer, partner, diet...) another value
    than a shown fact no decision names, or ending a state such a fact still states, becomes
    an UPDATE of that fact, as :func:`reconcile_by_rules` decides; returns the decisions and
    a note per change."""
    named = {t for d in decisions if (t := _target(d)) is not None}
    out: list[Decision] = []
    notes: list[str] = []
    for d in decisions:
        if isinstance(d, Add):
            free = [n for n in shown if n.memory_id not in named]
            target = _superseded(d.text, free)
            if target is not None:
                named.add(target)
                notes.append(f"ADD supersedes {target} (same state): UPDATE")
                d = Update(target, d.text)
        out.append(d)
    return out, notes


def _superseded(fact: str, free: list[Neighbour]) -> str | None:
    """The shown fact whose single-valued state ``fact`` changes or ends, if any."""
    for reading in fact_subjects.readings(fact):
        if reading.key not in fact_subjects.SINGLE_VALUED:
            continue
        decide = _end_decision if reading.ended else _set_decision
        d = decide(reading, fact, free)
        if isinstance(d, Update):
            return d.memory_id
    return None


#: Word overlap above which a withdrawn statement is taken to name an existing fact.
NEGATION_OVERLAP = 0.6


def _normal_key(text: str) -> tuple[str, str] | None:
    key = fact_subjects.subject_key(text)
    return None if key is None else (key[0], key[1].lower())


def _withdrawal_match(withdrawn: str, key: tuple[str, str] | None, text: str) -> float:
    """1 when ``text`` states the withdrawn subject and value, else their word overlap."""
    if key is not None and key == _normal_key(text):
        return 1.0
    return fact_subjects.overlap(withdrawn, text)


def _set_decision(reading: Reading, fact: str, neighbours: list[Neighbour]) -> Decision | None:
    """What a fact giving ``reading``'s state a value does to the first neighbour stating
    that state: the same value is NONE, another one UPDATEs it (None: no such neighbour)."""
    for n in neighbours:
        other = fact_subjects.current_state(n.text).get(reading.key)
        if other is None:
            continue
        same = reading.value is not None and other.lower() == reading.value.lower()
        return Keep(n.memory_id) if same else Update(n.memory_id, fact)
    return None


def _end_decision(reading: Reading, fact: str, neighbours: list[Neighbour]) -> Decision | None:
    """A fact ending ``reading``'s state UPDATEs the first neighbour that still states it
    (with the value that ended, when one is named); None when no neighbour does."""
    for n in neighbours:
        other = fact_subjects.current_state(n.text).get(reading.key)
        if other is None:
            continue
        if reading.value is None or fact_subjects.same_value(other, reading.value):
            return Update(n.memory_id, fact)
    return None


def _rule_decision(fact: str, neighbours: list[Neighbour], taken: set[str]) -> Decision:
    free = [n for n in neighbours if n.memory_id not in taken]
    found = fact_subjects.readings(fact)
    for reading in found:  # a value given replaces the value stated before
        if not reading.ended and (d := _set_decision(reading, fact, free)) is not None:
            return d
    for reading in found:  # a state ended without a new value
        if reading.ended and (d := _end_decision(reading, fact, free)) is not None:
            return d
    withdrawn = fact_subjects.negated_statement(fact)
    if withdrawn is not None and free and not any(r.ended for r in found):
        said = _normal_key(withdrawn)
        score, best = max(
            ((_withdrawal_match(withdrawn, said, n.text), n) for n in free), key=lambda x: x[0]
        )
        if score >= NEGATION_OVERLAP:
            return Update(best.memory_id, fact)
    return Add(fact)


def reconcile_by_rules(
    new_facts: list[str], neighbours: dict[str, list[Neighbour]]
) -> list[Decision]:
    """Rule-based reconciliation; ``neighbours`` maps each new fact to its nearest facts.

    Each fact is read for the states it sets or ends (:func:`fact_subjects.readings`):

    1. a fact giving another value to a state a neighbour states (the same key: where the
       user lives, who they work for...) UPDATEs it; the same value is NONE;
    2. a fact ending a state ("User quit their job", "User used to live in Austin", "User
       broke up with Sam") UPDATEs the neighbour that still states it (with the value that
       ended, when it names one), so the state is no longer live and history keeps it;
    3. a fact withdrawing a statement of no known state ("User no longer eats meat") UPDATEs the
       neighbour whose words overlap the withdrawn statement by >= NEGATION_OVERLAP (or that
       states the same subject and value);
    4. anything else is an ADD. Each existing fact is changed at most once.
    """
    out: list[Decision] = []
    taken: set[str] = set()
    for fact in new_facts:
        d = _rule_decision(fact, neighbours.get(fact, []), taken)
        target = _target(d)
        if target is not None:
            taken.add(target)
        out.append(d)
    return out
