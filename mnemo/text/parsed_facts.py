"""Offline facts of a turn, clause by clause, from a dependency parse (no LLM).

The default fact extractor when no LLM is configured. A turn is cut into sentences (the one
splitter, :mod:`mnemo.text.sentences`), tidied (:func:`~mnemo.text.fact_screen.tidy`), parsed
by spaCy (:mod:`mnemo.text.parser_model`, in batches) and each sentence cut into clauses
(:mod:`mnemo.text.clauses`). A clause becomes a fact when it says something about the
speaker, in grammatical third person::

    I teach chemistry in Bristol and coach rugby   ->  User teaches chemistry in Bristol
                                                       User coaches rugby
    My brother Tom is a nurse, he works nights     ->  User's brother Tom is a nurse
                                                       User's brother Tom works nights
    We adopted a cat called Miso last week         ->  User and one or more others adopted a
                                                       cat called Miso last week (week of 1
                                                       May 2023)

Who a clause is about: "I" is the user; "my sister", "our kids" are the user's; "my sister
and I" is the user with them; "we" is the last such pair of the turn ("Max and I ... we"),
else "User and one or more others" (:data:`~mnemo.text.clause_words.WE`: who and how many
is not said); "he", "she", "they" and a bare name are the last person
of the user's the turn named that fits (else the clause is dropped). Any other subject keeps
its clause only when the user is in it ("Running helps me sleep" -> "Running helps User
sleep"). Relative times are resolved against the turn's date (:mod:`mnemo.text.relative_dates`);
"used to" and "since" stay as they are.

Refused, preferring fewer, right facts (:mod:`mnemo.text.clause_words` holds the words):
questions; clauses that name the listener; hypotheticals ("if ..."), duties and advice
(would, should, could, might); plans without a time; hedges, courtesies and reported speech
(think, hope, thank, told); a passing feeling with nothing after it ("I'm so excited");
commands and fragments (no subject); clauses whose point is a pronoun or a demonstrative
("I love it", "I made this"); clauses with no content word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mnemo.text import clause_words as W
from mnemo.text import fact_screen, parser_model, relative_dates
from mnemo.text.clause_render import (
    OTHER,
    USER,
    WITH_USER,
    Subject,
    first_person,
    inverted,
    render,
)
from mnemo.text.clause_screen import refused
from mnemo.text.clauses import Clause, Token, split, verbal
from mnemo.text.fact_finish import name_dash
from mnemo.text.sentences import sentences

_FIRST_PERSON = re.compile(
    r"(?<![\w'’])(?:i|me|my|mine|myself|we|us|our|ours|ourselves)(?![\w])", re.IGNORECASE
)
_MINE = re.compile(r"\b(?:my|our)\b", re.IGNORECASE)
_THIRD_PERSON = re.compile(r"\b(?:he|she|they|him|her|them)\b", re.IGNORECASE)
#: A sentence that may open with the speaker's past left unsaid ("Got a new bike", "Been ...").
_OPENING_PAST = re.compile(
    r"^(?:\W*(?:[A-Za-z]+[,!]\s+)?)(?:been|[A-Za-z]+ed|" + "|".join(sorted(W.PAST_FORMS)) + r")\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Said:
    """A turn to read: its text and when it was said (relative dates resolve against it)."""

    text: str
    when: datetime | None = None


@dataclass(frozen=True)
class FactLimits:
    """How many facts a turn gives at most and the length bounds of one."""

    max_facts: int = 3
    min_chars: int = 10
    max_chars: int = 500


@dataclass
class TurnState:
    """What the clauses of one turn so far tell the next: the user's people it named, and
    the last "User and ..." subject ("Max and I ... We hiked" -> "User and Max hiked")."""

    when: datetime | None
    mentions: list[Mention] = field(default_factory=list)
    together: str | None = None


@dataclass
class Mention:
    """A person or thing of the user's the turn named ("my husband Raj", "our twins")."""

    at: int
    phrase: str
    gender: str  # "m", "f" or "" (either)
    plural: bool
    name: str | None


