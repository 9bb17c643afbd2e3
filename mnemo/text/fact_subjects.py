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
"""

from __future__ import annotations

import re

from mnemo.text.fact_rules import third_person

#: Adverbs between "User" and the verb, which do not change what a fact is about.
_ADVERBS = re.compile(
    r"^User (?:(?:just|recently|finally|now|currently|also|actually|officially|already|"
    r"eventually|since|then)\s+)+",
    re.IGNORECASE,
)
#: Time words after a value ("Paris last year", "Acme now").
_WHEN = re.compile(
    r"\s+(?:now|these days|nowadays|anymore|any more|today|yesterday|recently|lately|"
    r"this (?:week|month|year)|last (?:week|month|year|weekend)|a while ago|"
    r"\w+ (?:days|weeks|months|years) ago|in \d{4}|since \d{4}|for good|again)$",
    re.IGNORECASE,
)
_KEYED = re.compile(
    r"^User (?:"
    r"(?P<home>lives in|lives at|is living in|is based in|moved to|has moved to|moved back to|"
    r"relocated to|settled in)"
    r"|(?P<employer>works at|works for|is working at|is working for|started working at|"
    r"started working for|got a (?:new )?job at|got a (?:new )?job with|"
    r"started a (?:new )?job at|took a job at|is employed at|is employed by)"
    r"|(?P<job>works as|is working as|started working as|got a (?:new )?job as|became)"
    r"|(?P<origin>is from|comes from)"
    r"|(?P<studies>studies)"
    r"|(?P<partner>is married to|married|got married to|is dating|is engaged to|got engaged to|"
    r"is in a relationship with)"
    r") (?P<value>.+)$",
    re.IGNORECASE,
)
#: A partner status without a partner: the same subject as "is married to Sam".
_ALONE = re.compile(
    r"^User (?:is|got) (?:now |happily )?(?P<status>single|divorced|widowed|separated)$", re.I
)
_KEYS = ("home", "employer", "job", "origin", "studies", "partner")
_POSSESSIVE = re.compile(r"^User's (?P<np>.+?) (?:is|are|was|were) (?P<value>.+)$", re.I)
_COUNT = re.compile(
    r"^User has (?P<value>\d+|no|one|two|three|four|five|six|seven|eight|nine|ten) (?P<np>\w+)$",
    re.IGNORECASE,
)


_RESOLVED = re.compile(r"\s*\([^()]*\)$")


def _plain(fact: str) -> str:
    """A fact without its final stop, a date resolved in brackets at its end ("last week
    (week of 1 May 2023)", :mod:`mnemo.text.relative_dates`) and the adverbs after "User"."""
    return _ADVERBS.sub("User ", _RESOLVED.sub("", fact.strip().rstrip(".")))


def _value(text: str) -> str:
    """A value without trailing time words or a leading "a"/"an" ("a nurse" -> "nurse")."""
    return re.sub(r"^an?\s+", "", _WHEN.sub("", text.strip()).strip(), flags=re.I)


def subject_key(fact: str) -> tuple[str, str] | None:
    """What a fact is about and the value it gives, when a known pattern says so.

    >>> subject_key("User's favourite colour is green")
    ("'s favourite colour", 'green')
    >>> subject_key("User just moved to Berlin last year")
    ('home', 'Berlin')
    >>> subject_key("User likes jazz") is None
    True
    """
    text = _plain(fact)
    m = _POSSESSIVE.match(text)
    if m:
        return "'s " + m["np"].lower(), _value(m["value"])
    m = _ALONE.match(text)
    if m:
        return "partner", m["status"].lower()
    m = _KEYED.match(text)
    if m:
        key = next(k for k in _KEYS if m[k])
        if key == "partner":  # "dating Sam" -> "married Sam" is a change of the same subject
            bond = next(b for b in ("married", "engaged", "dating", "relationship") if b in m[key])
            return key, f"{bond} {_value(m['value'])}"
        return key, _value(m["value"])
    m = _COUNT.match(text)
    if m:
        return "has " + m["np"].lower().rstrip("s"), m["value"].lower()
    return None


_NEGATION = re.compile(
    r"^User (?:no longer (?P<a>.+)|does not (?P<b>.+?) any ?more"
    r"|(?:stopped|quit|gave up) (?P<c>\w+ing .+)"
    r"|(?:quit|left|lost) (?:their|the|a) (?:\w+ )?job (?:at|with) (?P<job>.+)"
    r"|(?:was laid off|got laid off|was fired|got fired|resigned) from (?P<job2>.+)"
    r"|(?:moved out of|moved away from) (?P<home>.+)"
    r"|broke up with (?P<date>.+)"
    r"|(?:divorced|got divorced from|separated from) (?P<wed>.+)"
    r")$",
    re.IGNORECASE,
)


def negated_statement(fact: str) -> str | None:
    """For a fact that withdraws an earlier one, the earlier fact's likely wording.

    >>> negated_statement("User no longer eats meat")
    'User eats meat'
    >>> negated_statement("User does not live in Paris anymore")
    'User lives in Paris'
    >>> negated_statement("User just quit their job at Acme")
    'User works at Acme'
    """
    m = _NEGATION.match(_plain(fact))
    if m is None:
        return None
    if m["a"]:
        return f"User {m['a']}"
    if m["b"]:
        words = m["b"].split()
        return f"User {third_person(words[0])} {' '.join(words[1:])}".strip()
    ended = {
        "job": "works at",
        "job2": "works at",
        "home": "lives in",
        "date": "is dating",
        "wed": "is married to",
    }
    for group, verb in ended.items():
        if m[group]:
            return f"User {verb} {_value(m[group])}"
    gerund = m["c"].split()
    base = gerund[0][:-3]
    return f"User {third_person(base)} {' '.join(gerund[1:])}".strip()


def words(text: str) -> set[str]:
    """Lower-case word tokens of ``text`` (for overlap tests)."""
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of the word sets of ``a`` and ``b``: |A & B| / |A | B| (0 when empty)."""
    wa, wb = words(a), words(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


__all__ = ["negated_statement", "overlap", "subject_key", "words"]
