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

from mnemo.text import fact_screen
from mnemo.text.sentences import sentences

_LEAD = re.compile(
    r"^(?:(?:well|oh|so|also|actually|btw|and|but|yeah|yes|no|ok|okay|hey|hi|fyi|anyway|"
    r"by the way|just so you know|fun fact)[,!:]?\s+)+",
    re.IGNORECASE,
)
_ADVERBS = frozenset({
    "really", "also", "still", "usually", "often", "always", "never", "sometimes", "mostly",
    "actually", "recently", "finally", "just", "currently", "now", "even",
})  # fmt: skip
# Words after "I" that open hedges, courtesies, requests or plans rather than facts.
_NOT_FACT = frozenset({
    "think", "thought", "wanted", "wanna", "gotta", "won't", "wouldn't", "shouldn't",
    "couldn't", "guess", "wonder", "wondered", "hope", "mean", "feel", "know", "see", "agree",
    "understand", "suppose", "bet", "wish", "said", "told", "asked", "want", "need", "would",
    "'d", "will", "'ll", "should", "could", "might", "may", "must", "shall", "appreciate",
    "apologize", "apologise", "thank", "imagine", "picture", "relate", "recommend", "suggest",
    "encourage", "felt", "hear", "promise",
})  # fmt: skip
#: Verbs that, before these words, acknowledge the listener ("I get it", "I can see why").
_ACK_VERBS = frozenset(["get", "see", "understand", "totally", "remember"])
_ACK_OBJECTS = frozenset(["it", "how", "why", "what", "that", "where", "where's", "you"])
#: Words after "can" / "can't" that make a courtesy or empathy, not an ability.
_CAN_NOT_FACT = frozenset({
    "imagine", "see", "picture", "tell", "relate", "understand", "only", "totally",
    "definitely", "feel", "hear", "wait", "believe", "stop", "thank",
})  # fmt: skip
#: Common verbs in their base form: a word before one is an adverb ("I absolutly love").
_BASE_VERBS = frozenset({
    "love", "like", "enjoy", "hate", "adore", "want", "need", "have", "know", "think",
    "believe", "prefer", "live", "work", "play",
})  # fmt: skip
_BE_NOT_FACT = re.compile(
    r"^(?:not sure|sorry|glad|happy to|afraid|just|asking|wondering|thinking|curious|here|"
    r"back|fine|good|ok|okay|great|going to|gonna|trying to|looking for|about to|done|ready|"
    r"so|super|really|very|totally|excited|thrilled|stoked|happy|sad|grateful|thankful|proud|"
    r"amazed|impressed|loving|enjoying|feeling|sure|certain|lucky|blessed|still|off|in awe|"
    r"all ears|on it|there for|around for|always here|always around|always there|nervous|"
    r"elated|relieved|scared|worried|bored|surprised|shocked|touched|moved|blown away)\b",
    re.IGNORECASE,
)
#: Adverbs read past before :data:`_BE_NOT_FACT` ("I'm always here for you").
_BE_ADVERBS = frozenset(["always", "also", "just", "still", "definitely", "currently", "now"])
_HAVE_NOT_FACT = re.compile(r"^(?:a question|to\b|no idea|an idea|got to|been thinking)", re.I)
_IRREGULAR_PAST = frozenset({
    "was", "were", "had", "got", "went", "grew", "bought", "took", "made", "met", "saw", "ran",
    "began", "became", "left", "came", "won", "lost", "found", "taught", "wrote", "read",
    "spent", "sold", "built", "drove", "flew", "gave", "kept", "knew", "paid", "put", "quit",
    "set", "slept", "spoke", "stood", "swam", "threw", "told", "understood", "woke", "wore",
    "felt", "heard", "brought", "caught", "fell", "held", "meant", "sent", "sat", "did", "ate",
    "drank", "chose", "forgot", "drew", "blew", "broke", "dug", "fed", "fought", "forgave",
    "froze", "hid", "hung", "led", "lent", "lit", "rode", "rang", "rose", "sang", "sank",
    "shook", "shot", "shut", "slid", "stole", "stuck", "struck", "swore", "swept", "swung",
    "tore", "wept", "wound", "bent", "bled", "clung", "crept", "dealt", "dreamt", "fled",
    "flung", "knelt", "leapt", "learnt", "overcame", "rebuilt", "shone", "spun", "split",
    "spread", "sought", "stank", "withdrew", "beat", "bit", "burnt", "sped", "undertook",
    "upheld", "woven", "mistook", "misunderstood", "outgrew", "oversaw", "overtook",
})  # fmt: skip
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
    (re.compile(r"(?<![\w-])me(?![\w-])", re.I), "them"),
    (re.compile(r"\bI'm\b"), "they're"),
    (re.compile(r"\bI am\b"), "they are"),
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


