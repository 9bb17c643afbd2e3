"""Rule-based fact extraction: first-person statements of a user message, in third person.

Used when no LLM is configured or the LLM fails transiently. A sentence becomes a fact when
it is a declarative first-person statement ("I live in Lyon", "My sister is a nurse"), not a
question, hedge, courtesy or request. The fact is rewritten about the user::

    I live in Lyon                ->  User lives in Lyon
    My favourite colour is green  ->  User's favourite colour is green
    I no longer eat meat          ->  User no longer eats meat

:func:`subject_key` names what a fact is about (``"'s favourite colour"``, ``"home"``) so the
rule-based reconciliation can tell a changed value from a new fact.
"""

from __future__ import annotations

import re

from mnemo.text.sentences import sentences

_LEAD = re.compile(
    r"^(?:(?:well|oh|so|also|actually|btw|and|but|yeah|yes|no|ok|okay|hey|hi|fyi|anyway|"
    r"by the way|just so you know|fun fact)[,!:]?\s+)+",
    re.IGNORECASE,
)
_ADVERBS = frozenset(
    [
        "really",
        "also",
        "still",
        "usually",
        "often",
        "always",
        "never",
        "sometimes",
        "mostly",
        "actually",
        "recently",
        "finally",
        "just",
        "currently",
        "now",
        "even",
    ]
)
# Words after "I" that open hedges, courtesies, requests or plans rather than facts.
_NOT_FACT = frozenset(
    [
        "think",
        "thought",
        "wanted",
        "wanna",
        "gotta",
        "won't",
        "wouldn't",
        "shouldn't",
        "couldn't",
        "guess",
        "wonder",
        "wondered",
        "hope",
        "mean",
        "feel",
        "know",
        "see",
        "agree",
        "understand",
        "suppose",
        "bet",
        "wish",
        "said",
        "told",
        "asked",
        "want",
        "need",
        "would",
        "'d",
        "will",
        "'ll",
        "should",
        "could",
        "might",
        "may",
        "must",
        "shall",
        "appreciate",
        "apologize",
        "apologise",
        "thank",
    ]
)
_BE_NOT_FACT = re.compile(
    r"^(?:not sure|sorry|glad|happy to|afraid|just|asking|wondering|thinking|curious|here|"
    r"back|fine|good|ok|okay|great|going to|gonna|trying|looking for|about to|done|ready|"
    r"so|super|really|very|totally|excited|thrilled|stoked|happy|sad|grateful|thankful|proud|"
    r"amazed|impressed|loving|enjoying|feeling|sure|certain|lucky|blessed|still)\b",
    re.IGNORECASE,
)
_HAVE_NOT_FACT = re.compile(r"^(?:a question|to\b|no idea|an idea|got to|been thinking)", re.I)
_IRREGULAR_PAST = frozenset(
    [
        "was",
        "were",
        "had",
        "got",
        "went",
        "grew",
        "bought",
        "took",
        "made",
        "met",
        "saw",
        "ran",
        "began",
        "became",
        "left",
        "came",
        "won",
        "lost",
        "found",
        "taught",
        "wrote",
        "read",
        "spent",
        "sold",
        "built",
        "drove",
        "flew",
        "gave",
        "kept",
        "knew",
        "paid",
        "put",
        "quit",
        "set",
        "slept",
        "spoke",
        "stood",
        "swam",
        "threw",
        "told",
        "understood",
        "woke",
        "wore",
        "felt",
        "heard",
        "brought",
        "caught",
        "fell",
        "held",
        "meant",
        "sent",
        "sat",
        "did",
        "ate",
        "drank",
        "chose",
        "forgot",
    ]
)
#: Negative contractions after "I" and their third-person forms.
_NEGATIVE = {
    "don't": "does not",
    "didn't": "did not",
    "haven't": "has not",
    "hadn't": "had not",
    "wasn't": "was not",
    "can't": "cannot",
}
_THIRD = {"have": "has", "do": "does", "go": "goes", "be": "is"}
_REFLEXIVE = (
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bmine\b", re.I), "theirs"),
    (re.compile(r"\bme\b", re.I), "them"),
    (re.compile(r"\bI'm\b"), "they're"),
    (re.compile(r"\bI was\b"), "they were"),
    (re.compile(r"\bI\b"), "they"),
)


def third_person(verb: str) -> str:
    """The third-person singular present of ``verb``; past tenses are returned unchanged.

    >>> [third_person(v) for v in ("live", "watch", "study", "have", "adopted", "went")]
    ['lives', 'watches', 'studies', 'has', 'adopted', 'went']
    """
    low = verb.lower()
    if low in _THIRD:
        return _THIRD[low]
    if low.endswith("ed") or low in _IRREGULAR_PAST:
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 1 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _rest(words: list[str]) -> str:
    text = " ".join(words)
    for pattern, repl in _REFLEXIVE:
        text = pattern.sub(repl, text)
    return text


def _verb_phrase(words: list[str]) -> str | None:
    """``eat meat`` -> ``eats meat``, ``really love jazz`` -> ``really loves jazz``."""
    i = 0
    while i < len(words) and (words[i].lower() in _ADVERBS or words[i].lower().endswith("ly")):
        i += 1
    if i >= len(words) or words[i].lower() in _NOT_FACT or not words[i].isalpha():
        return None
    verb = third_person(words[i])
    return " ".join([*words[:i], verb, _rest(words[i + 1 :])]).strip()


