"""What the fact rules cut from a sentence, and the sentences they refuse, before rewriting.

Measured on hand-labelled rule facts of real conversation turns (docs/facts.md), most wrong
rule facts were not about the speaker at all, or said nothing without the turn around them:

* talk about the person addressed: a sentence with "you"/"your" ("I love that you chose
  pottery", "I'm always here for you") is about the listener, or is a courtesy;
* a vocative ("..., Mel") is dropped from the end; a tag question ("..., huh?") too;
* commentary after a dash or a new clause ("I won the tournament - so exciting!", "I love
  sci-fi, it's a great escape") is cut: the fact keeps the statement;
* a statement whose point is an unresolved pronoun ("I made it in class", "I love them",
  "I've been there") says nothing once it is read without its turn.

Every rule here reads one sentence and knows no names: a vocative is a capitalised word after
a comma that follows a lower-case word ("..., Mel" but not "Portland, Oregon").
"""

from __future__ import annotations

import re

from mnemo.text.apostrophes import straight

#: Bracketed annotations ("[image: a photo of ...]") are not part of what was said.
_BRACKETS = re.compile(r"\s*\[[^\]]*\]")
#: Markdown emphasis around words ("**Boho Chic**", "*The Hobbit*", "__Tolkien__", "`vim`").
_EMPHASIS = re.compile(r"(\*\*|__|(?<![\w*])\*|(?<![\w_])_|`)(?=\S)(.+?)(?<=\S)\1(?![\w*])")
#: A tag question at the end turns a statement into a question only in form.
_TAG = re.compile(
    r",?\s+(?:huh|right|eh|yeah|no|isn't it|don't you think|you know|btw|lol|haha|tbh)"
    r"\s*[?!.]*$",
    re.I,
)
#: Words a speaker calls the listener by, lower case.
_CALLS = r"guys|man|buddy|pal|dude|bro|mate|friend|girl|folks|everyone|all|babe|dear|sis"
_VOCATIVE = re.compile(
    rf"(?:(?<=\s)|^)(?P<word>[a-z0-9][\w'’]*)\s*,\s+"
    rf"(?:(?:[A-Z][\w'’-]*)(?:\s+[A-Z][\w'’-]*)?|(?:{_CALLS}))\s*[.!]*$"
)
#: Where a sentence's first statement ends: a dash, or a comma before a new clause.
_CLAUSE_END = re.compile(
    r"\s*[–—]\s*|\s+-+\s*|(?<=\w)-+\s+"
    r"|,\s+(?=(?:and|but|which|because|though|although|plus|as|while|yet|since|"
    r"I|I'm|I've|I'll|I'd|it|it's|he|she|they|they're|we|we're|this|that|that's|there|"
    r"there's|here|here's|take|check|look|see)\b)",
    re.IGNORECASE,
)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|yourselves|ya|y'all)\b", re.I)
#: Pronouns that always leave a statement's point unresolved when they are its object.
_OBJECT_PRONOUNS = frozenset(["it", "them", "him", "her", "his", "hers"])
_DEMONSTRATIVES = frozenset(["this", "that", "these", "those"])
#: Words after "it" that make it a subject ("it was fun"), not the thing the statement is about.
_IT_SUBJECT = frozenset({
    "'s", "is", "was", "has", "had", "will", "would", "can", "could", "does", "did", "might",
    "may", "must", "seems", "looks", "feels", "makes", "gets", "helps", "takes", "felt", "made",
    "became", "turned", "keeps",
})  # fmt: skip
#: Words after a demonstrative that show it stands alone ("I love that!", "I made this at").
_AFTER_BARE = frozenset({
    "at", "in", "on", "for", "to", "with", "because", "as", "so", "too", "yet", "now", "again",
    "up", "out", "is", "was", "are", "were", "'s", "last", "yesterday", "today", "and", "but",
    "when", "while", "after", "before", "from", "of", "like", "since", "really", "all",
})  # fmt: skip
#: After "that", only a preposition shows it stands alone ("a book that really moved me" is a
#: relative clause, "I learned that ..." a conjunction).
_AFTER_THAT = frozenset(["at", "in", "on", "for", "with", "from", "of"])
#: Words after "there" that make it existential ("there is") or idiomatic ("there for me").
_AFTER_THERE = frozenset(["is", "are", "was", "were", "'s", "will", "have", "has", "for"])
_TOKEN = re.compile(r"[A-Za-z'’]+|,")
#: Words that end a statement's main clause: what follows is not what it is about.
_MAIN_END = frozenset({
    ",", "and", "but", "because", "so", "when", "while", "which", "who", "since", "after",
    "before", "if", "until", "as", "though",
})  # fmt: skip


