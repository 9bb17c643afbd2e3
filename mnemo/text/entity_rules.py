"""The people, pets, places, organisations and things one turn names, by rules (no parser).

:func:`detect_entities` is the one function the entity index (:mod:`mnemo.tiers.entities`)
asks; a parser-based detector may later stand in for it with the same signature. A name is a
run of up to three capitalised words (:func:`~mnemo.text.vocatives.is_name`; an organisation
may be written in capitals: "KLM") read right after a cue:

* a **relational mention**: "my husband Raj", "our twins, Noor and Sami", "my older sister
  Anna" (a person; a pet when the relation is an animal: "our dog Rex"); "my husband" and
  "husband" become aliases of the name (only after "my" or "our": the user's own);
* a **naming**: "a parrot called Kiwi", "a band named Queen" (pet, person, place,
  organisation or thing, by the noun; a pet's noun becomes an alias: "parrot");
* **work**: "works at Acme", "flies for KLM", "a job at Initech" (an organisation);
* an **address** or a **self-introduction** of :func:`~mnemo.text.vocatives.name_cues` at
  full weight ("Hey Mel!", "Thanks, Sam.", "my name is Dana", "call me Jess"): a person;
* a **place**: after "in", "near", "around", "out of"; after "from" when it says where
  someone is from ("I'm from Ohio"); after "to" when it follows a move or a
  trip ("relocating to Valencia", "a trip to Rome"); after "visit"/"visited".

Month and day names, languages and a few holidays are never a place ("in January").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.text.vocatives import is_name, name_cues

#: The kinds of entity, weakest evidence last (a stronger kind wins when cues disagree).
ENTITY_KINDS = ("person", "pet", "org", "place", "thing")
_PETS = frozenset(
    """
    dog dogs cat cats puppy puppies kitten kittens parrot parrots bird birds hamster hamsters
    rabbit rabbits bunny bunnies fish goldfish horse horses pony turtle tortoise snake lizard
    gecko pig ferret budgie canary chicken chickens goat goats cockatiel guinea
    beagle labrador retriever poodle terrier spaniel bulldog husky corgi dachshund
    chihuahua pug collie shepherd rottweiler schnauzer greyhound whippet doodle labradoodle
    tabby
    """.split()  # noqa: SIM905
)
_PEOPLE = frozenset(
    """
    sister sisters brother brothers sis bro mom mum mother dad father parents son sons daughter
    daughters kid kids child children baby babies twins wife husband partner spouse boyfriend
    girlfriend fiance fiancé fiancee fiancée friend friends buddy pal bestie cousin cousins aunt
    uncle niece nephew grandma grandpa grandmother grandfather granddaughter grandson boss
    manager colleague colleagues coworker co-worker roommate flatmate neighbor neighbour
    neighbors neighbours teacher coach mentor therapist doctor stepson stepdaughter stepmom
    stepdad ex guy girl boy man woman lady someone somebody person veteran student artist
    singer player author writer musician actor actress tutor trainer instructor nurse nanny
    babysitter dentist vet lawyer accountant barber hairdresser landlord landlady classmate
    teammate pastor priest rabbi imam counselor counsellor physio chef mechanic plumber
    """.split()  # noqa: SIM905
)
_PLACES = frozenset(("city", "town", "village", "country", "island", "street", "neighborhood"))
_ORGS = frozenset(
    ("company", "startup", "firm", "business", "agency", "school", "university", "college", "band")
)
#: Capitalised words that are never a place or a name here.
_NOT_NAMES = frozenset(
    """
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday christmas easter halloween
    thanksgiving english spanish french german italian chinese japanese portuguese russian
    arabic hindi dutch math maths science history art music spring summer autumn fall winter
    i i'm i've i'll i'd the a an my our this that these those it he she they we you
    """.split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W\d_]+(?:[-'’.][^\W\d_]+)*")
_POSSESSIVE = re.compile(r"['’]s$")
_NUMBERED = re.compile(r"\s+\d")
_OWN = frozenset({"my", "our"})
_REL_WORDS = "|".join(sorted(_PETS | _PEOPLE, key=len, reverse=True))
_RELATIONAL = re.compile(
    rf"\b(?P<poss>my|our|his|her|their|your)\s+(?:(?:older|younger|little|big|best|baby|"
    rf"new|old|eldest|youngest|twin|two|three|lovely|late)\s+)?(?P<rel>{_REL_WORDS})"
    r"(?:\s*,)?\s+(?=[^\W\d_])",
    re.IGNORECASE,
)
_NAMING = re.compile(r"\b(?P<noun>[^\W\d_]+)\s*,?\s+(?:called|named)\s+(?=[^\W\d_])", re.IGNORECASE)
_WORK = re.compile(
    r"\b(?:works?|worked|working|fl(?:y|ies|ew|ying)|interns?|interned|interning|employed|"
    r"job|position|internship|hired|teach(?:es|ing)?|taught|stud(?:y|ies|ied|ying))"
    r"\s+(?:as\s+an?\s+[^\W\d_]+\s+)?(?:at|for|by|with)\s+(?:the\s+)?(?=[^\W\d_])",
    re.IGNORECASE,
)
_PLACE = re.compile(
    r"(?:\b(?:in|near|around|across|visit|visits|visited|visiting|out\s+of)"
    r"|\b(?:am|is|are|was|were|'m|’m|come|comes|came|originally|moved|flew|drove|back|flies"
    r"|fly|flying)\s+(?:out\s+of|from)"
    r"|\b(?:move|moved|moving|moves|relocate|relocated|relocating|go|goes|going|went|travel|"
    r"traveled|travelled|traveling|travelling|trip|flight|fly|flew|flying|drive|drove|"
    r"driving|headed|heading|back|vacation|holiday|honeymoon)\s+(?:back\s+)?to)"
    r"\s+(?=[^\W\d_])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Detected:
    """One entity a turn names: its name as written, its kind, and what else it is called
    there ("my husband", "husband")."""

    name: str
    kind: str
    aliases: tuple[str, ...] = ()


def _name_at(text: str, at: int, capitals: bool = False) -> tuple[str, int] | None:
    """The name starting at ``at`` (up to three capitalised words; all capitals too when
    ``capitals``) and where it ends, or None."""
    words: list[str] = []
    end = at
    for m in _WORD.finditer(text, at):
        if m.start() != end and (words == [] or text[end : m.start()] != " "):
            break
        w = _POSSESSIVE.sub("", m.group().rstrip("."))
        good = is_name(w) or (capitals and w.isupper() and len(w) >= 2)
        if not good or w.lower() in _NOT_NAMES or len(words) == 3:
            break
        words.append(w)
        end = m.start() + len(w)
    return (" ".join(words), end) if words else None


def _names_from(text: str, at: int, owners: bool = True) -> list[str]:
    """One name at ``at``, or a list of them ("Noor and Sami", "Ann, Bo and Cy"); without
    ``owners``, none written possessive ("visited Laura's house" names no place) nor
    numbered ("in Game 7", "in Room 12": a title, not a place)."""
    out: list[str] = []
    while (found := _name_at(text, at)) is not None:
        name, end = found
        if not owners and (text[end : end + 2] in ("'s", "’s") or _NUMBERED.match(text, end)):
            break
        out.append(name)
        more = re.match(r"\s*(?:,\s*(?:and\s+)?|\s+(?:and|&)\s+)", text[end:])
        if more is None:
            break
        at = end + more.end()
    return out


def _kind_of(noun: str) -> str:
    """The kind of what a noun ("parrot", "sister", "town") names."""
    noun = noun.lower()
    if noun in _PETS:
        return "pet"
    if noun in _PEOPLE:
        return "person"
    if noun in _PLACES:
        return "place"
    return "org" if noun in _ORGS else "thing"


def detect_entities(text: str) -> list[Detected]:
    """The entities ``text`` names by the cues of the module docstring, one per name (the
    strongest kind its cues give; their aliases together), cue by cue."""
    found: list[Detected] = []
    for m in _RELATIONAL.finditer(text):
        rel, poss = m.group("rel").lower(), m.group("poss").lower()
        aliases = (f"{poss} {rel}", rel) if poss in _OWN else ()
        kind = "pet" if rel in _PETS else "person"
        found += [Detected(n, kind, aliases) for n in _names_from(text, m.end())]
    for m in _NAMING.finditer(text):
        noun = m.group("noun").lower()
        if (named := _name_at(text, m.end())) is not None:
            kind = _kind_of(noun)
            found.append(Detected(named[0], kind, (noun,) if kind == "pet" else ()))
    for m in _WORK.finditer(text):
        if (org := _name_at(text, m.end(), capitals=True)) is not None:
            found.append(Detected(org[0], "org"))
    for m in _PLACE.finditer(text):
        found += [Detected(n, "place") for n in _names_from(text, m.end(), owners=False)]
    cues = name_cues(text)
    for name, weight in (*cues.addressed, *cues.own):
        if weight >= 1.0 and (written := _as_written(text, name)) is not None:
            found.append(Detected(written, "person"))
    return merged(found)


def _as_written(text: str, name: str) -> str | None:
    """``name`` (lower case, from the name cues) as ``text`` capitalises it, or None when the
    text writes it in lower case only ("hey jess!")."""
    for m in re.finditer(rf"(?<![\w'’-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE):
        if is_name(m.group()) and m.group().lower() not in _NOT_NAMES:
            return m.group()
    return None


def merged(found: list[Detected]) -> list[Detected]:
    """One entry per name (compared case-blind): the strongest kind (:data:`ENTITY_KINDS`),
    every alias once, in order of first mention."""
    by_key: dict[str, Detected] = {}
    for d in found:
        key = d.name.lower()
        old = by_key.get(key)
        if old is None:
            by_key[key] = d
            continue
        kind = min(old.kind, d.kind, key=ENTITY_KINDS.index)
        aliases = tuple(dict.fromkeys(old.aliases + d.aliases))
        by_key[key] = Detected(old.name, kind, aliases)
    return list(by_key.values())


__all__ = ["ENTITY_KINDS", "Detected", "detect_entities", "merged"]
