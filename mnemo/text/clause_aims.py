"""Clauses whose aim only the turn names, and purposes: refusals of the clause reader
(:mod:`mnemo.text.clause_screen` asks these).

A mood, an interest or an open choice aimed at an unnamed "the X" ("excited to try out the
almond butter energy balls"), a wish to "make sure", an amount with nothing it is spent on,
a purpose ("so my audience can ...", "this way I can ...") and "not only X" all leave their
point in the turn. The words are in :mod:`mnemo.text.clause_words`.
"""

from __future__ import annotations

from mnemo.text import clause_words as W
from mnemo.text.clauses import Clause, Token

_AIMS = frozenset(["dobj", "pobj", "prep", "xcomp", "pcomp"])


def definite_unnamed(t: Token) -> bool:
    """ "the X" (adjectives and common nouns before it allowed) with no name in it and nothing
    after it saying which ("the cake design", "the local food"): a thing the turn, or the
    listener, named before."""
    det = [c for c in t.children if c.dep_ == "det"]
    if not det or det[0].lower_ != "the" or t.pos_ != "NOUN":
        return False
    if t.lower_ in W.TIME_NOUNS or t.lower_ in W.ONE_OF_A_KIND:
        return False  # "the weekend", "explore the world"
    if any(x.pos_ == "PROPN" or (x.text[:1].isupper() and x.i > x.sent.start) for x in t.subtree):
        return False  # a name, or a title the tagger read as a noun ("The Power")
    return all(c.dep_ in ("det", "amod", "compound", "punct", "cc", "conj") for c in t.children)


def pointing(t: Token) -> bool:
    """An unnamed "the X" whose noun points at something the conversation named (a work, an
    event, a plan: ``DISCOURSE_NOUNS``), anywhere in the clause ("the themes in the film")."""
    compound = any(c.dep_ == "compound" for c in t.children)  # "the meditation experience"
    return t.lower_ in W.DISCOURSE_NOUNS and not compound and definite_unnamed(t)


def under_reassurance(head: Token) -> bool:
    """A clause inside what a "make sure" is about ("I want to make sure my bike is secure
    and I'm visible to motorists": "visible")."""
    x = head
    while x.head.i != x.i:
        if _made_sure(x):
            return True
        x = x.head
    return False


def _made_sure(t: Token) -> bool:
    """The "sure" (or "certain") of a "make sure"."""
    return t.lower_ in ("sure", "certain") and t.head.lower_ in ("make", "makes", "making")


def aim_unnamed(head: Token) -> bool:
    """A mood, an interest or an open choice whose first aim is :func:`definite_unnamed`
    ("User is excited to try out the almond butter energy balls", "User is still deciding on
    the coffee beans", "User is inspired to explore the genre further")."""
    starts = [head] if head.lower_ in W.CHOOSING else []
    starts += [
        c
        for c in [head, *head.children]
        if (c.lower_ in W.FEELINGS or felt(c)) and (c is head or c.dep_ in ("acomp", "oprd"))
    ]
    for start in starts:
        aim = first_aim(start)
        if aim is not None and definite_unnamed(aim):
            return True
    return False


def first_aim(t: Token) -> Token | None:
    """The first noun ``t`` aims at through its infinitives, prepositions and object
    ("excited to start working on the cake design" -> "design")."""
    for _ in range(6):
        nxt = next(
            (
                c
                for c in t.children
                if c.dep_ in ("dobj", "pobj", "prep", "xcomp", "pcomp", "prt") and c.dep_ != "prt"
            ),
            None,
        )
        if nxt is None:
            return None
        if nxt.dep_ in ("dobj", "pobj"):
            return nxt
        t = nxt
    return None


def reassurance(head: Token) -> bool:
    """A wish or an attempt to "make sure": a reassurance, whose point only the turn gives
    ("User wants to make sure they are choosing a provider ..."; not "User is passionate
    about making sure veterans are supported")."""
    if head.lower_ not in W.WISHES | W.ATTEMPTS:
        return False
    aims = [c for c in head.children if c.dep_ == "xcomp"]
    return any(_made_sure(x) for c in aims for x in c.children)


def amount_alone(tokens: list[Token]) -> bool:
    """An amount spent with nothing it is spent on ("User is willing to spend around $40")."""
    for t in tokens:
        if t.lower_ not in W.SPENDING:
            continue
        money = any(x.lower_ == "$" or x.pos_ == "NUM" for x in t.subtree if x.i > t.i)
        on = any(c.dep_ == "prep" and c.lower_ in ("on", "for") for c in t.children)
        if money and not on:
            return True
    return False


def purpose(clause: Clause, aux_words: set[str]) -> bool:
    """ "So (that) X can ...", "this way I can ...": a purpose, not a fact. The marker may
    stand before the first of joined verbs ("so my audience can find and engage with ...",
    "This way, my notes will be fresh, and I can record ...")."""
    if not aux_words & {"can", "ca", "could"}:
        return False
    heads, x = [clause.head], clause.head
    while x.dep_ == "conj" and x.head.i != x.i:
        x = x.head
        heads.append(x)
    return any(
        c.i < h.i
        and (
            (c.lower_ == "so" and c.dep_ in ("mark", "advmod", "cc"))
            or (
                c.lower_ in W.PURPOSE_NOUNS
                and any(d.lower_ in ("this", "that") for d in c.children)
            )
        )
        for h in heads
        for c in h.children
    )


def not_only(tokens: list[Token]) -> bool:
    """ "not only X (but also Y)": the rest of the sentence carries the point."""
    return any(
        t.lower_ == "only" and t.i > 0 and t.doc[t.i - 1].lower_ in ("not", "n't") for t in tokens
    )


def felt(t: Token) -> bool:
    """An adjective of a feeling by its form ("elated", "exhausted"), not of a status."""
    return bool(t.pos_ == "ADJ" and t.lower_.endswith("ed") and t.lower_ not in W.STATUSES)


__all__ = [
    "aim_unnamed",
    "amount_alone",
    "definite_unnamed",
    "felt",
    "first_aim",
    "not_only",
    "pointing",
    "purpose",
    "reassurance",
    "under_reassurance",
]
