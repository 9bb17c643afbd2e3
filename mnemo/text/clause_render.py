"""A clause written as a fact: its subject first, in grammatical third person.

:func:`render` takes a clause (:mod:`mnemo.text.clauses`), who it is about (a
:class:`Subject`, resolved by :mod:`mnemo.text.parsed_facts`) and its tokens without the
subject's, and writes::

    <subject> <adverbs that stay with the verb> <verb phrase> <what opened the clause>

"I" becomes "User" with the verb conjugated ("I teach" -> "User teaches", "I'm" -> "User
is", "I don't" -> "User does not"); other first-person words become "they/their/them" in a
clause about the user and "User/User's" in one about someone else ("My dad taught me chess"
-> "User's dad taught User chess"). Openers that carry nothing ("Well,", "Oh", "Hey Sam")
are dropped; a time or place that opened the clause moves to its end ("Next month we are
moving to Oslo" -> "User and one or more others are moving to Oslo next month"). A negative
contraction is written out ("don't" -> "do not"; "can't" -> "cannot", "won't" -> "will not":
:mod:`mnemo.text.negative_contractions`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from mnemo.text import clause_words as W
from mnemo.text import negative_contractions as N
from mnemo.text.clauses import SUBJECTS, Clause, Token
from mnemo.text.fact_finish import finish, without_trail
from mnemo.text.fact_rules import third_person
from mnemo.text.months import MONTH_WORDS

#: Who a clause is about: the user alone (the verb is conjugated for "User"), the user with
#: others, or someone else (the verb stays as written).
USER, WITH_USER, OTHER = "user", "with_user", "other"
_FOR_USER = {
    "am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "'ll": "will",
    "'re": "is", "are": "is", "were": "was", "wanna": "wants to",
}  # fmt: skip
#: Contractions after a subject that is not "I", written out ("we've" -> "... others have").
_EXPANDED = {"'ve": "have", "'re": "are", "'ll": "will", "'m": "am"}
_SPOKEN = {"gon": "going", "wan": "want", "na": "to", "ta": "to", "n't": "not", "nt": "not"}
_PLAIN_WORDS = frozenset(["we", "us", "our", "ours", "ourselves"])
_DROP_DEPS = frozenset(["intj", "cc", "punct", "mark", "preconj", "meta"])
_THING = frozenset(["thing", "things", "stuff"])
DEMONSTRATIVES = frozenset(["this", "that", "these", "those"])
_BE = frozenset(["is", "are", "was", "were", "'s", "'re"])


def pointed(det: Token) -> bool:
    """True when a demonstrative's noun says enough to stand without the turn ("this new
    show", "that book by Le Guin"): it is then written "a" / "some"."""
    noun = det.head
    return any(
        c.dep_ in ("amod", "compound", "acl", "relcl", "appos", "prep", "nummod")
        for c in noun.children
    )


def inverted(clause: Clause) -> str | None:
    """A copula whose complement is the user's, subject first ("Hiking is my favourite
    hobby" -> "User's favourite hobby is hiking"); None for any other clause."""
    head, s = clause.head, clause.subject
    if head.lower_ not in _BE or s is None or s.lower_ in W.VAGUE or s.pos_ in ("PRON", "ADJ"):
        return None
    attr = next((c for c in head.children if c.dep_ == "attr" and c.i > head.i), None)
    if attr is None or not any(
        c.dep_ == "poss" and c.lower_ in ("my", "our") for c in attr.children
    ):
        return None
    if any(c.dep_ in ("neg", "aux") for c in head.children) or s.i > head.i:
        return None
    subject = sorted(
        (t for t in s.subtree if not t.is_punct or t.i < s.right_edge.i), key=lambda t: t.i
    )
    if any(t.lower_ in W.VAGUE and t.dep_ in ("det", "nsubj") for t in subject):
        return None
    finite = ("VBZ", "VBP", "VBD")
    if (
        any(c.dep_ == "conj" for c in attr.children)
        or attr.lower_ in _THING
        or any(t.tag_ in finite or t.pos_ == "PRON" for t in subject)
    ):
        return None  # "Epic adventures are my thing"; "Dance is my relief and X fuels ..."
    owner = "".join(
        ("User's" if t.lower_ in ("my", "our") else t.text) + t.whitespace_
        for t in sorted(attr.subtree, key=lambda t: t.i)
    )
    value = "".join(
        (W.FIRST_PERSON[t.lower_][0] if first_person(t) else t.text) + t.whitespace_
        for t in subject
    )
    be = {"'s": "is", "'re": "are"}.get(head.lower_, head.lower_)
    value = value.strip() if s.pos_ == "PROPN" else value[:1].lower() + value[1:].strip()
    text = without_trail(f"{owner.strip()} {be} {value}")
    return re.sub(r"\s+([,.!?;:'])", r"\1", re.sub(r"\s+(n't|'s)\b", r"\1", text))


