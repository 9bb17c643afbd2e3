"""The last touches of a fact's text once its words are written (:mod:`mnemo.text.clause_render`
calls :func:`finish`): an afterthought after a dash, a tacked-on "take a look" and trailing
joins are cut, quotes must pair up, and a bracket opened inside a word is closed.
"""

from __future__ import annotations

import re

#: A dash between words: what follows is an afterthought ("... last week - so exciting").
_AFTERTHOUGHT = re.compile(r"\s+[-–—]+\s+|\s*--+\s*|(?<=\w)[-–—]+\s+")
#: A command to look, tacked on after a comma ("I've done one too, take a look!").
_SHOWING = re.compile(r",\s+(?:take a look|have a look|check (?:it|this|them|that) out|see)\b.*$")
#: Trailing punctuation and dangling joins ("... and", "... so", "... lol").
_TRAIL = re.compile(
    r"(?:[\s.,!;:…~\-–—*)(\"']|\s(?:and|but|or|so|because|then|as|with|though|anyway|haha|lol))+$"
)
#: A bracket opened inside a word at the end of a fact and not closed ("401(k").
_WORD_BRACKET = re.compile(r"(?<=\w)\([^()\s]+$")


def name_dash(before: str, after: str) -> bool:
    """A dash between two capitalised words is part of a name ("Coursera - Data Science",
    "Smith - Jones"), not the start of an afterthought."""
    return before[:1].isupper() and after[:1].isupper()


def _before_afterthought(text: str) -> str:
    """``text`` up to a dash that starts an afterthought ("I loved it - best trip ever"),
    not one inside a name (:func:`name_dash`)."""
    for m in _AFTERTHOUGHT.finditer(text):
        before, after = text[: m.start()].split()[-1:], text[m.end() :].split()[:1]
        if not (before and after and name_dash(before[0], after[0])):
            return text[: m.start()]
    return text


def _balanced(text: str, closes: bool) -> str | None:
    """A fact whose quotes pair up: a title cut at its closing quote gets it back
    (`User watched "Little Women`) when the sentence closes it (``closes``); any other odd
    quote (a title the sentence splitter cut: `"Believe! Sea of Dreams"`) refuses the fact."""
    if text.count('"') % 2 == 0:
        return text
    at = text.rfind('"')
    if closes and at > 0 and text[at - 1] == " " and '"' not in text[:at]:
        return text + '"'
    return None


def without_trail(text: str) -> str:
    """``text`` without its trailing punctuation and dangling joins."""
    return _TRAIL.sub("", text)


def finish(text: str, closes: bool) -> str:
    """``text`` as a fact reads it (``""`` when it cannot be written cleanly); ``closes``:
    the sentence closes a quote after the last word written (see :func:`_balanced`)."""
    text = _before_afterthought(text)
    text = _SHOWING.sub("", text)
    text = without_trail(text).strip()
    text = _balanced(re.sub(r"\s+,", ",", re.sub(r"\s{2,}", " ", text)), closes) or ""
    return _WORD_BRACKET.sub(r"\g<0>)", text)  # "their 401(k": its ")" was cut as punctuation


__all__ = ["finish", "name_dash", "without_trail"]