def extract_many(turns: Sequence[Said], limits: FactLimits) -> list[list[str]]:
    """The facts of each turn (at most as many as ``limits`` allows, each once, in order); the
    parser loads on the first call (:func:`mnemo.text.parser_model.pipeline`)."""
    pieces = [_worth_parsing([fact_screen.tidy(x) for x in sentences(t.text)]) for t in turns]
    docs = iter(parser_model.parse(s for p in pieces for s in p))
    out = []
    for turn, piece in zip(turns, pieces, strict=True):
        parsed = [next(docs) for _ in piece]
        out.append(_turn_facts(parsed, turn.when, limits))
    return out


def _worth_parsing(said: list[str]) -> list[str]:
    """The sentences of a turn that can give a fact: not a question, and with a first-person
    word, a pronoun after "my"/"our" earlier in the turn, or an opening past verb ("Got a
    new bike"). The rest never reach the parser (most of its cost)."""
    out, mine = [], False
    for s in said:
        if not s or s.rstrip().endswith("?"):
            continue
        first = _FIRST_PERSON.search(s) is not None
        if first or (mine and _THIRD_PERSON.search(s)) or _OPENING_PAST.match(s):
            out.append(s)
        mine = mine or _MINE.search(s) is not None
    return out


def extract(turn: Said, limits: FactLimits) -> list[str]:
    """The facts of one turn (see :func:`extract_many`)."""
    return extract_many([turn], limits)[0]


def _turn_facts(docs: list[Any], when: datetime | None, limits: FactLimits) -> list[str]:
    state = TurnState(when)
    out: list[str] = []
    for n, doc in enumerate(docs):
        for sent in doc.sents:
            state.mentions += [_mention(t, n * 10_000) for t in sent if _is_mention(t)]
            if _question(sent):
                continue
            for clause in split(sent):
                fact = _fact(clause, n * 10_000, state)
                if fact and limits.min_chars <= len(fact) <= limits.max_chars and fact not in out:
                    out.append(fact)
                if len(out) >= limits.max_facts:
                    return out
    return out


def _question(sent: Any) -> bool:
    text = sent.text.strip()
    if text.endswith("?") or "?" in text[-3:]:
        return True
    first = next((t for t in sent if not t.is_punct and t.dep_ != "intj"), None)
    if first is None or first.lower_ not in W.QUESTION_OPENERS:
        return False
    nxt = first.nbor(1) if first.i + 1 < len(first.doc) else None
    return nxt is not None and nxt.pos_ in ("PRON", "PROPN", "DET", "NOUN")


# ---- who a clause is about --------------------------------------------------------------
def _owned(t: Token) -> bool:
    """A noun of the user's ("my job", "our twins")."""
    return bool(
        t.pos_ in ("NOUN", "PROPN")
        and any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in t.children)
    )


def _is_mention(t: Token) -> bool:
    """A person or pet of the user's a pronoun can stand for ("my sister", "our twins",
    "my dog Rex"), not a thing ("our bodies")."""
    named = t.doc[t.i + 1].text[:1].isupper() if t.i + 1 < len(t.doc) else False
    person = t.lower_ in W.PEOPLE or t.lower_.removesuffix("s") in W.PEOPLE
    return _owned(t) and (person or (named and t.pos_ == "NOUN"))


def _span_of(t: Token) -> tuple[int, int]:
    """A noun's phrase as (first, last) token index: its modifiers before it and a name
    right after it ("my husband Raj"), not its relative clause."""
    left = min([t.i, *(c.left_edge.i for c in t.lefts)])
    right = t.i
    doc = t.doc
    while right + 1 < len(doc) and _name_word(doc[right + 1]):
        right += 1
    for c in t.rights:
        if c.dep_ in ("appos", "compound", "nummod") and c.pos_ in _NOMINAL and c.i <= right + 3:
            right = max(right, c.right_edge.i)
    return left, right


