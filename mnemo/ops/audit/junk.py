"""Junk facts: stored facts that tell nothing about the user.

A fact is junk, by the first rule that holds:

* ``no content word``: every word is a stop word or a filler ("User is doing good", "User
  likes it"; :func:`mnemo.ops.audit.words.content_words`): its fix, deleting it, is safe;
* ``question``: it asks ("Does the user like jazz?"), as the turn rules read a question
  (:func:`mnemo.text.turn_kinds.classify`);
* ``greeting``: every sentence is a courtesy ("Thanks so much!");
* ``fragment``: under three words, or it ends on a word that needs more ("User went to the",
  "User wants to"; :data:`DANGLING`).

The last three are offered for deletion and wait for a person: a question or a fragment may
still hold the one thing said about a detail.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemo.ops.audit.findings import AUDIT_ACTOR, Finding, Fix, finding
from mnemo.ops.audit.words import content_words, words
from mnemo.schemas import MemoryItem
from mnemo.text.turn_kinds import classify

#: Words a statement cannot end on: it was cut before its point. Only words that never
#: end an English sentence: articles, possessive determiners, conjunctions, "to" of a cut
#: infinitive. A preposition may end one ("books he enjoys escaping into"), and so may an
#: object pronoun ("it means a lot to her"), a verb "to be" ("how simple it is") or "that".
DANGLING = frozenset(
    """
    a an the my your their our its and or nor but because if than whose to just very
    """.split()  # noqa: SIM905
)
#: Fewer words than this is a fragment.
MIN_WORDS = 3


def junk_reason(text: str) -> str | None:
    """Why ``text`` is junk (the rule names of the module docstring), or None."""
    if not content_words(text):
        return "no content word"
    kind = classify("user", text)
    if kind in ("question", "greeting"):
        return kind
    said = words(text)
    if len(said) < MIN_WORDS or said[-1] in DANGLING:
        return "fragment"
    return None


def junk(user_id: str, facts: Sequence[MemoryItem]) -> list[Finding]:
    """One finding per junk fact of ``facts``, with a delete fix (safe for no content word)."""
    out = []
    for f in facts:
        reason = junk_reason(f.content)
        if reason is None:
            continue
        fix = Fix(
            action="delete",
            remove=[f.id],
            safe=reason == "no content word",
            reason=f"delete it ({AUDIT_ACTOR} records DELETE in its history)",
        )
        out.append(finding("junk", user_id, [(f.id, f.content)], reason, fix))
    return out


__all__ = ["DANGLING", "MIN_WORDS", "junk", "junk_reason"]
