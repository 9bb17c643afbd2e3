"""Rule-based profile extraction: first-person statements to structured facts, no LLM.

Each :class:`Pattern` is a regular expression over one sentence, the category and key it
yields, how its value is read, and a confidence. Confidences follow `tiered`'s example
("My name is Alex" 1.0, "Call me Al" 0.6, "My full name is Alexander" 0.95) and, for the
other patterns, the precision measured on LoCoMo (``bench/rules_extraction.py``,
docs/profile.md), rounded and capped below the explicit self-introductions.

Sentences that are questions, conditionals or reported speech yield nothing; negations do not
match because every pattern spells its affirmative form ("I'm not allergic" is not "I'm
allergic").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mnemo.text.apostrophes import straight
from mnemo.text.sentences import sentences
from mnemo.text.state_endings import FIRST, clauses, endings, withdrawn

#: Words that end a captured value ("I live in Paris and work ..." -> "Paris").
_VALUE_END = re.compile(
    r"\s*(?:[.,;:!?()\"\n]|\s-\s|\b(?:and|but|because|so|since|which|who|where|when|while|"
    r"though|although|with|for|now|too|as well|as|right now|these days|lately|anymore|last|next|"
    r"yesterday|today|recently|ago|since|until|in \d{4})\b)",
    re.IGNORECASE,
)
_SKIP_START = re.compile(r"^\s*(?:if|when|whether|do|does|did|would|could|should|can|what)\b", re.I)
_REPORTED = re.compile(r"\b(?:said|says|told|asked|thinks|believes)\b[^.]*$", re.IGNORECASE)
_PRONOUNS = {
    "it", "this", "that", "these", "those", "them", "you", "your", "him", "her", "his",
    "their", "they", "me", "myself", "what", "which", "something", "anything", "everything",
    "nothing", "one", "some", "doing", "going", "being", "to", "how", "when", "where", "why",
    "is", "was", "are", "were", "so", "too", "much", "seeing", "hearing", "that's", "it's",
}  # fmt: skip
#: Verbs that make "always ..." / "never ..." a standing instruction to the assistant.
_INSTRUCTION_VERBS = (
    r"answer|reply|respond|use|write|format|include|explain|keep|speak|talk|call|address|"
    r"remind|show|give\s+me|start|end|cite|add|avoid|mention|refer|translate|summari[sz]e|ask|"
    r"check|double-check|put|list|be"
)
_NOT_NAMES = {
    "back", "later", "tomorrow", "today", "tonight", "anytime", "crazy", "old", "maybe",
    "whenever", "when", "if", "on", "at", "in", "a", "an", "the", "not", "sure", "lucky",
    "naive", "silly", "weird", "out", "up", "now", "soon", "again", "please", "sometime",
}  # fmt: skip
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-\.]*")

Reader = Callable[[str], str | None]


@dataclass(frozen=True)
class Candidate:
    """One structured fact read from a sentence, before validation and conflict rules."""

    category: str
    key: str
    value: str
    confidence: float
    importance: float
    pattern: str
    sentence: str
    #: True for a statement that ends the state of (category, key) with no new value ("I
    #: quit my job"); ``value`` is then what ended, or "" when the statement names nothing.
    ended: bool = False


@dataclass(frozen=True)
class Pattern:
    """A first-person pattern: ``regex`` captures the value's start in group ``v``."""

    name: str
    regex: re.Pattern[str]
    category: str
    key: str  # a fixed key, or a template with {v} (slug of the value) / {g} (group ``g``)
    confidence: float
    importance: float
    read: Reader


def slug(text: str, words: int = 3) -> str:
    """A key fragment: the first ``words`` words of ``text``, lower case, joined by ``_``."""
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    tokens = [t for t in tokens if t not in {"a", "an", "the", "my", "some"}] or tokens
    return "_".join(tokens[:words])


def clause(text: str, max_words: int = 8) -> str | None:
    """The value at the start of ``text``: up to a boundary word or punctuation, at most
    ``max_words`` words; None when empty or when it starts with a pronoun."""
    cut = _VALUE_END.search(text)
    value = (text[: cut.start()] if cut else text).strip(" '\"")
    words = value.split()
    if not words or len(words) > max_words or words[0].lower() in _PRONOUNS:
        return None
    return value


def name(text: str, lower_ok: bool = False) -> str | None:
    """A person's name at the start of ``text``: 1-3 name-like words, capitalised unless
    ``lower_ok`` (then title-cased)."""
    out = []
    for tok in _TOKEN.findall(clause(text, 6) or "")[:3]:
        if tok.lower() in _NOT_NAMES or not (tok[0].isupper() or lower_ok):
            break
        out.append(tok.rstrip("."))
    if not out:
        return None
    return " ".join(t if t[0].isupper() else t.title() for t in out)