@dataclass
class Subject:
    """Who a clause is about, as it is written in the fact, and how its verb agrees."""

    text: str
    kind: str  # USER, WITH_USER or OTHER
    linked: bool  # the user, someone or something of theirs, or the user with others
    #: left out of the sentence ("Been baking a lot"): "has" goes before a bare "been"
    implicit: bool = False


@dataclass
class _Word:
    text: str
    token: Token | None = None
    space: bool = False  # a space before it whatever the original spacing


def _lead(tokens: list[Token], start: int, head: Token) -> tuple[list[Token], list[Token]]:
    """What opened the clause before its subject: (adverbs that stay with the verb, what
    may move to its end: :func:`_kept_lead` says whether it can); openers that carry
    nothing are dropped."""
    with_verb: list[Token] = []
    tail: list[Token] = []
    dropped: set[int] = set()
    lead_text = " ".join(t.lower_ for t in tokens if t.i < start)
    for phrase in W.DISCOURSE_PHRASES:
        at = lead_text.find(phrase)
        if at >= 0:  # "On another note, I ...": the words of the phrase go
            first = len(lead_text[:at].split())
            dropped.update(t.i for t in tokens[first : first + len(phrase.split())])
    for t in tokens:
        if t.i >= start:
            break
        if t.i in dropped:
            continue
        if t.lower_ in ("no", "any") and t.i + 1 < len(t.doc) and t.nbor(1).lower_ == "longer":
            with_verb += [t, t.nbor(1)]  # "no longer": it stays with the verb
            dropped.add(t.i + 1)
            continue
        if t.dep_ == "mark" and t.head.i != head.i:
            tail.append(t)  # "since we last spoke": it stays with its clause
            continue
        if t.dep_ in _DROP_DEPS or (t.lower_ in W.DISCOURSE and t.lower_ not in W.WITH_VERB):
            if t.dep_ == "intj" or (t.dep_ == "npadvmod" and t.pos_ == "PROPN"):
                dropped.update(x.i for x in t.subtree)
            continue
        if t.lower_ in W.TIME_NOUNS:
            pass
        elif t.pos_ == "PROPN" and t.dep_ in ("npadvmod", "appos", "nsubj", "dep"):
            dropped.update(x.i for x in t.subtree)  # a vocative: "Mel, I ..."
            continue
        if t.lower_ in W.WITH_VERB and t.dep_ in ("advmod", "neg"):
            with_verb.append(t)
        elif t.pos_ in ("ADV", "DET", "PRON", "ADJ") and t.dep_ in ("advmod", "det", "dep", "amod"):
            if t.head.i in dropped or t.head.i == head.i or t.head.i >= start:
                dropped.update(x.i for x in t.subtree)  # a stray "truly", "all": not moved
            else:
                tail.append(t)  # "Next month": with its noun
        else:
            tail.append(t)
    return with_verb, tail


#: Leads that only set the topic: dropped whole ("Besides writing, I ...", "For me, I ...").
_TOPIC_LEADS = frozenset(["besides", "speaking", "apart", "regarding", "concerning"])
#: Words that open a clause of time with its own subject ("When I was younger, ...").
_SUBORDINATORS = frozenset(["when", "after", "before", "since", "while", "once", "until"])
#: A lead of one word that is a time ("Yesterday, I ...").
_TIME_WORDS = frozenset({
    "yesterday", "today", "tonight", "tomorrow", "recently", "lately", "once", "nowadays",
}) | MONTH_WORDS  # fmt: skip
#: A lead that is a time phrase: "last week", "two years ago", "this summer", "March 2019".
_DATE_PHRASE = re.compile(
    r"\b(?:(?:last|this|next|that|every|each|one) \w+|\w+ ago|(?:19|20)\d\d)\b"
)


