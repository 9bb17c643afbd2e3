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
splitter): every stored value is then recomputed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mnemo.text.turn_kinds import TURN_KINDS, TurnKind, classify
from mnemo.text.vocatives import NameCues, name_cues

#: The version of the rules that :func:`derive` applies (see the module docstring).
TURN_RULES_VERSION = 1
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
    """``cues`` as compact JSON (one key per field that is not empty)."""
    fields: dict[str, Any] = {
        "a": [list(p) for p in cues.addressed],
        "o": [list(p) for p in cues.own],
        "x": list(cues.others),
        "i": sorted(cues.inner),
        "l": list(cues.lowered),
        "c": list(cues.called),
        "w": dict(cues.words),
    }
    return json.dumps(
        {k: v for k, v in fields.items() if v}, ensure_ascii=False, separators=(",", ":")
    )


def load_cues(text: str) -> NameCues:
    """The cues :func:`dump_cues` wrote."""
    d = json.loads(text)
    return NameCues(
        addressed=tuple((n, float(w)) for n, w in d.get("a", ())),
        own=tuple((n, float(w)) for n, w in d.get("o", ())),
        others=tuple(d.get("x", ())),
        inner=frozenset(d.get("i", ())),
        lowered=tuple(d.get("l", ())),
        called=tuple(d.get("c", ())),
        words=tuple(d.get("w", {}).items()),
    )


def stored_kind(version: int | None, kind: str | None) -> TurnKind | None:
    """A turn's stored kind when the current rules made it, else None (to be computed)."""
    return _KINDS.get(kind) if version == TURN_RULES_VERSION else None


def stored_text(version: int | None, text: str | None) -> str | None:
    """A turn's stored name cues, as stored, when the current rules made them, else None."""
    return text if version == TURN_RULES_VERSION else None


__all__ = [
    "TURN_RULES_VERSION",
    "TurnRules",
    "derive",
    "dump_cues",
    "load_cues",
    "stored_kind",
    "stored_text",
]