def place(text: str) -> str | None:
    """A capitalised place name at the start of ``text`` ("New York City", "the Bay Area")."""
    value = clause(text, 5)
    if value is None:
        return None
    words = value.split()
    body = words[1:] if words[0].lower() == "the" else words
    if not body or not body[0][:1].isupper():
        return None
    return value


def noun(text: str) -> str | None:
    """A short noun phrase (1-5 words) at the start of ``text``."""
    return clause(text, 5)


def _p(
    name_: str,
    regex: str,
    category: str,
    key: str,
    confidence: float,
    importance: float,
    read: Reader = noun,
) -> Pattern:
    return Pattern(
        name_, re.compile(regex, re.IGNORECASE), category, key, confidence, importance, read
    )


_I_AM = r"\bI(?:'m|\s+am)\s+"
#: The words for a partner ("my husband Raj", "my girlfriend's name is Alex").
_PARTNERS = r"(?:wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|spouse)"
#: The diets a person keeps (a state: "I'm vegetarian", later "I'm vegan now").
DIETS = (
    r"vegetarian|vegan|pescatarian|gluten[- ]free|lactose[- ]intolerant|kosher|halal|celiac|"
    r"diabetic"
)
PATTERNS: tuple[Pattern, ...] = (
    _p("full_name", r"\bmy\s+(?:full|legal)\s+name\s+is\s+(?P<v>.+)", "identity", "name",
       0.95, 0.9, lambda t: name(t, True)),
    _p("my_name", r"\bmy\s+name(?:\s+is|'s)\s+(?P<v>.+)", "identity", "name", 1.0, 0.9,
       lambda t: name(t, True)),
    _p("call_me", r"\b(?:you\s+can\s+|please\s+|just\s+)?call\s+me\s+(?P<v>.+)", "identity",
       "name", 0.6, 0.9, name),
    _p("pronouns", r"\bmy\s+pronouns\s+are\s+(?P<v>.+)", "identity", "pronouns", 0.95, 0.8),
    _p("age", _I_AM + r"(?P<v>\d{1,3})\s+years?\s+old\b", "identity", "age", 0.9, 0.6),
    _p("birthday", r"\bmy\s+birthday\s+is\s+(?P<v>.+)", "identity", "birthday", 0.9, 0.6),
    _p("live_in", r"\b(?:I|we)\s+(?:currently\s+|now\s+)?live\s+in\s+(?P<v>.+)", "identity",
       "location", 0.85, 0.7, place),
    _p("based_in", _I_AM + r"(?:based|living)\s+in\s+(?P<v>.+)", "identity", "location",
       0.8, 0.7, place),
    _p("moved_to", r"\b(?:I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?"
       r"(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<v>.+)",
       "identity", "location", 0.75, 0.7, place),
    _p("from", _I_AM + r"(?:originally\s+)?from\s+(?P<v>.+)", "identity", "hometown", 0.8,
       0.6, place),
    _p("work_as", r"\b(?:I|and)\s+work\s+as\s+(?:an?\s+)?(?P<v>.+)", "identity", "occupation", 0.85,
       0.7),
    _p("job_is", r"\bmy\s+(?:job|profession|occupation)\s+is\s+(?:an?\s+)?(?P<v>.+)",
       "identity", "occupation", 0.85, 0.7),
    _p("work_at", r"\bI(?:'m|\s+am)?\s+(?:now\s+)?work(?:ing)?\s+(?:at|for)\s+(?P<v>.+)",
       "identity", "employer", 0.8, 0.6, place),
    _p("new_job", r"\bI(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:started\s+"
       r"(?:working|a\s+(?:new\s+)?job)\s+(?:at|for|with)|got\s+a\s+(?:new\s+)?job\s+(?:at|with)|"
       r"took\s+a\s+job\s+at|joined|(?:got|was|have\s+been|'ve\s+been)\s+hired\s+(?:at|by))\s+"
       r"(?P<v>[A-Z].+)", "identity", "employer", 0.8, 0.6, place),
    _p("became", r"\bI(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:became|started\s+"
       r"working\s+as|got\s+a\s+(?:new\s+)?job\s+as)\s+(?:an?\s+)?(?!(?:" + DIETS + r")\b)"
       r"(?P<v>.+)", "identity", "occupation", 0.8, 0.7),
    _p("speak", r"\bI\s+speak\s+(?P<v>.+)", "identity", "languages", 0.8, 0.6, place),
    _p("studying", _I_AM + r"(?:studying|majoring\s+in)\s+(?P<v>.+)", "identity",
       "studies", 0.75, 0.6),
    _p("status", _I_AM + r"(?:happily\s+)?(?P<v>married|single|divorced|engaged|widowed)\b",
       "identity", "relationship_status", 0.85, 0.6),
    _p("status_change", r"\bI\s+(?:just\s+|recently\s+|finally\s+)?got\s+(?P<v>married|divorced|"
       r"engaged)\b", "identity", "relationship_status", 0.85, 0.6),
    _p("partner_name", r"\bmy\s+(?:new\s+)?" + _PARTNERS + r"(?:'s\s+name\s+is|\s+is\s+(?:named|"
       r"called))\s+(?P<v>.+)", "identity", "partner", 0.9, 0.6, name),
    _p("my_partner", r"\bmy\s+(?:new\s+)?" + _PARTNERS + r",?\s+(?P<v>[A-Z]\w+\b(?!'s).*)",
       "identity", "partner", 0.8, 0.6, name),
    _p("partner", r"\bI(?:'m|\s+am|(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:got|"
       r"been))\s+(?:now\s+)?(?:dating|going\s+out\s+with|married\s+to|engaged\s+to|in\s+a\s+"
       r"relationship\s+with)\s+(?P<v>.+)", "identity", "partner", 0.8, 0.6, name),
    _p("relative_name", r"\bmy\s+(?P<g>son|daughter|mom|mother|dad|father|brother|sister|dog|"
       r"cat|puppy|kitten)(?:'s\s+name\s+is|\s+is\s+(?:named|called))\s+(?P<v>.+)", "identity",
       "{g}_name", 0.9, 0.6, name),
    _p("have_n", r"\bI\s+have\s+(?P<v>(?:\d+|one|two|three|four|five|six)\s+(?P<g>kids|"
       r"children|sons|daughters|dogs|cats|pets|siblings|brothers|sisters))\b", "identity",
       "{g}", 0.8, 0.5),
    _p("allergic", _I_AM + r"(?:severely\s+|very\s+)?allergic\s+to\s+(?P<v>.+)",
       "constraint", "allergy_{v}", 0.95, 0.95),
    _p("allergy", r"\bI\s+have\s+(?:an?\s+|a\s+severe\s+)?(?P<v>[\w-]+(?:\s[\w-]+)?)\s+"
       r"allergy\b", "constraint", "allergy_{v}", 0.9, 0.95),
    _p("diet", r"\bI(?:'m|\s+am|\s+went|\s+became|\s+turned|(?:'ve|\s+have)\s+(?:gone|become))\s+"
       r"(?:now\s+)?(?:an?\s+|strictly\s+|mostly\s+|fully\s+)?(?P<v>" + DIETS + r")\b",
       "constraint", "diet", 0.9, 0.9),
    _p("dont_eat", r"\bI\s+(?:don't|do\s+not|never|can't|cannot)\s+eat\s+(?P<v>.+)",
       "constraint", "avoid_{v}", 0.8, 0.8),
    _p("timezone", r"\bmy\s+time\s*zone\s+is\s+(?P<v>.+)", "preference", "timezone", 0.95, 0.7),
    _p("favorite", r"\bmy\s+(?:all-time\s+)?favou?rite\s+(?P<g>[a-z]+(?:\s[a-z]+)?)\s+"
       r"(?:is|are)\s+(?P<v>.+)", "preference", "favorite_{g}", 0.85, 0.5),
    _p("prefer", r"\bI\s+(?:usually\s+|generally\s+|always\s+)?prefer\s+(?P<v>.+)",
       "preference", "prefers_{v}", 0.7, 0.6),
    _p("love", r"\bI\s+(?:really\s+|absolutely\s+|just\s+)?(?:love|adore|enjoy)\s+(?P<v>.+)",
       "preference", "likes_{v}", 0.5, 0.4),
    _p("fan", _I_AM + r"(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\s+(?P<v>.+)", "preference",
       "likes_{v}", 0.6, 0.4),
    _p("hate", r"\bI\s+(?:really\s+)?(?:hate|dislike|can't\s+stand|detest)\s+(?P<v>.+)",
       "preference", "dislikes_{v}", 0.6, 0.5),
    _p("instruction", r"^(?:please\s+)?(?:always|never|from\s+now\s+on,?|don't\s+ever)\s+"
       rf"(?P<v>(?:{_INSTRUCTION_VERBS})\b.+)", "instruction", "{v}", 0.75, 0.8,
       lambda t: clause(t, 12)),
    _p("pet_named", r"\bI\s+(?:have|(?:just\s+)?(?:got|adopted))\s+an?\s+(?P<g>dog|cat|puppy|"
       r"kitten|parrot|rabbit|hamster)\s+(?:named|called)\s+(?P<v>.+)", "identity", "{g}_name",
       0.85, 0.6, name),
    _p("i_am_a", _I_AM + r"(?:also\s+)?an?\s+(?!(?:big|huge|bit|little|lot|fan|great|good|"
       r"real|total|kind|sort|part|" + DIETS
       + r")\b)(?P<v>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})\s*(?:[.,!;]|$)",
       "identity", "is_{v}", 0.5, 0.4),
)  # fmt: skip


