"""The one sentence splitter of mnemo: every rule that reads text sentence by sentence uses it.

A sentence ends at ``.``, ``!``, ``?``, ``…`` or ``;`` followed by white space (a closing quote
or bracket may come between: ``He said "yes." Then``), and at a line break. A full stop
after a known abbreviation ("Mr.", "Dr.", "e.g.") or a single letter ("J. K. Rowling", "U.S.")
does not end a sentence, nor does one without white space after it ("3.5", "mnemo.text").
Pieces without a letter or digit ("...", "!!") are left out; every sentence keeps its own
punctuation and is stripped.

Used by the fact rules (:mod:`mnemo.text.fact_rules`), the profile rules and extractive
summaries (:mod:`mnemo.text.profile_rules`, :mod:`mnemo.text.extractive`), the turn kinds
(:mod:`mnemo.text.turn_kinds`) and the extra index keys of long turns (:mod:`mnemo.index.keys`).
"""

from __future__ import annotations

import re

#: Where a sentence ends: white space after its closing mark, or white space holding a line
#: break. Each alternative starts only where a run of white space starts (after a mark, or
#: after no white space), so a long run costs its length once, not once per character.
_END = re.compile(r"(?:(?<=[.!?…;])|(?<=[.!?…;][\"'”’)\]]))\s+|(?<!\s)\s*\n\s*")
_WORD = re.compile(r"[^\W_]", re.UNICODE)
#: Words whose full stop does not end a sentence (compared lower case, without the stop).
ABBREVIATIONS = frozenset(
    ["mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx"]
)


def _abbreviated(piece: str) -> bool:
    """True when ``piece`` ends with an abbreviation's full stop ("Mr.", "J.", "U.S.")."""
    if not piece.endswith("."):
        return False
    last = piece.rsplit(None, 1)[-1][:-1].lower()
    return last in ABBREVIATIONS or bool(re.fullmatch(r"(?:[a-z]\.)*[a-z]", last))


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see the module docstring), in order.

    >>> sentences('Hi Ann! I met Dr. Ruiz. She said "sure." How are you?\\nFine')
    ['Hi Ann!', 'I met Dr. Ruiz.', 'She said "sure."', 'How are you?', 'Fine']
    """
    out: list[list[str]] = []  # each sentence's pieces, joined once at the end
    for match in _END.split(text):
        piece = match.strip()
        if not piece:
            continue
        if out and _abbreviated(out[-1][-1]):
            out[-1].append(piece)
        else:
            out.append([piece])
    joined = (" ".join(parts) for parts in out)
    return [s for s in joined if _WORD.search(s)]


__all__ = ["ABBREVIATIONS", "sentences"]
