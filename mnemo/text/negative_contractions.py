"""Negative contractions whose first part is not a word, written out by the clause reader.

spaCy's English tokenizer splits a negative contraction before its "n't": "don't" into "do" +
"n't", which the reader writes "do not" (:mod:`mnemo.text.clause_render`). For a few the part
left is no word ("can't" -> "ca" + "n't", "won't" -> "wo", "shan't" -> "sha", "ain't" ->
"ai"; without an apostrophe too: "cant" -> "ca" + "nt"), and written as it stood it made
"User's back ca not handle long drives". Each row of :data:`CONTRACTIONS` says what such a
part stands for, after one subject ("User", "my dad") and after several ("we", "my kids"),
and carries the sentences it is tested on (``tests/text/test_negative_contractions.py``).
"can" + "not" is then joined into "cannot", as it is written. Curly apostrophes ("can’t")
were made straight before the parse (:mod:`mnemo.text.apostrophes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemo.text.clauses import Token

#: The second part of a split negative contraction ("n't"; "nt" when typed without one).
NOT = frozenset(["n't", "nt"])


@dataclass(frozen=True)
class Contraction:
    """One negative contraction: the part spaCy splits off before "n't", what that part is
    written after one subject and after several, the words after the "n't" that the row is
    for (empty: any), and example sentences with the fact the reader writes of each."""

    said: str
    part: str
    one: str
    many: str
    before: frozenset[str] = frozenset()
    examples: tuple[tuple[str, str], ...] = ()


#: The rows, the first that fits winning (so a row with ``before`` comes before its default).
CONTRACTIONS: tuple[Contraction, ...] = (
    Contraction("can't", "ca", "can", "can", examples=(
        ("My back can't handle long drives any more.",
         "User's back cannot handle long drives any more"),
        ("My kids can't stand broccoli.", "User's kids cannot stand broccoli"),
    )),
    Contraction("won't", "wo", "will", "will", examples=(
        ("We won't be going to Spain this year.",
         "User and one or more others will not be going to Spain this year"),
        ("My parents won't be coming for Christmas this year.",
         "User's parents will not be coming for Christmas this year"),
    )),
    Contraction("shan't", "sha", "shall", "shall", examples=(
        ("My sister shan't be coming to the wedding.",
         "User's sister shall not be coming to the wedding"),
    )),
    Contraction("ain't", "ai", "has", "have", frozenset(["got", "gotten", "been", "had"]), (
        ("I ain't got a car.", "User has not got a car"),
        ("We ain't been to Rome yet.", "User and one or more others have not been to Rome yet"),
    )),
    Contraction("ain't", "ai", "is", "are", examples=(
        ("My kids ain't allowed sweets.", "User's kids are not allowed sweets"),
        ("My dad ain't a fan of modern jazz.", "User's dad is not a fan of modern jazz"),
    )),
)  # fmt: skip
#: The parts some row writes out.
PARTS = frozenset(row.part for row in CONTRACTIONS)


def written(t: Token, plural: bool) -> str | None:
    """The word the first part of a split negative contraction stands for (``t`` is "ca" of
    "can't"), after several people when ``plural``; None for any other token."""
    low = t.lower_
    if low not in PARTS or t.i + 1 >= len(t.doc) or t.nbor(1).lower_ not in NOT:
        return None
    after = next((x.lower_ for x in t.doc[t.i + 2 : t.i + 5] if x.pos_ != "ADV"), "")
    for row in CONTRACTIONS:
        if row.part == low and (not row.before or after in row.before):
            return row.many if plural else row.one
    return None


def plural(subject: Token | None) -> bool:
    """True when a clause's subject is several people or things ("my kids", "they", "Ann
    and Bo"); False for one, or for no subject."""
    if subject is None:
        return False
    return bool(
        subject.tag_ in ("NNS", "NNPS")
        or subject.lower_ in ("we", "they")
        or any(True for _ in subject.conjuncts)
    )


__all__ = ["CONTRACTIONS", "NOT", "PARTS", "Contraction", "plural", "written"]
