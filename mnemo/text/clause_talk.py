"""Clauses about the conversation itself, not about the speaker: refusals of the clause reader
(:mod:`mnemo.text.clause_screen` asks these).

In a chat with an assistant, a user says things that are only true of the chat: what their
next prompt will hold ("my next prompt will contain the details"), what they meant ("I'm
actually referring to the buses"), which of the assistant's suggestions they like ("I love
the BBQ chicken and the tofu ideas"). A clause cut at "can't help but" ("I can't help but
worry") loses its point with the "but". None of these is a fact a person would sign about
themselves. The words are in :mod:`mnemo.text.clause_words`.
"""

from __future__ import annotations

from mnemo.text import clause_words as W
from mnemo.text.clauses import Token


def about_the_chat(tokens: list[Token], head: Token) -> bool:
    """A clause whose subject or object is a message of the user's in the chat ("my next
    prompt", "the last question"; a time "since our last chat" is not), or whose verb says
    what the user meant ("referring to")."""
    if head.lower_ in W.MEANING_VERBS:
        return True
    return any(
        t.lower_ in W.CHAT_NOUNS
        and t.dep_ in ("nsubj", "nsubjpass", "dobj")  # not "since our last chat"
        and any(c.lower_ in ("my", "our", "next", "last", "previous") for c in t.children)
        for t in [*tokens, *head.children]
    )


def reaction_to_suggestions(head: Token) -> bool:
    """A taste whose object is a list of suggestions ("love the BBQ chicken and the tofu
    ideas", "like some tips"), not one it names ("the idea of ..."): a remark on what the
    assistant offered."""
    if head.lower_ not in W.TASTES:
        return False
    objects = [c for c in head.children if c.dep_ == "dobj"]
    objects += [x for o in objects for x in o.conjuncts]
    return any(
        o.lower_ in W.SUGGESTIONS and not any(c.lower_ == "of" for c in o.children) for o in objects
    )  # "loves the idea of exploring ...": the idea is named


def cannot_help_but(head: Token, aux_words: set[str]) -> bool:
    """ "I can't help but worry": the point is after the "but", which the clause loses."""
    return (
        head.lower_ == "help"
        and bool(aux_words & {"can", "ca"})
        and any(c.dep_ == "neg" for c in head.children)
        and not any(c.dep_ in ("dobj", "xcomp", "ccomp") for c in head.children)
    )


__all__ = ["about_the_chat", "cannot_help_but", "reaction_to_suggestions"]