_NOMINAL = frozenset(["NOUN", "PROPN", "NUM"])


def _name_word(t: Token) -> bool:
    return bool(t.text[:1].isupper() and t.is_alpha and t.lower_ != "i" and t.i > 0)


def _render_span(doc: Any, left: int, right: int) -> str:
    words = []
    for t in doc[left : right + 1]:
        low = t.lower_
        words.append(W.FIRST_PERSON[low][1] if first_person(t) else t.text)
        words.append(t.whitespace_)
    return "".join(words).strip(" ,")


def _mention(t: Token, base: int) -> Mention:
    left, right = _span_of(t)
    names = [x.text for x in t.doc[t.i + 1 : right + 1] if _name_word(x)]
    low = t.lower_
    gender = "m" if low in W.MALE else "f" if low in W.FEMALE else ""
    conjuncts = [c for c in t.children if c.dep_ == "conj"]
    plural = t.tag_ in ("NNS", "NNPS") or bool(conjuncts)
    if conjuncts:  # "my husband and kids ... they": they are all of them
        right = max(right, *(c.right_edge.i for c in conjuncts))
    return Mention(base + t.i, _render_span(t.doc, left, right), gender, plural, " ".join(names))


def _resolve(pron: str, at: int, mentions: list[Mention]) -> Mention | None:
    for m in reversed([m for m in mentions if m.at < at]):
        if pron in ("he", "him") and m.gender in ("m", "") and not m.plural:
            return m
        if pron in ("she", "her") and m.gender in ("f", "") and not m.plural:
            return m
        if pron == "they" and m.plural:
            return m
    return None


def _subject(clause: Clause, base: int, state: TurnState) -> tuple[Subject, tuple[int, int]] | None:
    s = clause.subject
    if s is None:
        implicit = clause.parent is None and _opens_sentence(clause.head)
        return (Subject("User", USER, True, implicit=True), (0, -1)) if implicit else None
    low = s.lower_
    span = _subject_span(s)
    if low == "i":
        return Subject("User", USER, True), span
    if low == "we":
        together = state.together or W.WE
        return Subject(together, WITH_USER, True), span
    if any(c.lower_ in ("i", "me") for c in s.conjuncts) and s.lower_ not in ("i", "me"):
        left, right = s.left_edge.i, s.right_edge.i
        others = [t for t in s.doc[left : right + 1] if t.lower_ not in ("i", "me", "and", ",")]
        text = " ".join(
            W.FIRST_PERSON[t.lower_][0] if t.lower_ in ("my", "our") else t.text for t in others
        )
        state.together = f"User and {text}"
        return Subject(state.together, WITH_USER, True), (left, right)
    if low in ("he", "she", "they"):
        m = _resolve(low, base + s.i, state.mentions)
        return (Subject(m.phrase, OTHER, True), span) if m else None
    if s.pos_ == "PROPN":
        m = next((m for m in reversed(state.mentions) if m.name and s.text in m.name.split()), None)
        if m is not None:
            return Subject(m.phrase, OTHER, True), span
    if low in W.VAGUE or low in W.SECOND_PERSON or (s.dep_ == "expl" and low != "there"):
        return None
    if not _owned(s) and any(
        (t.lower_ in W.VAGUE and t.dep_ != "det")
        or (t.dep_ == "det" and t.lower_ == "the" and t.head.i == s.i)
        for t in s.subtree
    ):
        return None  # "Moments like these make me ...", "The photo is from ...": the turn's
    if s.pos_ == "PRON" and low != "there":
        return None
    words = s.doc[span[0] : span[1] + 1]
    if any(t.pos_ == "AUX" for t in words):
        return None  # "Nature's amazing, here's a painting I did": two clauses run together
    if any((t.dep_ == "det" and t.lower_ in W.VAGUE) or t.lower_ in W.OTHERS_POSS for t in words):
        return None  # "this book", "their support": who or what only the turn says
    if s.pos_ not in ("NOUN", "PROPN") or s.tag_ == "VBG" or s.dep_ == "csubj":
        return None
    phrase = _render_span(s.doc, *span)
    phrase += "," if "," in phrase else ""  # an apposition closes: "User's twins, A and B,"
    return Subject(phrase, OTHER, _owned(s)), span


