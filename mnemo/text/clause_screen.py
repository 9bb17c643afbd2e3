"""Which clauses the clause reader refuses (:mod:`mnemo.text.parsed_facts`).

A clause written as a fact is refused, preferring fewer, right facts, when it is a
hypothetical or names the listener; has a modal of duty or advice, or is a plan without a
time; is a hedge, a courtesy, reported speech, empathy or an apology; is a passing feeling
with nothing after it; has a pronoun, a demonstrative or "there" for its point, or a
possessive of someone it does not name; is a maxim ("Books help us dream") or a "we" clause
that names no place and no one; is about the chat itself (:mod:`mnemo.text.clause_talk`);
or names nothing beyond stock words ("User is doing their best"). The words are in
:mod:`mnemo.text.clause_words`.
"""

from __future__ import annotations

import re

from mnemo.text import clause_aims as A
from mnemo.text import clause_talk as T
from mnemo.text import clause_words as W
from mnemo.text.clause_render import (
    DEMONSTRATIVES,
    OTHER,
    USER,
    WITH_USER,
    Rendered,
    Subject,
    hyphened,
    pointed,
)
from mnemo.text.clauses import Clause, Token, subject_of

_TIME = re.compile(
    r"\b(?:tomorrow|tonight|next|soon|later this|this (?:week|weekend|month|year|summer|"
    r"winter|spring|fall|autumn)|in (?:a|an|\d+|two|three|a few|a couple of) (?:days?|weeks?|"
    r"months?|years?)|in (?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December|\d{4}))\b",
    re.IGNORECASE,
)


#: A time that dates an event ("last week", "in May", "two days ago", "yesterday").
_DATED = re.compile(
    r"\b(?:yesterday|last (?:week|weekend|month|year|night|summer|winter|spring|fall|autumn)|"
    r"\w+ (?:days?|weeks?|months?|years?) ago)\b",
    re.IGNORECASE,
)


def refused(clause: Clause, tokens: list[Token], subject: Subject, out: Rendered) -> bool:
    """True when a clause written as ``out`` is not a fact to keep (see the module
    docstring); ``tokens``: the clause's tokens without its subject's. Whether it names
    anything is judged on the words written (an opener dropped from it names nothing)."""
    text = out.text
    head = clause.head
    words = {t.lower_ for t in tokens} | set(subject.text.lower().split())
    if clause.hypothetical or words & W.SECOND_PERSON:
        return True
    aux_words = {a.lower_ for a in clause.governing}
    if aux_words & W.MODALS:
        return True
    plan = bool(aux_words & W.FUTURE) or _going_to(head)
    if plan and not _TIME.search(text):
        return True
    if head.lower_ in W.HEDGES or any(
        c.dep_ == "xcomp" and c.lower_ in W.HEDGES for c in head.children
    ):
        return True
    if aux_words & {"can", "ca"} and head.lower_ in W.CAN_HEDGES:
        return True  # "I can picture it", "I can't wait"
    if T.cannot_help_but(head, aux_words) or T.about_the_chat(tokens, head):
        return True  # "I can't help but worry"; "my next prompt will contain ..."
    if T.reaction_to_suggestions(head):
        return True  # "User loves the BBQ chicken and the tofu ideas": the assistant's
    if head.lower_ in ("get", "gets", "see") and any(c.dep_ == "ccomp" for c in head.children):
        return True  # "I get how busy life is"
    if _owner_unknown(tokens, subject, head) or any(c.lower_ == "off" for c in head.children):
        return True  # "User takes notes on her style"; "I'm off to bed"
    if any(t.dep_ == "amod" and t.lower_ in W.RELATIVE_ADJ for t in tokens):
        return True  # "a similar experience": similar to what the turn said
    if head.lower_ in ("does", "do", "did") and any(
        c.lower_ in ("so", "neither") for c in head.children
    ):
        return True  # "..., but so does X": an echo of the clause before
    if _bare_feeling(head) or _hedged(head) or _aimless(head):
        return True
    dated = _TIME.search(text) is not None or _DATED.search(text) is not None
    if (
        subject.text.startswith(W.WE)
        and not ((_happened(clause) or dated) and (_placed(tokens) or dated))
        and not _owned_thing(head)
    ):
        return True  # "we learn a lot" is a maxim; "we got the win" says little on its own
    if subject.kind == OTHER and words & {"we", "us", "our"}:
        return True  # "Books help us dream": a maxim
    if any(_sorry_or_sure(c) for c in [head, *head.children]):
        return True  # "I'm sorry about Max", "I'm sure it'll work out"
    chatter = head.lower_ in W.CHATTER | {"talked", "spoke", "chatted"}
    if chatter and subject.kind == WITH_USER and not _owned_thing(head):
        return True  # "we haven't talked in a while": about the conversation
    if any(idiom in text.lower() for idiom in W.MOOD_IDIOMS):
        return True  # "User is over the moon"
    if any(t.lower_ in ("here", "there") and t.head.i == head.i and t.i < head.i for t in tokens):
        return True  # "here's a painting I did": a thing shown
    written = {t.i for t in out.written}
    said = [t for t in tokens if t.i in written]  # not an opener dropped ("Speaking of which")
    if any(_vague(t, head) and not hyphened(t) for t in said):
        return True
    if any(_unresolved(t) for t in said):
        return True  # "met him", "I'm working on X and things"
    if any(t.lower_ in W.HEDGE_ADVERBS for t in tokens):
        return True  # "Hopefully, I can raise enough"
    if any(_dangling(t, head) for t in said):
        return True  # "working on for a while", "speaking of"
    if _vague_attempt(head) or any(
        c.dep_ == "acomp" and c.lower_ in W.HEDGE_STATES - {"afraid"} for c in head.children
    ):
        return True  # "User is trying to stay positive"; "User is sure with ..."
    if head.lower_ in W.TASTES and any(_the_thing(c) for c in head.children):
        return True  # "User loves the color and texture": a reaction to what was shown
    if A.aim_unnamed(head) or A.reassurance(head) or A.amount_alone(tokens):
        return True  # "excited to try the energy balls"; "wants to make sure ..."; "spend $40"
    if any(A.pointing(t) and not _in_relative(t, head) for t in said) or A.under_reassurance(head):
        return True  # "the themes in the film"; "(make sure) ... I'm visible to motorists"
    if A.purpose(clause, aux_words) or A.not_only(tokens):
        return True  # "(so) my audience can engage": what a plan is for; "not only ..."
    core = list(said)
    if subject.kind == OTHER and clause.subject is not None:
        core = [*core, *clause.subject.subtree]
    return not _says_something(core, head)


