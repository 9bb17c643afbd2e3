"""The English month names, the one list the date rules and the grounding check read."""

from __future__ import annotations

#: The months in order, lower case.
MONTHS: tuple[str, ...] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
#: Every word that names a month: the full names, their three-letter abbreviations, "sept".
MONTH_WORDS: frozenset[str] = frozenset(MONTHS) | {m[:3] for m in MONTHS} | {"sept"}

__all__ = ["MONTHS", "MONTH_WORDS"]