# ---- what it says -----------------------------------------------------------------------
def _subject_range(clause: Clause) -> tuple[int, int]:
    s = clause.subject
    if s is None or s.i not in {t.i for t in clause.tokens}:
        return (0, 0)
    left, right = _subject_span(s)
    return left, right + 1


def _subject_span(s: Token) -> tuple[int, int]:
    """A subject's phrase as (first, last) token index: its whole subtree when it comes
    before its verb ("Volunteering at the shelter made me ..."), with a name after it."""
    if s.pos_ not in ("NOUN", "PROPN") and not list(s.conjuncts):
        return s.i, s.i
    if s.right_edge.i < s.head.i:
        right = s.right_edge.i
        while right + 1 < s.head.i and _name_word(s.doc[right + 1]):
            right += 1
        return s.left_edge.i, right
    return _span_of(s)


_SPLICE_SUBJECTS = frozenset(["they", "it", "he", "she", "we", "i", "that", "this"])
_BE_FORMS = frozenset(["am", "'m", "is", "'s", "are", "'re", "was", "were", "be", "been"])


def _misread(clause: Clause) -> bool:
    """A clause the parse cannot have read right: two subjects ("Nate, after ... I got");
    a bare verb joined to a past one ("I wanted to make X and take Y": the infinitive's,
    not a present); a participle joined to a copula ("I'm a mix of excited and scared to
    ...": "User scared")."""
    head = clause.head
    if sum(c.dep_ in ("nsubj", "nsubjpass") for c in head.children) > 1:
        return True
    root = clause.parent
    while root is not None and root.parent is not None:
        root = root.parent
    if root is None:
        return False
    if _refused_above(clause):
        return True  # "I'm thinking of staying in Siena, and then heading to Amalfi"
    if head.tag_ == "VB" and root.head.tag_ in ("VBD", "VBN", "VBG", "VBZ"):
        return not any(g.lower_ in W.MODALS | W.FUTURE | {"can", "ca"} for g in clause.governing)
    if head.tag_ == "VBG" and not clause.governing and not clause.borrowed:
        return True  # "we had fun bonding and creating memories": "User creating"
    own_aux = any(c.dep_ in ("aux", "auxpass") for c in head.children)
    participle = head.lower_.endswith("ed") and not any(c.dep_ == "dobj" for c in head.children)
    return root.head.lower_ in _BE_FORMS and participle and not own_aux


def _object_me(t: Token, clause: Clause) -> bool:
    """ "me" as an argument of the user's own verb ("I ... and it was great, made me
    remember": the parse gave "made" the user for a subject it does not have)."""
    args = ("dobj", "nsubj", "dative")
    governed = t.head.i == clause.head.i or (t.dep_ == "nsubj" and t.head.head.i == clause.head.i)
    return bool(t.lower_ == "me" and t.dep_ in args and governed)


def _refused_above(clause: Clause) -> bool:
    """True when a clause that lends this one its subject is a hedge, a duty or a plan
    ("I'm thinking of X, and then heading to Y": the heading is thought of too)."""
    parent = clause.parent
    while parent is not None:
        words = {g.lower_ for g in parent.governing}
        if parent.head.lower_ in W.HEDGES or words & (W.MODALS | W.FUTURE) or parent.hypothetical:
            return True
        if any(
            c.dep_ in ("xcomp", "pcomp", "prep") and c.lower_ in W.HEDGES
            for c in parent.head.children
        ):
            return True
        parent = parent.parent
    return False


