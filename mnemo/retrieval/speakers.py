"""Who a query is about: speaker names it mentions, or the role whose turns likely answer it.

Measured on the dev splits (docs/evaluation.md): 96% of LoCoMo evidence turns are spoken by the
person a question names, and 37 of 41 LongMemEval evidence turns are the user's own words. Two
general rules follow:

* a query naming known speakers is about what *they* said, so their turns get a prior; and the
  names are cut from the text that is embedded, because every turn of a two-person conversation
  shares one of two names and the name then swamps the meaning (LoCoMo R@10 .734 -> .775);
* otherwise a query recalls what the user said, unless it asks for what the assistant said
  ("you told me", "our previous chat", "remind me").

A speaker is also named by what others call them: "What are Jess's hobbies?" is about the
speaker "jdoe84" when the conversation learned that alias (:mod:`mnemo.retrieval.aliases`);
an alias is found and cut like the name it stands for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)
_POSSESSIVE = re.compile(r"(?:'|’)s\b", re.IGNORECASE)

_ASSISTANT_RECALL = re.compile(
    r"\byou (?:told|said|recommended|suggested|mentioned|gave|provided|listed|explained"
    r"|shared|described|wrote|came up with)\b"
    r"|\b(?:our|the|that) (?:previous|last|earlier|past) (?:chat|conversation|discussion"
    r"|talk|session)\b"
    r"|\bremind me\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QuerySpeakers:
    """What :func:`analyze` found in a query."""

    names: frozenset[str]  # known speaker names the query mentions (lower-cased)
    role: str  # the role to prefer when no name is mentioned: "user" or "assistant"
    dense_text: str  # the query with those names cut out, for the embedder


def analyze(
    query: str,
    known_names: list[str],
    strip_names: bool = True,
    aliases: dict[str, str] | None = None,
) -> QuerySpeakers:
    """Find the known speakers a query names (every word of a name must appear), by their
    name or by one of their ``aliases`` (lower-cased alias -> speaker name).

    ``dense_text`` drops the words naming them (and a trailing possessive) when
    ``strip_names``; it falls back to the query when nothing else would be left.
    """
    aliases = aliases or {}
    words = {w.lower() for w in _WORD.findall(query)}
    said = [
        n
        for n in [*known_names, *aliases]
        if (parts := _WORD.findall(n)) and all(p in words for p in parts)
    ]
    named = frozenset(aliases.get(n, n) for n in said)
    role = "assistant" if _ASSISTANT_RECALL.search(query) else "user"
    text = query
    if named and strip_names:
        drop = {p for n in said for p in _WORD.findall(n)}
        pattern = r"\b(?:" + "|".join(re.escape(p) for p in sorted(drop)) + r")\b"
        cut = re.sub(pattern + r"(?:'|’)?s?\b", " ", query, flags=re.IGNORECASE)
        cut = " ".join(_POSSESSIVE.sub("", cut).split())
        text = cut if _WORD.search(cut) else query
    return QuerySpeakers(named, role, text)


def speaker_prior(spoken: np.ndarray, weight: float) -> np.ndarray:
    """prior = 1 + weight for turns by the speakers a query is about, 1 elsewhere."""
    return np.where(spoken, 1.0 + weight, 1.0)
