"""A parsed sentence cut into clauses: each verb that makes a statement of its own.

A clause head is the sentence's root, and a verb joined to a clause head by coordination
(``conj``: "I teach math and I coach soccer", "I teach math and coach soccer"), by a
semicolon or a loose join (``parataxis``), by a comma splice (a ``ccomp`` with its own
subject before its head: "I am Dana, I teach math"), or by a causal or concessive
subordinator with its own subject ("..., because my boss was awful", "although ...").
A clause's tokens are its head's subtree less the subtrees of the clauses inside it and the
conjunction that joins them. A clause without a subject of its own takes its head's (and its
auxiliaries, when its verb is a bare participle: "I have lived in Rome and worked in Milan").

Relative clauses, "when"/"after" clauses and complements stay in their clause: they say when
or which ("User lived in Ohio when they were a kid", "User has a sister who lives in Paris").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Token = Any  # spacy.tokens.Token (spaCy is imported only where the model loads)

SUBJECTS = frozenset(["nsubj", "nsubjpass", "expl", "csubj"])
#: Subordinators whose clause is a statement of its own.
_OWN_MARKS = frozenset(["because", "cause", "'cause", "cos", "although", "though", "whereas"])
#: Subordinators of a hypothetical: the clause they open, and the clause it hangs on, state
#: nothing.
HYPOTHETICAL = frozenset(["if", "unless", "whether", "lest", "provided", "suppose", "supposing"])


@dataclass
class Clause:
    """One clause of a sentence: its head, its tokens in order, its subject (its own or its
    head clause's) and the auxiliaries it borrowed with it."""

    head: Token
    tokens: list[Token]
    subject: Token | None
    borrowed: list[Token] = field(default_factory=list)
    #: the clause it borrowed its subject from (a refused parent refuses it too)
    parent: Clause | None = None
    #: an "if"/"unless" clause hangs on it, or it is one
    hypothetical: bool = False
    #: the auxiliaries that govern it: its own, else its parent's ("I couldn't play or help")
    governing: list[Token] = field(default_factory=list)


def verbal(t: Token) -> bool:
    """True for a verb or auxiliary that can head a clause."""
    return bool(t.pos_ in ("VERB", "AUX"))


def subject_of(head: Token) -> Token | None:
    """The subject child of ``head`` (None when it has none)."""
    return next((c for c in head.children if c.dep_ in SUBJECTS), None)


def _marks(t: Token) -> set[str]:
    return {c.lower_ for c in t.children if c.dep_ == "mark"}


def _splits(t: Token) -> bool:
    """True when ``t`` heads a clause of its own below its head clause (``t`` is a child of
    a clause head: a verb joined to an infinitive, "to meet and greet", stays in it)."""
    if not verbal(t):
        return False
    if t.dep_ == "parataxis" and _reduced_relative(t):
        return False  # "a workshop I attended last week": it stays with the workshop
    if t.dep_ in ("conj", "parataxis"):
        return True
    own = subject_of(t) is not None
    if t.dep_ == "ccomp":
        return own and t.i < t.head.i and not _marks(t)
    if t.dep_ == "advcl":
        return own and bool(_marks(t) & _OWN_MARKS)
    return False


def _reduced_relative(t: Token) -> bool:
    """A relative clause without "that" the parser read as a clause of its own ("a charity 5K
    I attended on February 5th"): nothing between it and the noun before it, and its verb
    lacks the object the noun is."""
    start = t.left_edge.i
    before = t.doc[start - 1] if start > 0 else None
    objects = ("dobj", "ccomp", "xcomp", "attr", "acomp", "oprd")
    return bool(
        before is not None
        and before.pos_ in ("NOUN", "PROPN", "NUM")
        and subject_of(t) is not None
        and not any(c.dep_ in objects for c in t.children)
    )


def _tacked_command(t: Token) -> bool:
    """A bare verb after a comma or dash with no subject ("..., take a look")."""
    before = t.doc[t.left_edge.i - 1] if t.left_edge.i > 0 else None
    return bool(
        t.tag_ == "VB"
        and t.dep_ in ("ccomp", "dep", "parataxis", "conj", "advcl")
        and t.i > t.head.i
        and subject_of(t) is None
        and before is not None
        and before.is_punct
    )


#: Subjects of a clause that comments on the one before ("..., which looks promising").
_COMMENTING = frozenset(["which", "that", "it", "this"])


def _comment(t: Token) -> bool:
    """A clause after a comma whose subject is the clause before it ("I talked to some big
    names, which looks promising"; "I got some leads, so that was awesome")."""
    s = subject_of(t)
    before = t.doc[t.left_edge.i - 1] if t.left_edge.i > 0 else None
    after_comma = before is not None and before.text in (",", "-", "–", "—", ";")
    return bool(verbal(t) and s is not None and s.lower_ in _COMMENTING and after_comma)


#: Verbs of the conversation itself ("since we last spoke", "after we talked").
_TALK = frozenset(["talked", "spoke", "chatted", "talk", "speak", "chat", "spoken"])


def _about_the_talk(t: Token) -> bool:
    """A subordinate clause that dates by the conversation ("since we last spoke")."""
    return bool(
        t.dep_ == "advcl" and t.lower_ in _TALK and any(c.lower_ == "we" for c in t.subtree)
    )


def _hypothetical(t: Token) -> bool:
    return any(c.dep_ == "advcl" and _marks(c) & HYPOTHETICAL for c in t.children) or bool(
        t.dep_ == "advcl" and _marks(t) & HYPOTHETICAL
    )


def _verbless_tail(h: Token) -> list[Token]:
    """A join after a comma with no verb after it ("I'm allergic to peanuts, so no satay
    sauce"): the comma, the joining word and what follows, cut from the clause."""
    kids = list(h.children)
    for k, c in enumerate(kids):
        if c.dep_ != "cc" or c.i < h.i or c.i == 0 or c.doc[c.i - 1].text != ",":
            continue
        after = [x for x in kids[k + 1 :] if not x.is_punct]
        if after and not any(x.dep_ == "conj" or verbal(x) for x in after):
            return [c.doc[c.i - 1], c, *(t for x in after for t in x.subtree)]
    return []


def split(sent: Any) -> list[Clause]:
    """The clauses of one parsed sentence (a spaCy ``Span``), in order of their heads."""
    heads: list[Token] = []
    todo = [sent.root]
    while todo:
        h = todo.pop()
        heads.append(h)
        for t in h.subtree:
            if t.i != h.i and t.head.i == h.i and _splits(t):
                todo.append(t)
    heads.sort(key=lambda t: t.i)
    head_set = {t.i for t in heads}
    out: list[Clause] = []
    by_head: dict[int, Clause] = {}
    for h in heads:
        skip: set[int] = set()
        for other in heads:
            if other.i != h.i and _inside(other, h):
                skip.update(t.i for t in other.subtree)
        for c in h.children:  # a command tacked on: "I've done one too, take a look!"
            if _tacked_command(c):
                skip.update(t.i for t in c.subtree)
        for c in h.subtree:  # a comment: "..., which looks promising", "..., so that was great";
            # a time told by the conversation: "since we last spoke" (it says nothing later)
            if c.i != h.i and (_comment(c) or _about_the_talk(c)):
                skip.update(t.i for t in c.subtree)
        skip.update(t.i for t in _verbless_tail(h))  # "..., so no satay sauce"
        joins = {c.i for c in h.children if c.dep_ in ("cc", "preconj")}
        if any(c.i in head_set for c in h.children if c.dep_ == "conj"):
            skip |= joins
        # in the sentence's order: a subtree is not, when the parse crosses itself ("files
        # that I want to store": "that" hangs on "store")
        tokens = sorted((t for t in h.subtree if t.i not in skip), key=lambda t: t.i)
        subject, borrowed = subject_of(h), []
        parent = by_head.get(h.head.i) if h.dep_ == "conj" else None
        if subject is None and parent is not None:
            subject = parent.subject
            same = h.tag_ == parent.head.tag_  # "have lived ... and worked", not "'ve been
            # working ... and just teamed up"
            # "I can expand my store and get closer to ...": "can" is the bare verb's too
            if (
                same
                and h.tag_ in ("VBN", "VBG", "VB")
                and not any(c.dep_ == "aux" for c in h.children)
            ):
                borrowed = [c for c in parent.head.children if c.dep_ in ("aux", "neg")]
                borrowed = borrowed or list(parent.borrowed)
        own = subject_of(h) is not None
        clause = Clause(h, tokens, subject, borrowed, None if own else parent, _hypothetical(h))
        if parent is not None and parent.hypothetical:
            clause.hypothetical = True
        clause.governing = [c for c in h.children if c.dep_ in ("aux", "auxpass", "neg")]
        if clause.parent is not None and not clause.governing:
            clause.governing = list(clause.parent.governing)
        by_head[h.i] = clause
        out.append(clause)
    return out


def _inside(inner: Token, outer: Token) -> bool:
    """True when ``inner`` is in ``outer``'s subtree."""
    t = inner
    while t.head.i != t.i:
        t = t.head
        if t.i == outer.i:
            return True
    return False


__all__ = ["HYPOTHETICAL", "SUBJECTS", "Clause", "split", "subject_of", "verbal"]