def _is_adverb(words: list[str], i: int) -> bool:
    low = words[i].lower()
    if low in _ADVERBS or low.endswith("ly"):
        return True
    nxt = words[i + 1].lower() if i + 1 < len(words) else ""
    return nxt in _BASE_VERBS and low not in _BASE_VERBS and low not in _NOT_FACT


def _verb_phrase(words: list[str]) -> str | None:
    """``eat meat`` -> ``eats meat``, ``really love jazz`` -> ``really loves jazz``."""
    i = 0
    while i < len(words) and _is_adverb(words, i):
        i += 1
    if i >= len(words) or words[i].lower() in _NOT_FACT or not words[i].isalpha():
        return None
    low = words[i].lower()
    nxt = words[i + 1].lower() if i + 1 < len(words) else ""
    if low in _ACK_VERBS and (nxt in _ACK_OBJECTS or not nxt):
        return None
    verb = third_person(words[i])
    return " ".join([*words[:i], verb, _rest(words[i + 1 :])]).strip()


def _being(verb: str, rest: list[str]) -> str | None:
    """``User is ...`` / ``User was ...``, or None for a feeling, a plan or a courtesy."""
    body = " ".join(w for w in rest if w.lower() not in _BE_ADVERBS)
    if not rest or _BE_NOT_FACT.match(body) or _BE_NOT_FACT.match(" ".join(rest)):
        return None
    return f"User {verb} {_rest(rest)}"


def _after_i(words: list[str]) -> str | None:
    """The rewrite of a sentence that began with "I" (``words`` follow it); leading adverbs
    ("I still can't believe", "I really don't eat meat") stay after "User"."""
    i = 0
    while i < len(words) - 1 and _is_adverb(words, i) and words[i + 1].lower() != "not":
        i += 1
    if i and words[i].lower() not in _AUXILIARIES:
        i = 0  # "I really love jazz": the verb phrase keeps its adverbs
    fact = _after_i_verb(words[i:])
    if fact is None or not i:
        return fact
    return f"User {' '.join(words[:i])} {fact[len('User ') :]}"


_AUXILIARIES = frozenset({
    "am", "'m", "was", "have", "'ve", "can", "cannot", "can't", "don't", "didn't", "haven't",
    "hadn't", "wasn't", "do", "no",
})  # fmt: skip


def _first_word(words: list[str]) -> str:
    """The first word of ``words`` that is not an adverb, lower case ("" when none)."""
    return next((w.lower() for i, w in enumerate(words) if not _is_adverb(words, i)), "")


def _after_i_verb(words: list[str]) -> str | None:
    if not words:
        return None
    head, rest = words[0].lower(), words[1:]
    if head in ("am", "'m"):
        return _being("is", rest)
    if head == "was":
        return _being("was", rest)
    if head in ("have", "'ve"):
        body = " ".join(rest)
        if not rest or _HAVE_NOT_FACT.match(body):
            return None
        return f"User has {_rest(rest)}"
    if head in _NEGATIVE:
        if not rest or (head == "can't" and _first_word(rest) in _CAN_NOT_FACT):
            return None
        return f"User {_NEGATIVE[head]} {_rest(rest)}"
    if head in ("don't", "do") and rest and (head == "don't" or rest[0].lower() == "not"):
        tail = rest if head == "don't" else rest[1:]
        return f"User does not {_rest(tail)}" if tail else None
    if head == "do" and _first_word(rest) in _BASE_VERBS:  # emphatic: "I do love jazz"
        phrase = _verb_phrase(rest)
        return f"User {phrase}" if phrase else None
    if head in ("cannot", "can"):
        if not rest or _first_word(rest) in _CAN_NOT_FACT:
            return None
        return f"User {head} {_rest(rest)}"
    if head == "no" and rest[:1] and rest[0].lower() == "longer":
        phrase = _verb_phrase(rest[1:])
        return f"User no longer {phrase}" if phrase else None
    phrase = _verb_phrase(words)
    return f"User {phrase}" if phrase else None