def _usable(sentence: str, start: int) -> bool:
    """False for questions, conditionals and reported speech before the match."""
    if sentence.rstrip().endswith("?") or _SKIP_START.match(sentence):
        return False
    before = sentence[:start]
    return not (_REPORTED.search(before) or before.count('"') % 2 == 1)


def _key(pattern: Pattern, value: str, match: re.Match[str]) -> str:
    group = match.groupdict().get("g") or ""
    key = pattern.key.replace("{g}", slug(group)).replace("{v}", slug(value))
    return key.strip("_") or pattern.name


def extract_profile(text: str) -> list[Candidate]:
    """Profile candidates in ``text``: every pattern on every sentence, one candidate per
    (category, key) (the most confident; the first on ties), in order of appearance."""
    found: dict[tuple[str, str], Candidate] = {}
    for sentence in sentences(straight(text)):
        _read(sentence, found)
    return list(found.values())


def _read(sentence: str, found: dict[tuple[str, str], Candidate], ended: bool = False) -> None:
    """Every pattern over one sentence into ``found``, the most confident per slot."""
    for pattern in PATTERNS:
        for match in pattern.regex.finditer(sentence):
            if not _usable(sentence, match.start()):
                continue
            value = pattern.read(match.group("v"))
            if value is None:
                continue
            cand = Candidate(
                category=pattern.category,
                key=_key(pattern, value, match),
                value=value,
                confidence=pattern.confidence,
                importance=pattern.importance,
                pattern=pattern.name,
                sentence=sentence,
                ended=ended,
            )
            slot = (cand.category, cand.key)
            if slot not in found or found[slot].confidence < cand.confidence:
                found[slot] = cand


