"""What the rules say about one turn, computed once, when the turn is written: its kind
(:mod:`mnemo.text.turn_kinds`) and its name cues (:mod:`mnemo.text.vocatives`).

Both depend only on the turn (its role and text), so a turn stores them with itself
(``messages.turn_kind``, ``messages.name_cues``) together with the version of the rules that
made them (``messages.turn_rules``). A search reads them instead of running the rules again;
a stored value whose version is not :data:`TURN_RULES_VERSION` (or NULL: written before the
columns existed) is not used (:func:`stored_kind`, :func:`stored_text`): the store
recomputes such turns when it opens, and until then a search computes them itself.

**Bump** :data:`TURN_RULES_VERSION` **with any change that can change what**
:func:`derive` **returns for some turn** (a rule, a word list, a pattern, the sentence
splitter), or the stored form of the cues: every stored value is then recomputed.

The stored cues are two lines (:func:`dump_cues`): the few cues about names, as compact JSON
(empty when the turn has none), then the turn's lower-case word counts as `` word:count``
entries. A search parses only the first line of every turn (:func:`split_cues`); the word
counts matter only for the few names that may be aliases, and :func:`word_count` counts one
such name in the text of many turns without parsing it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from mnemo.text.turn_kinds import TURN_KINDS, TurnKind, classify
from mnemo.text.vocatives import NameCues, name_cues

#: The version of the rules that :func:`derive` applies (see the module docstring).
TURN_RULES_VERSION = 2
_KINDS: dict[str | None, TurnKind] = {k: k for k in TURN_KINDS}


@dataclass(frozen=True)
class TurnRules:
    """One turn's kind and name cues, as the rules of ``version`` read them."""

    kind: TurnKind
    cues: NameCues
    version: int = TURN_RULES_VERSION

    @property
    def cues_text(self) -> str:
        """The cues in their stored form (:func:`dump_cues`)."""
        return dump_cues(self.cues)


def derive(role: str | None, content: str) -> TurnRules:
    """The kind and the name cues of one turn (role and text), by the current rules."""
    return TurnRules(classify(role, content), name_cues(content))


def dump_cues(cues: NameCues) -> str:
    """``cues`` in their stored form: the cues about names as compact JSON (one key per field
    that is not empty; nothing when all are), a newline, then :func:`word_text` of the word
    counts (JSON escapes a newline inside a string, so the first one ends the JSON)."""
    fields: dict[str, Any] = {
        "a": [list(p) for p in cues.addressed],
        "o": [list(p) for p in cues.own],
        "x": list(cues.others),
        "i": sorted(cues.inner),
        "l": list(cues.lowered),
        "c": list(cues.called),
    }
    kept = {k: v for k, v in fields.items() if v}
    head = json.dumps(kept, ensure_ascii=False, separators=(",", ":")) if kept else ""
    return f"{head}\n{word_text(cues.words)}"


#: The cues of a turn that says nothing about names (what :func:`split_cues` returns for it).
NO_CUES = NameCues(addressed=(), own=(), others=(), inner=frozenset())


def split_cues(text: str) -> tuple[NameCues, str]:
    """The cues :func:`dump_cues` wrote, without their word counts (``words`` empty), and the
    word counts in their stored form (:func:`word_text`), not parsed."""
    head, _, words = text.partition("\n")
    if not head:
        return NO_CUES, words
    d = json.loads(head)
    cues = NameCues(
        addressed=tuple((n, float(w)) for n, w in d.get("a", ())),
        own=tuple((n, float(w)) for n, w in d.get("o", ())),
        others=tuple(d.get("x", ())),
        inner=frozenset(d.get("i", ())),
        lowered=tuple(d.get("l", ())),
        called=tuple(d.get("c", ())),
    )
    return cues, words


def load_cues(text: str) -> NameCues:
    """The cues :func:`dump_cues` wrote, word counts included."""
    cues, words = split_cues(text)
    counts = tuple((w, int(n)) for w, _, n in (e.rpartition(":") for e in words.split()))
    return replace(cues, words=counts)


def word_text(words: tuple[tuple[str, int], ...]) -> str:
    """Word counts as text: `` word:count`` per word, in order. A word is letters with inner
    hyphens and apostrophes (no space, no colon), so `` jess:`` starts exactly the entry of
    "jess", in one turn's text or in several joined."""
    return "".join(f" {w}:{n}" for w, n in words)


def word_count(text: str, word: str) -> int:
    """The count of ``word`` summed over the entries of ``text`` (one or more
    :func:`word_text` joined)."""
    return sum(map(int, re.findall(f" {re.escape(word)}:(\\d+)", text)))


def stored_kind(version: int | None, kind: str | None) -> TurnKind | None:
    """A turn's stored kind when the current rules made it, else None (to be computed)."""
    return _KINDS.get(kind) if version == TURN_RULES_VERSION else None


def stored_text(version: int | None, text: str | None) -> str | None:
    """A turn's stored name cues, as stored, when the current rules made them, else None."""
    return text if version == TURN_RULES_VERSION else None


__all__ = [
    "NO_CUES",
    "TURN_RULES_VERSION",
    "TurnRules",
    "derive",
    "dump_cues",
    "load_cues",
    "split_cues",
    "stored_kind",
    "stored_text",
    "word_count",
    "word_text",
]
