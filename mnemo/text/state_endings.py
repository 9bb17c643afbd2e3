"""Statements that end a state, read alike in the first person and in the third.

A state (where the user lives, who they work for, their partner, their diet...) ends in two
ways, each written once here and read in either person: a turn in the first person (the
profile rules, :mod:`mnemo.text.profile_rules`) or a rule fact in the third (reconciliation,
:mod:`mnemo.text.fact_subjects`):

* an **ending verb** of a state with no new value (:data:`ENDINGS`): quit, left or lost a job,
  laid off, fired, resigned, retired, unemployed (the employer); moved out of or away from a
  place (the home); broke up, split up, separated, divorced (the partner). :func:`endings`
  gives the state key and the value that ended, when one is named;
* a **frame that withdraws** an affirmative statement (:data:`FRAMES`): "used to", "no
  longer", "not ... anymore", "stopped being", "stopped ...ing". :func:`withdrawn` gives the
  statement withdrawn, in the same person, which the caller reads with its own rules ("I used
  to live in Austin" -> "I live in Austin"; "User is no longer vegetarian" -> "User is
  vegetarian").

A statement of several clauses ("I used to live in Austin but now I live in Seattle") is read
clause by clause (:func:`clauses`): a clause starts where a new subject does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mnemo.text.apostrophes import straight
from mnemo.text.fact_rules import third_person

#: Time words after a value ("Paris last year", "Acme now").
TIME_TAIL = re.compile(
    r"\s+(?:now|these days|nowadays|anymore|any more|today|yesterday|recently|lately|"
    r"this (?:week|month|year)|last (?:week|month|year|weekend)|a while ago|"
    r"\w+ (?:days|weeks|months|years) ago|in \d{4}|since \d{4}|for good|again)$",
    re.IGNORECASE,
)
#: Where a value named after an ending verb stops ("my job at Acme and joined ...").
_VALUE_END = re.compile(
    r"\s*(?:[,;:.!?()]|\s(?:and|but|because|so|since|after|before|when|to|for|last|this|in|on|"
    r"in \d{4}|\w+ (?:days|weeks|months|years) ago)\b)",
    re.IGNORECASE,
)
_ADV = (
    r"(?:(?:just|recently|finally|officially|already|eventually|now|also|actually|has|have|had)"
    r" )*"
)
_PARTNER = r"(?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?|spouse)"


@dataclass(frozen=True)
class Person:
    """How one grammatical person spells what the rules match: its subject, possessive and
    "subject + to be" (regular expressions), and how a withdrawn statement is written."""

    subject: str
    possessive: str
    be: str
    be_out: str
    conjugate: Callable[[str], str]


def _as_third(verb: str) -> str:
    """``verb`` in the third person, left alone when it already is ("lives", not "liveses")."""
    low = verb.lower()
    if low.endswith("s") and not low.endswith("ss"):
        return verb
    return third_person(verb)


FIRST = Person(
    r"(?:I|we|my [\w-]+ and I)(?:'ve|'d)?",
    r"(?:my|our)",
    r"(?:I'm|I am|we're|we are)",
    "I am",
    str,
)
THIRD = Person(
    r"(?:User(?: and their [\w-]+)?)", r"their", r"User (?:is|are)", "User is", _as_third
)


@dataclass(frozen=True)
class Ended:
    """A state that ended: its key (``home``, ``employer``, ``partner``...) and the value that
    ended (None when the statement names none: "I quit my job")."""

    key: str
    value: str | None


#: Ending verbs: (state key, pattern after the subject's placeholders, whether a value it
#: names must be capitalised (a name: "left Initech", not "left early")).
ENDINGS: tuple[tuple[str, str, bool], ...] = (
    ("employer", r"{s} {a}(?:quit|left|lost) {p} (?:[\w-]+ )?job\b(?: (?:at|with) (?P<v>.+))?",
     False),
    ("employer", r"{s} {a}(?:was |got |has been |have been |had been )?(?:laid off|fired|let go|"
     r"made redundant)\b(?: (?:from|at|by) (?P<v>.+))?", False),
    ("employer", r"{s} {a}(?:resigned|retired)\b(?: from (?P<v>.+))?", False),
    ("employer", r"{s} {a}(?:quit|left) (?P<v>.+)", True),
    ("employer", r"{b} {a}(?:unemployed|out of work|between jobs|jobless|retired)\b", False),
    ("partner", r"{b} {a}(?:now |happily )?(?:single|divorced|separated|widowed)\b", False),
    ("home", r"{s} {a}(?:moved|moved out|moved away) (?:out of|away from|from) (?P<v>.+)", True),
    ("partner", r"{s} {a}(?:broke up|split up|split|separated|got divorced|divorced)\b"
     r"(?: (?:with|from) (?P<v>.+))?", False),
    ("partner", r"{s} and {p} (?:[\w-]+ )?" + _PARTNER + r" {a}(?:broke up|split up|split|"
     r"separated|got divorced|divorced)\b", False),
)  # fmt: skip

#: Frames that withdraw a statement: (pattern, how the statement withdrawn is written).
#: ``s`` is the subject as said, ``b`` the subject with "to be", ``rest`` what follows.
FRAMES: tuple[tuple[str, str], ...] = (
    (r"(?P<s>{s}) {a}used to be (?P<rest>.+)", "{be} {rest}"),
    (r"(?P<s>{s}) {a}used to (?P<rest>.+)", "{s} {verb}"),
    (r"(?P<s>{s}) no longer (?P<rest>.+)", "{s} {verb}"),
    (r"(?P<s>{s}) (?:do not|does not|don't|doesn't) (?P<rest>.+?) any ?more", "{s} {verb}"),
    (r"(?P<b>{b}) no longer (?P<rest>.+)", "{b} {rest}"),
    (r"(?P<b>{b}) not (?P<rest>.+?) any ?more", "{b} {rest}"),
    (r"(?P<s>{s}) {a}(?:stopped|quit|gave up) being (?P<rest>.+)", "{be} {rest}"),
    (r"(?P<s>{s}) {a}(?:stopped|quit|gave up) (?P<g>\w+ing)\b(?P<rest>.*)", "{s} {gerund}"),
)


def _fill(pattern: str, person: Person) -> str:
    return (
        pattern.replace("{s}", person.subject)
        .replace("{p}", person.possessive)
        .replace("{b}", person.be)
        .replace("{a}", _ADV)
    )


def _compile(
    person: Person,
) -> tuple[list[tuple[str, re.Pattern[str], bool]], list[tuple[re.Pattern[str], str]]]:
    ends = [(k, re.compile(_fill(p, person), re.I), named) for k, p, named in ENDINGS]
    frames = [(re.compile(_fill(p, person) + "$", re.I), out) for p, out in FRAMES]
    return ends, frames


_COMPILED = {id(FIRST): _compile(FIRST), id(THIRD): _compile(THIRD)}
#: Where a new clause starts: a comma, a semicolon, "and" or "but" before a new subject.
_SEPARATOR = (
    r"(?:\s*[;,]\s*(?:(?:and|but|yet)\s+)?|\s+(?:and|but|yet)\s+)"
    r"(?:(?:now|today|these days|currently|since then),?\s+)?"
)
_CLAUSE = {
    id(FIRST): re.compile(_SEPARATOR + r"(?=(?:I|we)\s)"),
    id(THIRD): re.compile(_SEPARATOR + r"(?=(?:they|User)\s)"),
}
#: Words that open a turn's clause without changing it ("So I quit my job").
_LEAD = re.compile(
    r"^(?:(?:well|oh|so|and|but|also|actually|anyway|ugh|yeah|btw|guess what|fyi)[,!:]?\s+)+",
    re.IGNORECASE,
)
_THEY = re.compile(r"^they(?:'re| are) ", re.I)


def base_verb(gerund: str) -> str:
    """The base form of an -ing verb, by spelling: "playing" -> "play", "living" -> "live",
    "running" -> "run", "smoking" -> "smoke"."""
    stem = gerund[:-3] if gerund.lower().endswith("ing") else gerund
    low = stem.lower()
    if len(low) > 2 and low[-1] == low[-2] and low[-1] not in "lsz":
        return stem[:-1]
    vowels = re.findall(r"[aeiou]+", low)
    single = len(vowels) == 1 and len(vowels[0]) == 1
    if low.endswith(("v", "c", "us")) or (single and re.search(r"[^aeiou][aeiou][kt]$", low)):
        return stem + "e"
    return stem


def clauses(text: str, person: Person) -> list[str]:
    """``text`` split where a new subject starts, each clause starting with its subject
    ("User used to live in Austin but now they live in Seattle" -> "User used to live in
    Austin", "User lives in Seattle")."""
    out = []
    for i, part in enumerate(_CLAUSE[id(person)].split(straight(text).strip().rstrip(".!"))):
        part = _LEAD.sub("", part.strip())
        if i and person is THIRD and part.lower().startswith("they"):
            if _THEY.match(part):
                part = _THEY.sub("User is ", part)
            else:
                verb, _, rest = part[len("they ") :].partition(" ")
                part = f"User {_as_third(verb)} {rest}".strip()
        if part:
            out.append(part)
    return out


def _value(raw: str | None, named: bool) -> str | bool | None:
    """The value named after an ending verb; False when it must be a name and is not."""
    if raw is None:
        return None
    cut = _VALUE_END.search(raw)
    value = TIME_TAIL.sub("", (raw[: cut.start()] if cut else raw).strip())
    value = re.sub(r"^(?:the|my|our|their)\s+", "", value.strip(), flags=re.I)
    if named and not value[:1].isupper():
        return False
    return value or None


def endings(text: str, person: Person) -> list[Ended]:
    """The states ``text`` says ended, clause by clause, by an ending verb (:data:`ENDINGS`).

    >>> endings("I quit my job last week", FIRST)
    [Ended(key='employer', value=None)]
    >>> endings("User was laid off from Initech", THIRD)
    [Ended(key='employer', value='Initech')]
    """
    found: list[Ended] = []
    ends, _ = _COMPILED[id(person)]
    for clause in clauses(text, person):
        for key, regex, named in ends:
            m = regex.match(clause)
            if m is None:
                continue
            value = _value(m.groupdict().get("v"), named)
            if value is False:
                continue
            ended = Ended(key, value if isinstance(value, str) else None)
            if ended not in found:
                found.append(ended)
            break
    return found


def withdrawn(clause: str, person: Person) -> str | None:
    """The affirmative statement a clause withdraws, in the same person, or None.

    >>> withdrawn("I used to live in Austin", FIRST)
    'I live in Austin'
    >>> withdrawn("User is no longer vegetarian", THIRD)
    'User is vegetarian'
    >>> withdrawn("User stopped smoking", THIRD)
    'User smokes'
    """
    _, frames = _COMPILED[id(person)]
    text = _LEAD.sub("", clause.strip().rstrip(".!"))
    for regex, out in frames:
        m = regex.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        rest = (groups.get("rest") or "").strip()
        verb, _, tail = rest.partition(" ")
        said = groups.get("s") or ""
        gerund = groups.get("g")
        filled = out.format(
            s=said,
            b=groups.get("b") or "",
            be=person.be_out,
            rest=rest,
            verb=f"{person.conjugate(verb)} {tail}".strip(),
            gerund=f"{person.conjugate(base_verb(gerund))} {rest}".strip() if gerund else "",
        )
        return " ".join(filled.split())
    return None


__all__ = [
    "ENDINGS",
    "FIRST",
    "FRAMES",
    "THIRD",
    "TIME_TAIL",
    "Ended",
    "Person",
    "base_verb",
    "clauses",
    "endings",
    "withdrawn",
]