#: The profile slots a state ending ends (:mod:`mnemo.text.state_endings`' keys): category,
#: key, and whether a value the ending names must match the slot's (a partner's name must;
#: "I broke up with Sam" ends a relationship status whatever it was).
ENDED_SLOTS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "employer": (("identity", "employer", True),),
    "home": (("identity", "location", True),),
    "partner": (("identity", "partner", True), ("identity", "relationship_status", False)),
}
#: A state ending's confidence and importance (it is as sure as the statement it ends).
_ENDED_CONFIDENCE, _ENDED_IMPORTANCE = 0.8, 0.6


def extract_endings(text: str) -> list[Candidate]:
    """The states ``text`` says ended, as candidates with ``ended`` set, one per slot:
    an ending verb ("I quit my job at Acme": the employer, value "Acme"; "We broke up": the
    partner and the relationship status, value "") or a frame withdrawing what a pattern
    reads ("I used to live in Austin": the location Austin; "I'm not vegetarian anymore":
    the diet vegetarian). Questions, conditionals and reported speech end nothing.
    """
    found: dict[tuple[str, str], Candidate] = {}
    for sentence in sentences(text):
        if not _usable(sentence, 0):
            continue
        for part in clauses(sentence, FIRST):
            said = withdrawn(part, FIRST)
            if said is not None:
                _read(said, found, ended=True)
            for ending in endings(part, FIRST):
                for category, key, named in ENDED_SLOTS.get(ending.key, ()):
                    value = ending.value if named and ending.value else ""
                    found.setdefault(
                        (category, key),
                        Candidate(
                            category,
                            key,
                            value,
                            _ENDED_CONFIDENCE,
                            _ENDED_IMPORTANCE,
                            f"ended_{ending.key}",
                            sentence,
                            ended=True,
                        ),
                    )
    return list(found.values())


#: Keys of states that change over time: a later statement replaces an earlier one whatever
#: the two patterns' confidences ("I live in Berlin" 0.85, later "I just moved to Paris" 0.75).
CHANGING_KEYS = frozenset(
    [
        "location",
        "employer",
        "occupation",
        "relationship_status",
        "partner",
        "studies",
        "timezone",
        "diet",
    ]
)

__all__ = [
    "CHANGING_KEYS",
    "DIETS",
    "ENDED_SLOTS",
    "PATTERNS",
    "Candidate",
    "Pattern",
    "clause",
    "extract_endings",
    "extract_profile",
    "sentences",
    "slug",
]
