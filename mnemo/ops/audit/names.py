"""Whose state a fact gives a value to: the user's, or that of the person it names.

The fact rules (:func:`mnemo.text.fact_subjects.subject_key`) read facts about the user,
written "User ...". A fact that starts with a proper name instead ("Jo lives in Leeds",
"Jo's favourite colour is red") is read as the same sentence with "User" for the name, and
then belongs to

* the user, when the name is one the store knows for them (:func:`user_names`: the profile's
  name, the name on their turns, the user id itself when it is that name: user ``jo``):
  "Jo lives in Leeds" and "User lives in Bristol" give two values to the user's home;
* otherwise the person it names: "Raj lives in Leeds" and "Raj lives in Bristol" give two
  values to Raj's home, and neither is the user's.

So two facts about one person and one single-valued subject with different values are a
stale value or a contradiction whichever way the person is named.

>>> about("Jo lives in Leeds", {"jo"})
(None, ('home', 'Leeds'))
>>> about("Raj moved to Bristol", {"jo"})
('Raj', ('home', 'Bristol'))
>>> about("User is from York", ())
(None, ('origin', 'York'))
>>> about("The office moved to Leeds", ()) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from mnemo.ops.audit.words import FILLERS
from mnemo.schemas import Message, ProfileFact
from mnemo.text.fact_subjects import subject_key
from mnemo.text.stopwords import STOPWORDS

_WORD = r"[A-Z][a-z]+(?:-[A-Z]?[a-z]+)*"
#: A leading proper name (one or two capitalised words) and the rest of the fact.
_LEADING = re.compile(rf"^(?P<name>{_WORD}(?: {_WORD})?)(?P<rest>(?:'s|’s)? \S.*)$")
#: Capitalised first words that are no name ("The", "She", "My", "User", "Today").
_NOT_NAMES = STOPWORDS | FILLERS
#: The profile keys that hold the user's name.
NAME_KEYS = ("name",)


def user_names(
    user_id: str, profile: Iterable[ProfileFact], turns: Iterable[Message]
) -> frozenset[str]:
    """The names (lower case) the store knows for ``user_id``: the id itself (a fact can only
    start with it when it is a name), the values of the profile's :data:`NAME_KEYS` and the
    ``name`` of the user's own turns, each whole and its first word ("Jo Smith": "jo smith"
    and "jo").

    >>> sorted(user_names("u1", [], []))
    ['u1']
    """
    found = [user_id, *(p.value for p in profile if p.key in NAME_KEYS)]
    found += [t.name for t in turns if t.role == "user" and t.name]
    out: set[str] = set()
    for name in found:
        words = name.strip().lower().split()
        if words:
            out.update((" ".join(words), words[0]))
    return frozenset(out)


def about(text: str, names: Collection[str]) -> tuple[str | None, tuple[str, str]] | None:
    """Whose subject ``text`` gives a value to (None: the user's; else the name it starts
    with, as written) and the subject and value (:func:`~mnemo.text.fact_subjects.
    subject_key`); None when no rule reads one. ``names`` are the user's own, lower case
    (:func:`user_names`)."""
    key = subject_key(text)
    if key is not None:
        return None, key
    m = _LEADING.match(text.strip())
    if m is None or m["name"].split()[0].lower() in _NOT_NAMES:
        return None
    key = subject_key("User" + m["rest"])
    if key is None:
        return None
    name = m["name"]
    return (None if name.lower() in names else name), key


def label(owner: str | None, subject: str) -> str:
    """How a finding names a subject: ``home``, ``sister's name``; of a named person,
    ``Raj's home``, ``Raj's sister's name``."""
    bare = subject.removeprefix("'s ")
    return bare if owner is None else f"{owner}'s {bare}"


__all__ = ["NAME_KEYS", "about", "label", "user_names"]
