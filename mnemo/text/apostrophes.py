"""Curly apostrophes made straight, for the rules that read contractions.

Phones and word processors type "I’m", "I’ve", "don’t" with a right single quotation mark
(U+2019). The rules (and spaCy's English tokenizer exceptions) know contractions with a
straight apostrophe only, so "I’ve quit my job" ended nothing and the clause reader wrote
"User ’m". Every rule that reads a turn for facts, profile values or ended states reads it
through :func:`straight`; what is stored and shown keeps the text as it was typed.
"""

from __future__ import annotations


def straight(text: str) -> str:
    """``text`` with each right single quotation mark (’) as an apostrophe (')."""
    return text.replace("\u2019", "'")


__all__ = ["straight"]