def _split_contraction(sentence: str) -> list[str]:
    text = re.sub(r"^I(['’])(m|ve|d|ll)\b", lambda m: "I '" + m.group(2), sentence)
    text = text.replace("’", "'")
    return text.split()


#: "My sister and I went ..." -- the speaker and someone of theirs, together.
_WITH_I = re.compile(r"^my ((?:\w+[\s-]){0,2}?\w+) and I (\w.+)$", re.IGNORECASE)
#: A verb near the start of a "My ..." sentence: without one it is a fragment ("My family,
#: exercise, and friends").
_MY_VERB = re.compile(
    r"^my(?: [\w'-]+){1,5}? (?:is|are|was|were|has|have|had|does|did|can|will|would|'s|"
    r"\w+ed|\w+s)\b",
    re.IGNORECASE,
)


def _about_my(s: str, words: list[str]) -> str | None:
    m = _WITH_I.match(s)
    if m:
        return f"User and their {_rest(m[1].split())} {_rest(m[2].split())}"
    if len(words) < 3 or not _MY_VERB.match(s):
        return None
    return f"User's {_rest(words[1:])}"


#: Words that say nothing on their own: a fact needs one word that is not one of these.
_EMPTY = frozenset({
    "i", "i'm", "i've", "i'll", "i'd", "me", "my", "myself", "a", "an", "the", "and", "or",
    "but", "of", "to", "in", "on", "at", "for", "with", "as", "so", "too", "also", "well",
    "really", "just", "still", "even", "always", "never", "very", "much", "many", "lot", "lots",
    "some", "something", "anything", "everything", "nothing", "thing", "things", "special",
    "good", "great", "fine", "ok", "okay", "thanks", "cheers", "doing", "going", "feeling",
    "trying", "getting", "hoping", "fan", "huge", "big", "do", "does", "did", "done", "be",
    "been", "being", "is", "am", "are", "was", "were", "have", "has", "had", "not", "no", "yes",
    "see", "why", "how", "what", "it", "this", "that", "there", "here", "all", "again",
    "though", "now", "then", "either", "more",
})  # fmt: skip


def _says_something(s: str) -> bool:
    return any(w not in _EMPTY for w in re.findall(r"[a-z][a-z'-]*", s.lower()))


def statement_fact(sentence: str) -> str | None:
    """The third-person fact a first-person sentence states, or None.

    The sentence is first cleaned and cut to its first statement, and refused when it talks
    about the listener or its point is an unresolved pronoun (:mod:`mnemo.text.fact_screen`).

    >>> statement_fact("Oh, I'm allergic to peanuts!")
    'User is allergic to peanuts'
    >>> statement_fact("My dog's name is Rex.")
    "User's dog's name is Rex"
    >>> statement_fact("I think it might rain") is None
    True
    >>> statement_fact("I love that you chose pottery for your art.") is None
    True
    """
    s = fact_screen.clean(_LEAD.sub("", sentence.strip()).strip())
    s = _LEAD.sub("", s).strip()
    if not s or s.endswith("?"):
        return None
    s = fact_screen.before_listener(s)
    if not s or fact_screen.addresses_listener(s):
        return None
    s = s.rstrip(".!;:… ").strip()
    if fact_screen.unresolved(s) or not _says_something(s):
        return None
    words = _split_contraction(s)
    if len(words) < 2:
        return None
    first = words[0]
    if first == "I":
        return _after_i(words[1:])
    if first.lower() == "my":
        return _about_my(s, words)
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