def _kept_lead(tail: list[Token], about_user: bool) -> list[Token] | None:
    """What opened a clause, to move to its end: a phrase ("In my downtime", "On Friday",
    "Last week") or a clause with its own subject ("When I was younger"). A topic ("Besides
    writing", "As for me" in a clause about the user) is dropped, and so is a bare noun
    phrase that is not a time ("Seven years now, I've ..."). Anything else (a verb with no
    subject: "While volunteering yesterday, I ...", "Time flies - feels like ...") cannot
    move without garbling the clause: None (refused)."""
    if not tail:
        return tail
    first = tail[0]
    mine = any(t.lower_ in ("me", "us", "myself") for t in tail)
    as_for = first.lower_ == "as" and len(tail) > 1 and tail[1].lower_ == "for"
    if (
        first.lower_ in _TOPIC_LEADS
        or (as_for and not mine)
        or (first.lower_ in ("for", "as") and mine and about_user)
    ):
        return []  # "As for goals, I want ...": the topic goes
    verbs = [t for t in tail if t.pos_ in ("VERB", "AUX")]
    if verbs:
        marked = first.lower_ in _SUBORDINATORS and any(
            c.dep_ in SUBJECTS for v in verbs for c in v.children
        )
        return tail if marked else None
    if first.dep_ == "prep":
        return tail
    text = " ".join(t.lower_ for t in tail)
    if _DATE_PHRASE.search(text) or text in _TIME_WORDS:
        return tail
    return []


def _closed_later(words: list[_Word]) -> bool:
    """True when a quote follows the last word written, in its sentence."""
    last = next((w.token for w in reversed(words) if w.token is not None), None)
    if last is None:
        return False
    return any(t.text in ('"', "”") for t in last.doc[last.i + 1 : last.sent.end])


#: Finite forms of "be": an adverb that opened the clause goes after them ("User is also ...").
_BE_FINITE = frozenset(["'m", "am", "is", "are", "was", "were", "'re"])


def _present(verb: str) -> str:
    """The third-person present of a verb the tagger read as a present: "-ed" here is part
    of the word ("need", "feed", "breed" -> "needs"), not a past."""
    return verb + "s" if verb.lower().endswith("eed") else third_person(verb)


def _finite_conjunct(t: Token) -> bool:
    """A present verb joined to a verb inside the clause ("I want to get back into biking and
    need to get my bike tuned": "need"), whose subject is the clause's. Joined to an
    infinitive, it is one only with a sign of it (:func:`_finite_sign`); otherwise it is the
    infinitive's bare twin ("trying to reduce my waste and live more simply")."""
    infinitive = t.head.tag_ == "VB" and any(
        c.dep_ == "aux" and c.lower_ == "to" for c in t.head.children
    )
    return bool(
        t.dep_ == "conj"
        and t.tag_ == "VBP"
        and t.pos_ == "VERB"
        and t.head.tag_ in ("VB", "VBG", "VBN")
        and not any(c.dep_ in ("nsubj", "nsubjpass") for c in t.children)
        and (not infinitive or any(_finite_sign(c) for c in t.children))
    )


def _finite_sign(c: Token) -> bool:
    """A child that marks a verb joined to an infinitive as the clause's own present: an
    infinitive of its own ("and need to get") or an adverb of how often ("and often
    overlook")."""
    return c.dep_ == "xcomp" or (c.dep_ == "advmod" and c.lower_ in _HOW_OFTEN)


_HOW_OFTEN = frozenset(["often", "usually", "sometimes", "always", "never", "rarely", "also"])


def first_person(t: Token) -> bool:
    """A first-person word to rewrite ("I", "my", "us"), not the country "US"."""
    return t.lower_ in W.FIRST_PERSON and t.text != "US"


