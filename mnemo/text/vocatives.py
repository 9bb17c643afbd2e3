"""What one turn says about the names in it: whom it addresses, who its speaker is, who is
someone else.

Every capitalised word of a turn is read with the few words around it:

* a **vocative** calls the person spoken to: a greeting or thanks right before the name and
  punctuation or the end right after it ("Hey Jess!", "Thanks, Sam.") weighs 1; a name
  opening the turn before a comma or "!" ("Jess, did you...") or closing a sentence after a
  comma ("How are you, Sam?") weighs 1/2 ("Lyon, France." reads like one too);
* a **self-introduction** names the speaker: "my name is Jess", "call me Jess" (1); "I'm
  Jess,", "this is Jess." (1/2);
* a **relational mention** names a third party: "my sister Anna", "your boss Tom";
* a name **inside a sentence** (after a word or a comma, not at a sentence start) is how a
  proper noun shows: "Wow" or "Honestly" open sentences, names also sit inside them.

A chat written all in lower case gets one more cue: a lower-case word right after a greeting
or thanks and before punctuation ("hey jess!", "thanks, sam.") is a vocative too (weight 1),
unless it is a common way to address anyone ("hey guys!", "thanks man!"); whether it is a
name is left to how the rest of the user's text uses it (see retrieval.aliases).

No list of names is involved: only the words around a name.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

#: A word as the alias rules count it: letters, hyphenated and contracted parts whole.
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
#: A capitalised word (hyphenated parts allowed: "Mary-Jo"); see :func:`is_name`.
_CAPITAL = re.compile(r"(?<![\w'’-])([^\W\d_a-z][^\W\d_]*(?:-[^\W\d_]+)*)")
#: Greetings, thanks and farewells that come before a vocative name.
GREETINGS = """
    hey hi hiya hello heya yo howdy thanks thank_you thx ty congrats congratulations bye goodbye
    cheers good_morning good_night good_evening good_afternoon morning evening night good_luck
    take_care see_you see_ya welcome welcome_back sorry miss_you love_you happy_birthday dear
    """.split()  # noqa: SIM905
#: Words used to address anyone, which are no one's name ("hey guys!", "thanks man.").
_ADDRESS_WORDS = frozenset(
    """
    everyone everybody all guys man dude bro bruh mate babe baby honey hun love dear sweetie
    buddy pal folks team girl girls boys friend friends sir madam there
    """.split()  # noqa: SIM905
)
_RELATIONS = """
    sister brother sis bro mom mum mother dad father son daughter kid child baby wife husband
    partner spouse boyfriend girlfriend fiance fiancé fiancee fiancée friend buddy pal bestie
    cousin aunt uncle niece nephew grandma grandpa grandmother grandfather granddaughter grandson
    boss manager colleague coworker co-worker roommate flatmate neighbor neighbour teacher coach
    mentor therapist doctor dog cat puppy kitten
    """.split()  # noqa: SIM905


_GREETING_WORDS = frozenset(g for g in GREETINGS if "_" not in g)
_GREETING_PAIRS = frozenset(tuple(g.split("_")) for g in GREETINGS if "_" in g)
_RELATION_WORDS = frozenset(_RELATIONS) | {r + "s" for r in _RELATIONS}
_POSSESSIVES = frozenset({"my", "our", "your", "his", "her", "their"})
_SELF = frozenset({("my", "name", "is"), ("my", "name's"), ("call", "me"), ("the", "name's")})
_MAYBE_SELF = frozenset({("i'm",), ("i", "am"), ("this", "is"), ("it's",)})
_WINDOW = 64  # characters read before a name
_VOCATIVE_AFTER = re.compile(r"\s*(?:[,.!?;:…)(]|$|-\s|[:;]-?[()DPp]|<3)")
_OPENING_AFTER = re.compile(r"\s*[,!]\s")
_CLOSING_AFTER = re.compile(r"\s*(?:[.!?…]+(?:\s|$)|$)")
_MAYBE_SELF_AFTER = re.compile(r"\s*(?:[,.!]|$|here\b)")
_LOWER_VOCATIVE = re.compile(  # opening a sentence: "no more night shifts?" calls no one
    r"(?:^|(?<=[.!?] ))(?i:hey|hi|hiya|hello|heya|yo|howdy|thanks|thank\s+you|thx|ty|cheers"
    r"|congrats|good\s+morning|good\s+night|morning|evening|night|bye)(?:\s*,\s+|\s+)"
    r"([^\W\d_]{2,})(?=\s*(?:[!?.,;]|$))",
    re.MULTILINE,
)
_LOWER_OPENING = re.compile(r"^\s*([^\W\d_]{2,})\s*[,!]\s")
_LOWER_CLOSING = re.compile(r",\s*([^\W\d_]{2,})\s*(?:[.!?…]+(?:\s|$)|$)")


def _ends(words: list[str], phrases: frozenset[tuple[str, ...]]) -> bool:
    """True when ``words`` end with one of ``phrases``."""
    return any(tuple(words[-len(p) :]) == p for p in phrases)


def _relational(words: list[str]) -> bool:
    """True when ``words`` end with a possessive, up to two words, then a relation ("my older
    sister", "your boss"), within one sentence."""
    if not words or words[-1] not in _RELATION_WORDS:
        return False
    for w in reversed(words[-4:-1]):
        if w in _POSSESSIVES:
            return True
        if w.endswith((".", "!", "?")):
            return False
    return False


def is_name(word: str) -> bool:
    """A capitalised word of two letters or more that is not all capitals ("OK", "I")."""
    return len(word) >= 2 and word[0].isupper() and not word.isupper()


@dataclass(frozen=True)
class NameCues:
    """The names one turn uses (lower-cased) and what it says of each."""

    #: (name, weight): what the turn calls the person it speaks to
    addressed: tuple[tuple[str, float], ...]
    #: (name, weight): what the speaker calls themselves
    own: tuple[tuple[str, float], ...]
    #: names of third parties (relational mentions)
    others: tuple[str, ...]
    #: names capitalised inside a sentence
    inner: frozenset[str]
    #: lower-case words a greeting addresses ("hey jess!"), also in ``addressed``
    lowered: tuple[str, ...] = ()
    #: lower-case words that open the turn or close a sentence after a comma ("jess, did
    #: you...", "how are you, jess?"): where names sit (no evidence of whose)
    called: tuple[str, ...] = ()
    #: (word, count) of every word written all in lower case, sorted: how the turn writes a
    #: word that may be a name elsewhere ("jess" here, "Hey Jess!" in another turn)
    words: tuple[tuple[str, int], ...] = ()


def name_cues(text: str) -> NameCues:
    """Read every capitalised word of ``text`` with the words around it (module docstring)."""
    addressed: list[tuple[str, float]] = []
    own: list[tuple[str, float]] = []
    others: list[str] = []
    inner: set[str] = set()
    for m in _CAPITAL.finditer(text):
        word = m.group(1)
        if not is_name(word):
            continue
        name, (s, e) = word.lower(), m.span(1)
        before, after = text[max(0, s - _WINDOW) : s], text[e : e + _WINDOW]
        head = before.rstrip()
        if not head or head[-1] in ".!?":  # a sentence's first word
            if s <= _WINDOW and not head and _OPENING_AFTER.match(after):
                addressed.append((name, 0.5))
            continue
        if (
            len(before) - len(head) == 1
            and before[-1] == " "
            and (head[-1].isalnum() or head[-1] in ",;:)")
        ):
            inner.add(name)  # after a word or a comma and one space: inside a sentence
        words = [w.lower().replace("’", "'").strip(',;:()"') for w in before.split()[-5:]]
        if (words[-1] in _GREETING_WORDS or _ends(words, _GREETING_PAIRS)) and (
            _VOCATIVE_AFTER.match(after)
        ):
            addressed.append((name, 1.0))
        elif before.rstrip().endswith(",") and _CLOSING_AFTER.match(after):
            addressed.append((name, 0.5))
        if _ends(words, _SELF):
            own.append((name, 1.0))
        elif _ends(words, _MAYBE_SELF) and _MAYBE_SELF_AFTER.match(after):
            own.append((name, 0.5))
        if _relational(words):
            others.append(name)
    lowered = tuple(
        w for w in _LOWER_VOCATIVE.findall(text) if w.islower() and w not in _ADDRESS_WORDS
    )
    addressed.extend((w, 1.0) for w in lowered)
    called = tuple(
        w
        for pattern in (_LOWER_OPENING, _LOWER_CLOSING)
        for w in pattern.findall(text)
        if w.islower()
    )
    counts = tuple(sorted(Counter(w for w in _WORD.findall(text) if w.islower()).items()))
    return NameCues(
        tuple(addressed), tuple(own), tuple(others), frozenset(inner), lowered, called, counts
    )


__all__ = ["GREETINGS", "NameCues", "is_name", "name_cues"]