def _dangling(t: Token, head: Token) -> bool:
    """A preposition left without its object ("I've been working on for a while"), not
    one a relative clause strands ("the shelter I volunteer at")."""
    bare = t.dep_ == "prep" and t.pos_ == "ADP" and not list(t.children)
    nxt = t.doc[t.i + 1] if t.i + 1 < len(t.doc) else None
    ends = nxt is None or nxt.is_punct or nxt.pos_ in ("ADP", "ADV", "CCONJ")
    return bool(bare and ends and not _in_relative(t, head))


def _unresolved(t: Token) -> bool:
    """A person the turn alone names ("him", "her" as an object), a stand-in joined to a
    real thing ("the dance studio and things"), or a thing of the user's joined to one that
    is not ("the team and our season opener": two clauses the parse ran together)."""
    if t.lower_ in ("him", "her") and t.pos_ == "PRON" and t.dep_ != "poss":
        return True
    if t.dep_ != "conj":
        return False
    if t.lower_ in W.VAGUE:
        return True
    mine = any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in t.children)
    return mine and t.pos_ == "NOUN" and not any(c.dep_ == "poss" for c in t.head.children)


def _aimless(head: Token) -> bool:
    """A wish or a mood whose aim names no thing ("User wants to help make a difference",
    "User is super excited to give back", "more motivated than ever to help people"): its
    complement must hold a noun, a number or a quality beyond stock words."""
    if head.lower_ in W.WISHES:
        aims = [c for c in head.children if c.dep_ in ("xcomp", "dobj", "ccomp")]
    else:
        moods = [
            c for c in head.children if c.dep_ == "acomp" and (c.lower_ in W.FEELINGS or A.felt(c))
        ]
        aims = [x for m in moods for x in m.children if x.dep_ in ("xcomp", "prep", "ccomp")]
    if not aims:
        return False
    return not any(_names(t) for a in aims for t in a.subtree)


_OBJECTS = frozenset(
    ["dobj", "attr", "xcomp", "ccomp", "acomp", "oprd", "prt", "dative", "auxpass"]
)


def _the_bare(t: Token) -> bool:
    """ "the X" with nothing that says which ("concerned about the cost", "enjoying the
    lessons"): the turn said which; a place ("at the gym") is one all the same."""
    det = [c for c in t.children if c.dep_ == "det"]
    if not det or det[0].lower_ != "the" or t.pos_ != "NOUN" or t.head.lower_ in W.TASTES:
        return False  # "User loves the ocean": a kind of thing
    if any(c.dep_ not in ("det", "punct", "cc") for c in t.children):
        return False
    return not (t.dep_ == "pobj" and t.head.lower_ in W.PLACE_PREPS)