def _person(t: Token, subject: Subject, named: bool) -> str:
    low = t.lower_
    if named or (subject.kind == WITH_USER and (low in _PLAIN_WORDS or low in ("my", "mine"))):
        return W.FIRST_PERSON[low][0]
    return W.FIRST_PERSON[low][1]


@dataclass
class Rendered:
    """A clause written as a fact: its text (``""`` when nothing is left), whether it is in
    a past tense, and the tokens written (what the fact says is judged on these)."""

    text: str
    past: bool
    written: list[Token]


def render(clause: Clause, tokens: list[Token], subject: Subject, start: int) -> Rendered:
    """The clause as a fact. ``tokens``: the clause's tokens without its subject's;
    ``start``: where the subject began (0 when the clause borrowed its subject)."""
    if start == 0:
        start = next((t.i for t in tokens if t.pos_ in ("VERB", "AUX")), clause.head.i)
    with_verb, lead = _lead(tokens, start, clause.head)
    kept = _kept_lead(lead, subject.kind == USER)
    if kept is None:
        return Rendered("", False, [])
    tail = kept
    rest = [t for t in tokens if t.i >= start]
    while rest and (rest[0].dep_ in _DROP_DEPS):
        rest = rest[1:]
    while rest and rest[-1].is_punct:
        rest = rest[:-1]
    words = [_Word(subject.text)]
    if subject.implicit and rest and rest[0].lower_ == "been":
        words.append(_Word("has"))
    after_be = [_Word(t.lower_, t, True) for t in with_verb]  # "Also, I'm vegan": "is also"
    if not (rest and not clause.borrowed and rest[0].lower_ in _BE_FINITE):
        words += after_be
        after_be = []
    borrowed = {x.i for x in clause.borrowed}
    verbs = {x.i for x in [*clause.borrowed, *rest]}
    conjugate = subject.kind == USER
    many = subject.kind == WITH_USER or (subject.kind == OTHER and N.plural(clause.subject))
    named = subject.kind == USER  # "User" is written once; later first person is "they"
    pending_they = False
    for n, t in enumerate([*clause.borrowed, *rest, *tail]):
        low = t.lower_
        text = t.text
        if tail and t.i == tail[0].i:
            text = text if t.pos_ == "PROPN" or n == 0 else text[:1].lower() + text[1:]
            words.append(_Word(text, t, True))
            continue
        spelt = N.written(t, many)
        if spelt is not None:  # "ca" of "can't": "can"
            text = spelt
            conjugate = conjugate and t.i not in verbs
        elif conjugate and t.i in verbs and (t.pos_ in ("VERB", "AUX") or low in _FOR_USER):
            if low in _FOR_USER:
                text = _FOR_USER[low]
            elif t.tag_ in ("VBP", "VB") and not _past_form(low):
                text = _present(t.text)  # VB: a present the tagger took for a base form
            conjugate = False
        elif subject.kind == USER and _finite_conjunct(t) and not _past_form(low):
            text = _present(t.text)  # "... and need to get": "and needs to get"
        elif first_person(t) and not hyphened(t):
            text = _person(t, subject, named)
            named = named or text.startswith("User")
            pending_they = low == "i" and text in ("they", "User")
            words.append(_Word(text, t, True))
            continue
        elif pending_they and low in ("'m", "am", "was"):
            after_user = words[-1].text == "User"  # "when User is around animals"
            text = (
                ("was" if low == "was" else "is") if after_user else {"was": "were"}.get(low, "are")
            )
        elif pending_they and low in ("'ll", "'d", "'ve") and words[-1].text == "User":
            text = _inner_contraction(low, t)  # "they'll" stays; "User'll" does not
        elif low in _EXPANDED and rest and t.i == rest[0].i:
            text = _EXPANDED[low]
        elif low == "'s" and rest and t.i == rest[0].i and (t.pos_ == "AUX" or t.tag_ != "POS"):
            nxt = next((x for x in t.doc[t.i + 1 : t.i + 4] if x.pos_ != "ADV"), None)
            text = "has" if nxt is not None and nxt.tag_ == "VBN" else "is"
        elif low in DEMONSTRATIVES and t.dep_ == "det" and _thing(t.head) and pointed(t):
            nxt = t.nbor(1).lower_ if t.i + 1 < len(t.doc) else ""
            text = "some" if t.head.tag_ in ("NNS", "NNPS") else "an" if nxt[:1] in "aeiou" else "a"
            if t.i > 0 and t.nbor(-1).dep_ == "predet":
                text = "the"  # "all these tools" -> "all the tools"
        elif low in _SPOKEN:
            text = _SPOKEN[low]
            if low in N.NOT and words and words[-1].text == "can":
                words[-1].text = "cannot"
                continue
        pending_they = False
        if subject.implicit and rest and t.i == rest[0].i and t.pos_ != "PROPN":
            text = text[:1].lower() + text[1:]
        forced = (t.text.startswith("'") or low in _SPOKEN) and text != t.text
        words.append(_Word(text, t, forced or t.i in borrowed))
        if after_be and t.i == rest[0].i:
            words += after_be
            after_be = []
    text = finish(_join(words), closes=bool(words) and _closed_later(words))
    past = any(t.tag_ in ("VBD", "VBN") or t.lower_ == "used" for t in [*clause.borrowed, *rest])
    written = [w.token for w in words if w.token is not None]
    at = {t.i for t in written}
    if any(hyphened(t) and not _whole(t, at) for t in written):
        return Rendered("", False, [])  # "networking non" of "non-stop": a word cut in two
    return Rendered((text[:1].upper() + text[1:]) if text else "", past, written)


