"""The query side of the entity index: which of a user's entities a text names, and which
entities each turn mentions. Pure functions over what one store read returns
(``store.entities.entity_view``): no parser, no query of their own.

A text is matched against the user's **entity dictionary** (:func:`dictionary`): every
entity's name and aliases ("Raj", "my husband", "husband"), as lower-case word sequences.
Words are compared lower case, a possessive "'s" / "’s" / "s'" dropped ("Raj's" is "raj",
"RAJ" too); the longest sequence wins at each word of the text. An alias shared by several
entities ("our twins") names them all.

    >>> lookup = EntityLookup(tenant, user_id, message_ids, counted=False)
    >>> view = store.entities.entity_view(lookup)  # one read snapshot
    >>> names = dictionary(view.entities)
    >>> match_text("Where does my husband work?", names)   # -> [EntityMatch(ent_..., ...)]
    >>> turn_entities(message_ids, view)                    # -> [frozenset({ent_...}), ...]
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mnemo.storage.ports.entities import EntityRecord, EntityView

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_POSSESSIVE = re.compile(r"(?:['’]s|s['’])$")


def words(text: str) -> tuple[str, ...]:
    """The words of ``text`` as the dictionary compares them: lower case, possessive
    dropped."""
    return tuple(_POSSESSIVE.sub("", w) or w for w in _WORD.findall(text.lower()))


def _capitalised(text: str) -> list[bool]:
    """Whether each word of ``text`` (as :func:`words` splits it) starts with a capital."""
    return [w[0].isupper() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class EntityMatch:
    """One entity a text names: its id, the words that named it, and whether they were its
    name (else an alias)."""

    entity_id: str
    term: str
    by_name: bool


@dataclass(frozen=True)
class EntityDictionary:
    """A user's names and aliases: word sequence -> (entity ids, whether it is their name)."""

    terms: dict[tuple[str, ...], tuple[frozenset[str], bool]]
    longest: int


def dictionary(entities: Iterable[EntityRecord]) -> EntityDictionary:
    """The dictionary of ``entities`` (see the module docstring); a sequence that is one
    entity's name is that entity's alone, whatever other aliases say."""
    names: defaultdict[tuple[str, ...], set[str]] = defaultdict(set)
    aliases: defaultdict[tuple[str, ...], set[str]] = defaultdict(set)
    for e in entities:
        if key := words(e.name):
            names[key].add(e.id)
        for alias in e.aliases:
            if key := words(alias):
                aliases[key].add(e.id)
    terms = {k: (frozenset(v), False) for k, v in aliases.items()}
    terms.update({k: (frozenset(v), True) for k, v in names.items()})
    return EntityDictionary(terms, max((len(k) for k in terms), default=0))


def match_text(text: str, names: EntityDictionary, cased: bool = False) -> list[EntityMatch]:
    """The entities ``text`` names, in the order it names them, each once (its first
    naming). With ``cased``, a name counts only where it is written capitalised ("Kiwi",
    not the fruit): how a turn is read; a query is matched case-blind. Cost: a few
    dictionary lookups per word."""
    seen: dict[str, EntityMatch] = {}
    tokens = words(text)
    capital = _capitalised(text) if cased else []
    i = 0
    while i < len(tokens):
        for n in range(min(names.longest, len(tokens) - i), 0, -1):
            found = names.terms.get(tokens[i : i + n])
            if found is not None and cased and found[1] and not capital[i]:
                found = None
            if found is not None:
                ids, by_name = found
                for entity in sorted(ids):
                    seen.setdefault(
                        entity, EntityMatch(entity, " ".join(tokens[i : i + n]), by_name)
                    )
                i += n
                break
        else:
            i += 1
    return list(seen.values())


def turn_entities(message_ids: Sequence[str], view: EntityView) -> list[frozenset[str]]:
    """The ids of the entities each turn of ``message_ids`` mentions (empty for a turn that
    mentions none, or was not asked of the view), in the same order."""
    none: frozenset[str] = frozenset()
    return [view.mentions.get(i, none) for i in message_ids]


__all__ = [
    "EntityDictionary",
    "EntityMatch",
    "dictionary",
    "match_text",
    "turn_entities",
    "words",
]
