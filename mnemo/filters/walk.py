"""Best first under a filter: the ``n`` best rows that match, read from a ranking that ignores
the filter, without evaluating the filter on every row when it is not selective.

:func:`best_matching` takes the ``m`` best rows of the unfiltered ranking (``m`` = 4 x ``n``,
at least 256), keeps those the filter accepts (asked about those rows only), and while fewer
than ``n`` are kept asks for 4 x more; past :data:`SCAN_AT` rows it runs the filtered ranking
itself once (``scan``: the filter evaluated on every row of the scope). Either way the result
is exactly the ``n`` best matching rows, in rank order: a row left out ranks below every row
kept. A filter that matches 10% of the rows costs a lookup of a few hundred rows; one that
matches almost nothing costs one scan, as it would have anyway.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: How many times more rows each round looks at.
WIDEN = 4
#: Fewest rows the first round looks at.
FIRST = 256
#: Rows looked at past which the filtered ranking is run instead.
SCAN_AT = 4096


def best_matching(
    ranked: Callable[[int], Sequence[T]],
    keep: Callable[[Sequence[T]], Sequence[bool]],
    n: int,
    scan: Callable[[], Sequence[T]],
) -> list[T]:
    """The first ``n`` rows of ``ranked(m)`` (the best ``m`` rows, best first, filter
    ignored) that ``keep`` accepts; ``scan()`` (the filtered ranking's best ``n``) once more
    than :data:`SCAN_AT` rows would be looked at."""
    m = max(WIDEN * n, FIRST)
    while m <= SCAN_AT:
        got = ranked(m)
        kept = [row for row, ok in zip(got, keep(got), strict=True) if ok][:n]
        if len(kept) == n or len(got) < m:
            return kept
        m *= WIDEN
    return list(scan())


__all__ = ["FIRST", "SCAN_AT", "WIDEN", "best_matching"]