def _before_afterthought(tokens: list[Token], head: Token) -> list[Token]:
    """A clause's tokens before a dash set off by spaces ("I'm working on a project -
    challenging but fulfilling"): what follows is an afterthought, not the fact; and before
    a comma that opens a clause with a pronoun of its own ("I'm replacing my old sneakers,
    they're worn out"): a comma splice the parse kept inside the clause."""
    for n, t in enumerate(tokens):
        spliced = t.dep_ in ("nsubj", "nsubjpass") and t.lower_ in _SPLICE_SUBJECTS
        if spliced and t.i > head.i + 1 and t.doc[t.i - 1].text == "," and t.head.i != head.i:
            return [x for x in tokens[:n] if x.i < t.i - 1]
        spaced = t.i > 0 and bool(t.doc[t.i - 1].whitespace_) and bool(t.whitespace_)
        named = 0 < t.i < len(t.doc) - 1 and name_dash(t.doc[t.i - 1].text, t.doc[t.i + 1].text)
        if t.i > head.i and t.text in ("-", "–", "—", "--") and spaced and not named:
            return tokens[:n]
    return tokens


def _opens_sentence(head: Token) -> bool:
    """A past or perfect verb that opens its sentence with no subject: the speaker's, left
    out as people do in chat ("Got a new bike last week", "Been baking a lot")."""
    first = next((t for t in head.sent if t.dep_ not in ("intj", "punct")), None)
    if first is None or first.lower_ in W.DISCOURSE:
        return False
    if (
        first.lower_ == "got"
        and first.i + 1 < len(first.doc)
        and first.nbor(1).lower_ in ("ta", "to")
    ):
        return False  # "Gotta focus on ...": a duty
    if first.lower_ == "been":  # "Been baking a lot", not "Been a long road" (it has)
        after = [t for t in first.doc[first.i + 1 : first.i + 5] if t.pos_ != "ADV"]
        doing = bool(after) and after[0].tag_ == "VBG"
        busy = len(after) > 1 and after[0].pos_ == "ADJ" and after[1].tag_ == "VBG"
        return (doing or busy) and first.head.i == head.i
    if (
        head.pos_ != "VERB"
        or head.lower_ in W.FEELINGS
        or (
            head.lower_.endswith("ed")
            and (
                any(c.dep_ == "prep" for c in head.children)
                and not any(c.dep_ == "dobj" for c in head.children)
            )
        )
    ):
        return False  # "Excited for the future!": a feeling, no fact
    past = head.tag_ in ("VBD", "VBN") or (
        head.tag_ == "VB" and (head.lower_.endswith("ed") or head.lower_ in W.PAST_FORMS)
    )  # the tagger reads a sentence-initial past as a command: "Got a new bike"
    return first.i == head.i and past


def _fact(clause: Clause, base: int, state: TurnState) -> str | None:
    if not verbal(clause.head) or _misread(clause):
        return None  # a parse with no verb at its head ("I cherish time" read as a noun)
    flipped = inverted(clause)  # "Hiking is my favourite hobby" -> "User's favourite ..."
    if flipped is not None:
        clean = not set(flipped.lower().split()) & W.SECOND_PERSON and not clause.hypothetical
        return relative_dates.resolve(flipped, state.when, False) if clean else None
    found = _subject(clause, base, state)
    if found is None:
        return None
    subject, _ = found
    lo, hi = _subject_range(clause)
    tokens = _before_afterthought([t for t in clause.tokens if not lo <= t.i < hi], clause.head)
    first_person = any(t.lower_ in W.FIRST_PERSON for t in tokens)
    if not (subject.linked or first_person):
        return None
    if subject.kind == OTHER and any(t.lower_ == "me" and t.dep_ == "attr" for t in tokens):
        return None  # "Dance is just me"
    if subject.kind == USER and any(_object_me(t, clause) for t in tokens):
        return None  # "I ... and it was great, made me remember": "made" is not the user's
    out = render(clause, tokens, subject, lo)
    if "User" not in out.text or refused(clause, tokens, subject, out):
        return None
    return relative_dates.resolve(out.text, state.when, out.past)


__all__ = ["FactLimits", "Said", "extract", "extract_many"]