def tidy(sentence: str) -> str:
    """``sentence`` without bracketed notes, markdown emphasis (``**Boho Chic**``), a closing
    tag question or a vocative, with its curly apostrophes made straight
    (:mod:`mnemo.text.apostrophes`); it keeps its final ``?`` otherwise (the clause reader,
    :mod:`mnemo.text.parsed_facts`, starts here)."""
    s = _BRACKETS.sub("", _EMPHASIS.sub(r"\2", straight(sentence))).strip()
    s = _TAG.sub(".", s)
    return _VOCATIVE.sub(lambda m: m["word"], s).strip()


def clean(sentence: str) -> str:
    """``sentence`` tidied (:func:`tidy`) and cut to its first statement (see the module
    docstring); it keeps its final ``?`` otherwise."""
    s = tidy(sentence)
    cut = _CLAUSE_END.search(s)
    if cut is not None and cut.start() > 0:
        s = s[: cut.start()]
    return s.strip()


def addresses_listener(sentence: str) -> bool:
    """True when a sentence speaks of the person addressed ("you", "your")."""
    return bool(_SECOND_PERSON.search(sentence))


#: Where a clause that may turn to the listener begins ("I cook a lot, so tell me if you...").
_TURN = re.compile(r",\s+|\s+(?:while|because|but)\s+", re.IGNORECASE)


def before_listener(sentence: str) -> str:
    """``sentence`` up to the clause where it turns to the listener, when its first clause
    does not speak of them ("I took a road trip while you were winning" -> "I took a road
    trip"); unchanged when it never does, or already does in its first clause."""
    you = _SECOND_PERSON.search(sentence)
    if you is None:
        return sentence
    cuts = [m.start() for m in _TURN.finditer(sentence, 0, you.start())]
    return sentence[: cuts[-1]].strip() if cuts and cuts[-1] > 0 else sentence


def unresolved(sentence: str) -> bool:
    """True when the statement's point is a pronoun that only its turn resolves.

    "it", "them", "him", "her" as an object ("I made it", "I love them"), a demonstrative
    standing alone ("I love that", "I made this at school"), and "there" as a place ("I've
    been there", not "there is").
    Only the main clause counts: the words before a comma or a conjunction ("I love helping
    the community and making it better" is about helping the community). "like this" is a
    comparison, not an object.
    """
    words: list[str] = []
    for w in _TOKEN.findall(sentence):
        if words and w.lower() in _MAIN_END:
            break
        words.append(w.lower().replace("’", "'"))
    if _pointed_at(sentence, words) or words[-1:] == ["to"]:  # "I love to" (to what?)
        return True
    for i, w in enumerate(words[1:], start=1):
        nxt = words[i + 1] if i + 1 < len(words) else None
        if w in _OBJECT_PRONOUNS and not (w == "it" and nxt in _IT_SUBJECT):
            return True
        if w in ("it's", "it'll") and i == len(words) - 1:
            return True
        if w in _DEMONSTRATIVES and words[i - 1] not in ("so", "such", "like"):
            after = _AFTER_THAT if w == "that" else _AFTER_BARE
            if nxt is None or nxt in after:
                return True
        if w == "there" and nxt not in _AFTER_THERE:
            return True
    return False


#: Words that say little about what a pointed-at thing is ("this pic last summer").
_LIGHT = frozenset({
    "i", "i'm", "i've", "a", "an", "the", "my", "of", "to", "in", "on", "at", "for", "with",
    "as", "so", "too", "also", "just", "really", "even", "still", "always", "this", "that",
    "these", "those", "is", "am", "was", "were", "have", "has", "had", "be", "been", "being",
    "last", "next", "week", "weekend", "month", "year", "summer", "winter", "spring",
    "fall", "today", "yesterday", "tonight", "ago", "recently", "lately", "now", "awesome",
    "cool", "great", "nice", "amazing", "new", "old", "little", "big",
})  # fmt: skip


def _pointed_at(sentence: str, words: list[str]) -> bool:
    """True when the main clause names its thing by pointing at it ("this pic", "that
    world") and says little else: no capitalised name, at most three other words of weight
    ("I took this pic last summer" but not "I took this photo at Whispering Falls")."""
    if not any(w in _DEMONSTRATIVES for w in words[1:]):
        return False
    clause = sentence.split(",")[0]
    if re.search(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]", clause[1:]):
        return False
    weighty = [w for w in words if w not in _LIGHT and w not in _DEMONSTRATIVES]
    return len(weighty) <= 3


__all__ = ["addresses_listener", "before_listener", "clean", "tidy", "unresolved"]
