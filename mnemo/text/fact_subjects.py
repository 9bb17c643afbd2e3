"""What a rule fact is about, so a later fact can replace an earlier one (no LLM).

:func:`subject_key` names the state a fact gives a value to: where the user lives, who they
work for, their job, their partner, a "User's ..." attribute. Two facts with the same key and
different values are the same state changed: the later one replaces the earlier (rule
reconciliation, :mod:`mnemo.tiers.facts.reconcile`)::

    User lives in Berlin            ->  ('home', 'Berlin')
    User just moved to Paris        ->  ('home', 'Paris')
    User started working at Acme    ->  ('employer', 'Acme')
    User works at Initech now       ->  ('employer', 'Initech')

:func:`negated_statement` reads a fact that ends a state ("User quit their job at Acme",
"User no longer eats meat") as the earlier statement it withdraws ("User works at Acme").

:func:`readings` gives every state a fact sets or ends, clause by clause, with the endings of
:mod:`mnemo.text.state_endings` ("User used to live in Austin but now they live in Seattle":
the home Austin ended, the home Seattle set; "User quit their job": the employer ended);
:func:`current_state` the values it leaves live, and :func:`live_conflicts` the live facts
that give one single-valued state two values (what an audit reports).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from mnemo.text.profile_rules import DIETS
from mnemo.text.state_endings import THIRD, TIME_TAIL, clauses, endings, withdrawn

#: Adverbs between "User" and the verb, which do not change what a fact is about.
_ADVERBS = re.compile(
    r"^User (?:(?:just|recently|finally|now|currently|also|actually|officially|already|"
    r"eventually|since|then)\s+)+",
    re.IGNORECASE,
)
#: Time words after a value ("Paris last year", "Acme now").
_WHEN = TIME_TAIL
_KEYED = re.compile(
    r"^User (?:"
    r"(?P<home>lives in|lives at|is living in|is based in|moved to|has moved to|moved back to|"
    r"relocated to|settled in)"
    r"|(?P<employer>works at|works for|is working at|is working for|started working at|"
    r"started working for|got a (?:new )?job at|got a (?:new )?job with|"
    r"started a (?:new )?job at|took a job at|is employed at|is employed by|"
    r"(?:got|was) hired (?:at|by)|joined)"
    r"|(?P<job>works as|is working as|started working as|got a (?:new )?job as|became)"
    r"|(?P<origin>is from|comes from)"
    r"|(?P<studies>studies)"
    r"|(?P<partner>is married to|married|got married to|is dating|is engaged to|got engaged to|"
    r"is in a relationship with|is going out with|started dating|"
    r"got together with)"
    r") (?P<value>.+)$",
    re.IGNORECASE,
)
#: Verbs that name a state only before a name: "joined Globex", not "joined a gym".
_BEFORE_NAMES = frozenset(["joined"])
#: A partner status without a partner: the same subject as "is married to Sam".
_ALONE = re.compile(
    r"^User (?:is|got) (?:now |happily )?(?P<status>single|divorced|widowed|separated)$", re.I
)
#: A diet kept: "User is vegan", "User went vegetarian", "User became vegan".
_DIET = re.compile(
    r"^User (?:is|are|became|went|turned|has become|has gone|is now) (?:an? |strictly |mostly |"
    r"fully )?(?P<value>" + DIETS + r")\b",
    re.IGNORECASE,
)
#: A partner named after their role: "User's husband's name is Raj" (a name; "User's husband
#: is French" says something else about him).
_PARTNER = re.compile(
    r"^User's (?:new )?(?P<role>boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?|spouse)"
    r"(?:'s name is| is called| is named) (?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})$"
)
_BOND = {"husband": "married", "wife": "married", "spouse": "married", "fiance": "engaged"}
_KEYS = ("home", "employer", "job", "origin", "studies", "partner")
#: Keys of a state that holds one value at a time: two live facts giving two values of one of
#: them contradict each other (:func:`live_conflicts`).
SINGLE_VALUED = ("home", "employer", "job", "origin", "studies", "partner", "diet")
_POSSESSIVE = re.compile(r"^User's (?P<np>.+?) (?:is|are|was|were) (?P<value>.+)$", re.I)
_COUNT = re.compile(
    r"^User has (?P<value>\d+|no|one|two|three|four|five|six|seven|eight|nine|ten) (?P<np>\w+)$",
    re.IGNORECASE,
)


_RESOLVED = re.compile(r"\s*\([^()]*\)$")
#: Adverbs after "User is" ("User is now working for Globex").
_BE_ADVERBS = re.compile(
    r"^User (is|are|was) (?:(?:now|currently|still|also|finally|officially|already)\s+)+", re.I
)
#: The people the user does a thing with ("User and their wife moved to Lisbon": the user did).
_TOGETHER = re.compile(r"^User and their [\w-]+ (?=[a-z])")


def _plain(fact: str) -> str:
    """A fact without its final stop, a date resolved in brackets at its end ("last week
    (week of 1 May 2023)", :mod:`mnemo.text.relative_dates`), the adverbs right after "User"
    (or "User is"), and the people the user did it with."""
    text = _TOGETHER.sub("User ", _RESOLVED.sub("", fact.strip().rstrip(".")))
    return _BE_ADVERBS.sub(r"User \1 ", _ADVERBS.sub("User ", text))


def _value(text: str) -> str:
    """A value without trailing time words or a leading "a"/"an" ("a nurse" -> "nurse")."""
    return re.sub(r"^an?\s+", "", _WHEN.sub("", text.strip()).strip(), flags=re.I)


def subject_key(fact: str) -> tuple[str, str] | None:
    """What a fact is about and the value it gives, when a known pattern says so.

    >>> subject_key("User's favourite colour is green")
    ("'s favourite colour", 'green')
    >>> subject_key("User just moved to Berlin last year")
    ('home', 'Berlin')
    >>> subject_key("User is vegan now")
    ('diet', 'vegan')
    >>> subject_key("User likes jazz") is None
    True
    """
    text = _WHEN.sub("", _plain(fact))
    m = _PARTNER.match(text)
    if m:
        role = m["role"].lower().replace("é", "e").replace("fiancee", "fiance")
        return "partner", f"{_BOND.get(role, 'dating')} {m['value']}"
    m = _POSSESSIVE.match(text)
    if m:
        return "'s " + m["np"].lower(), _value(m["value"])
    m = _ALONE.match(text)
    if m:
        return "partner", m["status"].lower()
    m = _DIET.match(text)
    if m:
        return "diet", m["value"].lower()
    m = _KEYED.match(text)
    if m and not _needs_name(m):
        key = next(k for k in _KEYS if m[k])
        if key == "partner":  # "dating Sam" -> "married Sam" is a change of the same subject
            bond = next(
                (b for b in ("married", "engaged", "relationship") if b in m[key].lower()),
                "dating",
            )
            return key, f"{bond} {_value(m['value'])}"
        return key, _value(m["value"])
    m = _COUNT.match(text)
    if m:
        return "has " + m["np"].lower().rstrip("s"), m["value"].lower()
    return None


def _needs_name(m: re.Match[str]) -> bool:
    """True when the verb names a state only before a name and the value is not one."""
    verb = (m["employer"] or m["partner"] or "").lower()
    return verb in _BEFORE_NAMES and not m["value"][:1].isupper()


#: What a withdrawn statement of an ended state is written as ("User works at Acme").
_ENDED_AS = {"employer": "works at", "home": "lives in", "partner": "is dating"}


def negated_statement(fact: str) -> str | None:
    """For a fact that withdraws an earlier one, the earlier fact's likely wording
    (:mod:`mnemo.text.state_endings`: its frames, and its ending verbs when they name what
    ended).

    >>> negated_statement("User no longer eats meat")
    'User eats meat'
    >>> negated_statement("User does not live in Paris anymore")
    'User lives in Paris'
    >>> negated_statement("User just quit their job at Acme")
    'User works at Acme'
    """
    text = _plain(fact)
    said = withdrawn(text, THIRD)
    if said is not None:
        return said
    for ended in endings(text, THIRD):
        if ended.value is not None and ended.key in _ENDED_AS:
            return f"User {_ENDED_AS[ended.key]} {_value(ended.value)}"
    return None


class Reading(NamedTuple):
    """One state a fact speaks of: its key, its value (None: an ending that names none) and
    whether the fact says it ended."""

    key: str
    value: str | None
    ended: bool = False


@functools.lru_cache(maxsize=8192)
def readings(fact: str) -> tuple[Reading, ...]:
    """The states a fact sets or ends, clause by clause (cached: a fact is read again for
    every new fact about the same state).

    >>> [tuple(r) for r in readings("User used to live in Austin but now they live in Seattle")]
    [('home', 'Austin', True), ('home', 'Seattle', False)]
    >>> readings("User quit their job")
    (Reading(key='employer', value=None, ended=True),)
    """
    out: list[Reading] = []
    for clause in clauses(_plain(fact), THIRD):
        clause = _plain(clause)
        said = withdrawn(clause, THIRD)
        if said is not None:
            key = subject_key(said)
            out += [Reading(key[0], key[1], True)] if key else []
            continue
        key = subject_key(clause)
        if key is not None:
            out.append(Reading(key[0], key[1]))
        out += [
            Reading(e.key, None if e.value is None else _value(e.value), True)
            for e in endings(clause, THIRD)
            if key is None or e.key != key[0]
        ]
    return tuple(out)


def current_state(fact: str) -> dict[str, str]:
    """The values a fact gives, by key (its endings left out)."""
    return {r.key: r.value for r in readings(fact) if not r.ended and r.value is not None}


@functools.lru_cache(maxsize=8192)
def state_keys(fact: str) -> frozenset[str]:
    """The keys of the states a fact sets or ends (with the key of what it withdraws);
    cached, as :func:`readings`."""
    keys = {r.key for r in readings(fact)}
    said = negated_statement(fact)
    key = subject_key(said) if said else None
    return frozenset(keys | ({key[0]} if key else set()))


#: Words of a partner value that say the bond, not who ("dating Sam", "married Sam").
_BONDS = frozenset(["dating", "married", "engaged", "relationship"])


def same_value(a: str, b: str) -> bool:
    """True when two values of one state name the same thing: the words of one are among
    the other's ("Acme" and "Acme Corp"; "dating Sam" and "Sam"), case and "the" aside."""
    wa, wb = words(a) - _BONDS - {"the"}, words(b) - _BONDS - {"the"}
    return bool(wa and wb) and (wa <= wb or wb <= wa)


def live_conflicts(facts: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Contradictions among live facts: for each :data:`SINGLE_VALUED` key that two or more
    of ``facts`` (``(id, text)`` pairs) give different values, the ids of those facts.

    A pure function for an audit ("two live values for one key"); reconciliation keeps one
    live value per key, so facts written by it never show up here.

    >>> live_conflicts([("a", "User lives in Berlin"), ("b", "User moved to Paris")])
    {'home': ['a', 'b']}
    """
    by_key: dict[str, list[tuple[str, str]]] = {}
    for fact_id, text in facts:
        for key, value in current_state(text).items():
            if key in SINGLE_VALUED:
                by_key.setdefault(key, []).append((fact_id, value))
    out: dict[str, list[str]] = {}
    for key, found in by_key.items():
        first = found[0][1]
        if any(not same_value(first, v) for _, v in found[1:]):
            out[key] = [fact_id for fact_id, _ in found]
    return out


def words(text: str) -> set[str]:
    """Lower-case word tokens of ``text`` (for overlap tests)."""
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of the word sets of ``a`` and ``b``: |A & B| / |A | B| (0 when empty)."""
    wa, wb = words(a), words(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


__all__ = [
    "SINGLE_VALUED",
    "Reading",
    "current_state",
    "live_conflicts",
    "negated_statement",
    "overlap",
    "readings",
    "same_value",
    "state_keys",
    "subject_key",
    "words",
]
