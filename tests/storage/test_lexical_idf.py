"""``lexical_idf``: the query terms' idf sum, on both stores, as their own BM25 weighs terms."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from mnemo import Memory
from mnemo.storage.base import MEMORY, MESSAGE
from mnemo.storage.scope import ReadScope
from mnemo.storage.sqlite.fts_stats import MIN_IDF, idf, varint

QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}
#: five turns of three words each, so every turn has the average length
TURNS = [
    "alpha beta gamma",
    "alpha delta epsilon",
    "zeta theta iota",
    "kappa lambda omicron",
    "sigma upsilon omega",
]


def fts5_idf(n: int, df: int) -> float:
    """FTS5's idf: max(log((N - df + 0.5) / (df + 0.5)), 1e-6)."""
    return max(math.log((n - df + 0.5) / (df + 0.5)), 1e-6)


def test_varint_and_idf_helpers() -> None:
    assert varint(bytes([0x05]), 0) == (5, 1)
    assert varint(bytes([0x81, 0x00, 0x07]), 0) == (128, 2)
    assert idf(5, 1) == pytest.approx(math.log(4.5 / 1.5))
    assert idf(5, 4) == MIN_IDF  # in more than half the rows: FTS5's floor
    assert idf(3, 5) == MIN_IDF  # a count taken after rows were added: never a domain error


def test_idf_sum_per_table(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(**QUIET)
    mem.add_messages([{"role": "user", "content": t} for t in TURNS], user_id="u")
    got = mem.store.search.lexical_idf("default", "u", ["alpha", "zeta", "missing"])
    want = fts5_idf(5, 2) + fts5_idf(5, 1) + fts5_idf(5, 0)
    assert got[MESSAGE] == pytest.approx(want)
    assert got[MEMORY] == pytest.approx(3 * MIN_IDF)  # no memory rows at all
    assert mem.store.search.lexical_idf("default", "u", [])[MESSAGE] == 0.0


def test_an_average_row_holding_each_term_once_scores_the_sum(
    open_mem: Callable[..., Memory],
) -> None:
    """The ceiling is the store's own BM25 of such a row: coverage 1 means "all of it"."""
    mem = open_mem(**QUIET)
    mem.add_messages([{"role": "user", "content": t} for t in TURNS], user_id="u")
    match = ["zeta", "theta"]
    (ref, score), *_ = mem.store.search.lexical(ReadScope("default", "u"), match, 5)
    assert score == pytest.approx(
        mem.store.search.lexical_idf("default", "u", ["zeta", "theta"])[ref[0]]
    )