def _owned_thing(head: Token) -> bool:
    """ "We have a parrot called Kiwi", "we own two cabins": something the user and others
    have, counted or named (not "we have fun", "we have a lot in common")."""
    if head.lower_ not in ("have", "has", "own", "owns"):
        return False
    return any(
        c.dep_ == "dobj"
        and _names(c)
        and any(d.dep_ in ("det", "nummod") and d.lower_ != "the" for d in c.children)
        for c in head.children
    )


def _names(t: Token) -> bool:
    """A noun, a number or a quality beyond stock words and feelings."""
    low = t.lower_
    stock = low in W.VAGUE or low in W.STOCK or low in W.FEELINGS or low in W.TIME_NOUNS
    if _the_bare(t):
        return False  # "inspired to explore the genre": which genre the turn said
    return not stock and (t.pos_ in ("NOUN", "PROPN", "NUM") or (t.pos_ == "ADJ" and not A.felt(t)))


def _vague_attempt(head: Token) -> bool:
    """An attempt at a light verb ("trying to stay positive", "try to make it work")."""
    return head.lower_ in W.ATTEMPTS and any(
        c.dep_ == "xcomp" and (c.lower_ in W.LIGHT or c.lower_ in ("stay", "keep"))
        for c in head.children
    )


def _the_thing(c: Token) -> bool:
    """A definite object with no name in it ("the color and texture", "the way it turned
    out"): a thing the turn or its photo shows."""
    if c.dep_ != "dobj":
        return False
    det = next((x for x in c.children if x.dep_ == "det"), None)
    named = any(x.pos_ == "PROPN" for x in c.subtree)
    said = any(x.dep_ not in ("det", "punct") for x in c.children)  # not "the ocean"
    return det is not None and det.lower_ == "the" and said and not named


def _owner_unknown(tokens: list[Token], subject: Subject, head: Token) -> bool:
    """True when a possessive of someone else ("her", "his", "their") in a clause about the
    user has no one in the clause to stand for."""
    owners = {"his", "her", "its"} | ({"their"} if subject.kind == USER else set())
    if subject.kind == OTHER:
        return False
    return any(
        t.dep_ == "poss"
        and t.lower_ in owners
        and (t.lower_ in ("his", "her") or not _in_relative(t, head))  # "the wind in her hair"
        for t in tokens
    )


def _hedged(head: Token) -> bool:
    """True when a hedge before the clause governs it ("I'm sure, I can ...", "I guess I
    ...")."""
    return any(
        c.dep_ in ("ccomp", "parataxis", "advcl")
        and c.i < head.i
        and (
            c.lower_ in W.HEDGES
            or any(x.dep_ == "acomp" and x.lower_ in W.HEDGE_STATES for x in c.children)
        )
        for c in head.children
    )


def _happened(clause: Clause) -> bool:
    """True for a clause in a past or progressive tense (an event, not a maxim)."""
    verbs = [clause.head, *clause.governing]
    return any(t.tag_ in ("VBD", "VBN", "VBG") or t.lower_ in ("used",) for t in verbs)


def _going_to(head: Token) -> bool:
    return bool(
        head.lower_ in ("going", "gon")
        and any(c.dep_ == "xcomp" and c.tag_ == "VB" for c in head.children)
    )


def _placed(tokens: list[Token]) -> bool:
    """True when a clause says where, names something by name, or someone of the user's
    ("went camping in the mountains", "explored Oregon", "visited my parents")."""
    return any(
        t.pos_ == "PROPN"
        or (t.dep_ == "pobj" and t.head.lower_ in W.PLACE_PREPS)
        or (t.dep_ == "poss" and t.lower_ in ("my", "our"))
        for t in tokens
    )


def _sorry_or_sure(t: Token) -> bool:
    """An apology, or certainty about what follows: about the listener or a hope."""
    if t.lower_ == "sorry":
        return True
    return t.lower_ in W.HEDGE_STATES and any(c.dep_ == "ccomp" for c in t.children)


def _bare_feeling(head: Token) -> bool:
    """A clause whose point is a feeling with nothing after it ("I'm so excited!")."""
    comps = [c for c in head.children if c.dep_ in ("acomp", "attr", "advmod", "oprd")]
    feeling = [c for c in comps if c.lower_ in W.FEELINGS or A.felt(c)]
    if not feeling:
        return head.lower_ in W.FEELINGS and not [r for r in head.rights if not r.is_punct]
    others = [c for c in head.children if c.dep_ in ("dobj", "prep", "xcomp", "ccomp", "attr")]
    inner = [c for f in feeling for c in f.children if c.dep_ in ("prep", "xcomp", "ccomp")]
    said = [c for c in [*others, *inner] if c.dep_ in ("xcomp", "ccomp")]
    return not (others or inner) or any(c.lower_ in W.HEDGES | W.CHATTER for c in said)