def _inner_contraction(low: str, t: Token) -> str:
    """A contraction after an "I" inside the clause written "User", spelt out ("so I'll try"
    -> "so User will try", "I'd been" -> "User had been", "I've" -> "User has")."""
    if low == "'ll":
        return "will"
    nxt = next((x for x in t.doc[t.i + 1 : t.i + 4] if x.pos_ != "ADV"), None)
    if low == "'d":
        return "had" if nxt is not None and nxt.tag_ == "VBN" else "would"
    return "has"


def _past_form(low: str) -> bool:
    """An irregular past the tagger read as a present ("retook", "overslept")."""
    return any(low.endswith(p) for p in W.PAST_FORMS if len(p) >= 4) and low not in W.PAST_BASES


def _whole(t: Token, kept: set[int]) -> bool:
    """True when the hyphenated compound ``t`` is in ("non-stop") is written whole."""
    doc = t.doc

    def joined(a: int) -> bool:  # doc[a] and doc[a + 2] are joined by a hyphen at a + 1
        hyphen = a + 2 < len(doc) and doc[a + 1].text == "-"
        return hyphen and not doc[a].whitespace_ and not doc[a + 1].whitespace_

    left, right = t.i, t.i
    while left >= 2 and joined(left - 2):
        left -= 2
    while joined(right):
        right += 2
    return all(i in kept for i in range(left, right + 1, 2))


def _thing(noun: Token) -> bool:
    """A noun a demonstrative may point at and be written "a" for: a noun, not a time
    ("this weekend" stays) nor a pronoun ("those sound great")."""
    return bool(noun.pos_ in ("NOUN", "PROPN") and noun.lower_ not in W.TIME_NOUNS)


def hyphened(t: Token) -> bool:
    """A word inside a hyphenated compound ("me-time"): it stays as written."""
    doc = t.doc
    after = t.i + 1 < len(doc) and doc[t.i + 1].text == "-" and not t.whitespace_
    before = t.i > 0 and doc[t.i - 1].text == "-" and not doc[t.i - 1].whitespace_
    return bool(after or before)


def _join(words: list[_Word]) -> str:
    out = [words[0].text] if words else []
    for a, b in itertools.pairwise(words):
        if b.space or a.token is None or b.token is None or b.token.i != a.token.i + 1:
            sep = " "
        else:
            sep = a.token.whitespace_
        out.append(sep + b.text)
    return "".join(out)


__all__ = [
    "DEMONSTRATIVES",
    "OTHER",
    "USER",
    "WITH_USER",
    "Rendered",
    "Subject",
    "first_person",
    "hyphened",
    "inverted",
    "pointed",
    "render",
]
