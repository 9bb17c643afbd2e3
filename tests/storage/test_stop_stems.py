"""Query terms whose stem is a stop word's stem never match stop words (issue 33, item 7).

SQLite's index stems with Porter and keeps stop words: "Ines" and "Inês" stem to "in", so
before this rule the query "Inês" matched every turn saying "in". PostgreSQL drops stop words
before stemming; the same guarantees are checked on both stores.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mnemo import Memory
from mnemo.retrieval.lexical import query_terms
from mnemo.storage.base import MESSAGE
from mnemo.storage.scope import ReadScope
from mnemo.storage.sqlite.fts_terms import match_expression, searchable, stop_stems
from mnemo.text.stopwords import STOPWORDS

QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}
PRIYA = "Priya lives in Edinburgh"
INES = "Inês loves pottery"
#: one turn holding every stop word (and nothing else)
ALL_STOPWORDS = " ".join(sorted(STOPWORDS))
#: words whose Porter stem is a stop word's stem: "in", "on", "at", "doe" ("does"), "hi"
#: ("his"), "ani" ("any"), "he", "we", "the", "own", "other", "will"
COLLIDING = ["Ines", "Inês", "ones", "ate", "Doe", "hi", "Ani", "Hes", "Wes", "Thes", "owned"]
#: short names that only look like stop words: their stems are their own
NAMES = ["Ana", "Isa", "Thea", "Bea", "Ond", "Ida", "Ina", "Otto"]


def test_searchable_leaves_out_the_terms_stemmed_to_a_stop_word() -> None:
    assert {"in", "on", "at", "doe", "hi", "wa"} <= stop_stems()
    terms = [w.lower() for w in COLLIDING + NAMES]
    assert searchable(terms) == [w.lower() for w in NAMES]
    assert searchable(["who", "am", "i"]) == ["who", "am", "i"]  # stop words themselves stay
    assert searchable(["in es", "painting", "edinburgh"]) == ["in es", "painting", "edinburgh"]
    assert searchable([]) == [] and match_expression([]) is None
    assert match_expression(["a", 'say "hi"']) == 'text : ("a" OR "say ""hi""")'


def lexical_contents(mem: Memory, query: str) -> list[str]:
    """Contents of the store's BM25 candidates for ``query``'s terms, best first."""
    found = mem.store.search.lexical(ReadScope("default", "u"), query_terms(query), 50)
    rows = mem.store.search.fetch([ref for ref, _ in found])
    return [rows[ref]["content"] for ref, _ in found]


@pytest.mark.parametrize("query", ["Inês", "Ines", "ines", "INES?"])
def test_a_name_stemmed_to_in_does_not_match_in(
    open_mem: Callable[..., Memory], query: str
) -> None:
    mem = open_mem(**QUIET)
    mem.add_messages([{"role": "user", "content": t} for t in (PRIYA, INES)], "u")
    assert PRIYA not in lexical_contents(mem, query)
    hits = mem.search(query, user_id="u", explain=True)
    assert all("lexical" not in h.scores for h in hits if h.content == PRIYA)
    if query == "Inês":
        assert hits[0].content == INES


def test_no_stop_word_is_matched_by_a_colliding_word(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(**QUIET)
    turns = [ALL_STOPWORDS, *(f"{w} came by" for w in NAMES)]
    mem.add_messages([{"role": "user", "content": t} for t in turns], "u")
    for word in COLLIDING:
        assert ALL_STOPWORDS not in lexical_contents(mem, word), word
        assert ALL_STOPWORDS not in lexical_contents(mem, f"{word} pottery"), word
    for name in NAMES:
        assert lexical_contents(mem, name) == [f"{name} came by"], name


def test_idf_sum_counts_only_the_searched_terms(
    open_mem: Callable[..., Memory], backend: str
) -> None:
    """The coverage ceiling of a query is the idf of the terms its BM25 searches."""
    mem = open_mem(**QUIET)
    mem.add_messages([{"role": "user", "content": t} for t in (PRIYA, INES, "a kiln")], "u")
    idf = mem.store.search.lexical_idf
    with_name = idf("default", "u", ["ines", "pottery"])[MESSAGE]
    if backend == "sqlite":  # "ines" is left out of the search, and of its ceiling
        assert with_name == pytest.approx(idf("default", "u", ["pottery"])[MESSAGE])
    else:  # PostgreSQL searches its lexeme "ine"
        assert with_name > idf("default", "u", ["pottery"])[MESSAGE]