def _vague(t: Token, head: Token) -> bool:
    low = t.lower_
    if low == "more" and any(c.lower_ in ("few", "some", "one", "couple") for c in t.children):
        return True  # "User submitted a few more": more of what the turn said
    if low in W.NO_IDIOMS and any(c.lower_ == "no" for c in t.children):
        return True
    if low not in W.VAGUE:
        return False
    if t.dep_ in ("dobj", "pobj", "attr", "dative", "oprd", "nsubj", "nsubjpass"):
        return not _in_relative(t, head)
    if t.dep_ == "det":
        return _vague_det(t) and not _in_relative(t, head) and low not in W.COUNTING
    return t.dep_ == "advmod" and low in ("there", "here") and not _in_relative(t, head)


def _vague_det(t: Token) -> bool:
    """A demonstrative pointing at a thing the turn alone shows ("this book", but not
    "this month", nor "this new book", written "a new book": :func:`pointed`)."""
    if t.dep_ != "det" or t.lower_ not in W.VAGUE:
        return False
    return t.lower_ not in DEMONSTRATIVES or (t.head.lower_ not in W.TIME_NOUNS and not pointed(t))


def _in_relative(t: Token, head: Token) -> bool:
    """True when ``t`` is inside a relative clause, or a subordinate clause with a subject
    of its own ("when it rained"): its pronouns are that clause's business."""
    x = t
    while x.i != head.i and x.head.i != x.i:
        infinitive = x.dep_ == "acl" and any(
            c.lower_ == "to" and c.dep_ == "aux" for c in x.children
        )
        if (x.dep_ in ("relcl", "acl") and not infinitive) or (
            x.dep_ == "advcl" and subject_of(x) is not None
        ):
            return True  # not "want my apartment to reflect that": its "that" is the point
        x = x.head
    return False


def _qualifies(c: Token) -> bool:
    """A word that gives a bare verb its point ("cannot swim", "no longer smokes", "swims
    every morning")."""
    if c.dep_ == "advmod":
        return c.lower_ in (
            "longer",
            "never",
            "anymore",
            "professionally",
            "daily",
            "weekly",
            "home",
            "abroad",
            "overseas",
        )
    after = c.dep_ == "npadvmod" and c.i > c.head.i and c.pos_ != "PROPN"  # "swims every day"
    return c.dep_ == "neg" or after or c.lower_ in ("can", "ca")


def _says_something(tokens: list[Token], head: Token) -> bool:
    """True when the clause names a thing, a place, a number or a quality beyond stock words
    ("User is doing their best", "User has been working hard" say nothing on their own): a
    noun beyond stock words, an adjective said of the subject or of such a noun ("User is
    vegan", not "a funny story"), or a verb beside the head that is not light ("learning to
    paint"), or the head with a qualifier ("cannot swim")."""
    if head.lower_ in W.BARE_IDIOMS and not any(c.dep_ in ("dobj", "prep") for c in head.children):
        return False  # "User is not giving up", "User kept pushing"
    if head.lower_ in W.TAKING and not any(
        c.dep_ in _OBJECTS or c.lower_ in ("back", "home", "up", "out") for c in head.children
    ):
        return False  # "User just got from Best Buy": what was got is in another clause
    for t in tokens:
        low = t.lower_
        if t.dep_ in ("npadvmod", "intj") and t.i < head.i and t.pos_ == "PROPN":
            continue  # "Nah, I haven't": an opener, dropped from the fact
        noun = t.pos_ in ("NOUN", "PROPN", "NUM") and _names(t)
        if noun and (t.dep_ != "compound" or _names(t.head)):  # not "some travel ideas"
            return True
        if t.pos_ == "ADJ" and _names(t) and (t.dep_ != "amod" or _names(t.head)):
            return True
        verb = t.pos_ == "VERB" and low not in W.LIGHT and low not in W.HEDGES
        if verb and t.i != head.i and t.dep_ in ("xcomp", "conj", "pcomp", "ccomp", "advcl"):
            return True  # "learning to paint"
        if verb and t.i == head.i and any(_qualifies(c) for c in t.children):
            return True  # "cannot swim"; not a bare "User practices"
    return False


__all__ = ["refused"]