def _after_i(words: list[str]) -> str | None:
    """The rewrite of a sentence that began with "I" (``words`` follow it)."""
    if not words:
        return None
    head, rest = words[0].lower(), words[1:]
    if head in ("am", "'m"):
        body = " ".join(rest)
        return None if _BE_NOT_FACT.match(body) or not rest else f"User is {_rest(rest)}"
    if head == "was":
        return f"User was {_rest(rest)}" if rest else None
    if head in ("have", "'ve"):
        body = " ".join(rest)
        if not rest or _HAVE_NOT_FACT.match(body):
            return None
        return f"User has {_rest(rest)}"
    if head in _NEGATIVE:
        if not rest or (head == "can't" and rest[0].lower() in ("wait", "believe", "stop")):
            return None
        return f"User {_NEGATIVE[head]} {_rest(rest)}"
    if head in ("don't", "do") and rest and (head == "don't" or rest[0].lower() == "not"):
        tail = rest if head == "don't" else rest[1:]
        return f"User does not {_rest(tail)}" if tail else None
    if head == "cannot":
        return f"User cannot {_rest(rest)}" if rest else None
    if head == "can":
        return f"User can {_rest(rest)}" if rest else None
    if head == "no" and rest[:1] and rest[0].lower() == "longer":
        phrase = _verb_phrase(rest[1:])
        return f"User no longer {phrase}" if phrase else None
    phrase = _verb_phrase(words)
    return f"User {phrase}" if phrase else None


def _split_contraction(sentence: str) -> list[str]:
    text = re.sub(r"^I(['’])(m|ve|d|ll)\b", lambda m: "I '" + m.group(2), sentence)
    text = text.replace("’", "'")
    return text.split()


def statement_fact(sentence: str) -> str | None:
    """The third-person fact a first-person sentence states, or None.

    >>> statement_fact("Oh, I'm allergic to peanuts!")
    'User is allergic to peanuts'
    >>> statement_fact("My dog's name is Rex.")
    "User's dog's name is Rex"
    >>> statement_fact("I think it might rain") is None
    True
    """
    s = _LEAD.sub("", sentence.strip()).strip()
    if not s or s.endswith("?"):
        return None
    s = s.rstrip(".!;: ").strip()
    words = _split_contraction(s)
    if len(words) < 2:
        return None
    first = words[0]
    if first == "I":
        return _after_i(words[1:])
    if first.lower() == "my" and len(words) >= 3:
        return f"User's {_rest(words[1:])}"
    return None


def extract_facts(text: str, max_facts: int, min_chars: int, max_chars: int) -> list[str]:
    """Up to ``max_facts`` distinct first-person facts of a user message, in order."""
    out: list[str] = []
    for sentence in sentences(text):
        fact = statement_fact(sentence)
        if fact is None or not min_chars <= len(fact) <= max_chars or fact in out:
            continue
        out.append(fact)
        if len(out) >= max_facts:
            break
    return out


_KEYED = re.compile(
    r"^User (?:(?P<home>lives in|lives at|moved to|relocated to)"
    r"|(?P<employer>works at|works for)|(?P<job>works as)|(?P<origin>is from|comes from)"
    r"|(?P<studies>studies)) (?P<value>.+)$",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"^User's (?P<np>.+?) (?:is|are|was|were) (?P<value>.+)$", re.I)
_COUNT = re.compile(
    r"^User has (?P<value>\d+|no|one|two|three|four|five|six|seven|eight|nine|ten) (?P<np>\w+)$",
    re.IGNORECASE,
)


def subject_key(fact: str) -> tuple[str, str] | None:
    """What a fact is about and the value it gives, when a known pattern says so.

    >>> subject_key("User's favourite colour is green")
    ("'s favourite colour", 'green')
    >>> subject_key("User moved to Berlin")
    ('home', 'Berlin')
    >>> subject_key("User likes jazz") is None
    True
    """
    text = fact.strip().rstrip(".")
    m = _POSSESSIVE.match(text)
    if m:
        return "'s " + m["np"].lower(), m["value"]
    m = _KEYED.match(text)
    if m:
        key = next(k for k in ("home", "employer", "job", "origin", "studies") if m[k])
        return key, m["value"]
    m = _COUNT.match(text)
    if m:
        return "has " + m["np"].lower().rstrip("s"), m["value"].lower()
    return None


_NEGATION = re.compile(
    r"^User (?:no longer (?P<a>.+)|does not (?P<b>.+?) any ?more|stopped (?P<c>\w+ing .+))$",
    re.IGNORECASE,
)


def negated_statement(fact: str) -> str | None:
    """For a fact that withdraws an earlier one, the earlier fact's likely wording.

    >>> negated_statement("User no longer eats meat")
    'User eats meat'
    >>> negated_statement("User does not live in Paris anymore")
    'User lives in Paris'
    """
    m = _NEGATION.match(fact.strip().rstrip("."))
    if m is None:
        return None
    if m["a"]:
        return f"User {m['a']}"
    if m["b"]:
        words = m["b"].split()
        return f"User {third_person(words[0])} {' '.join(words[1:])}".strip()
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
