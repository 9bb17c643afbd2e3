"""Date expressions in a query, resolved to time windows against the query's ``now``.

"When did Melanie go camping in June?", "What did Gina find on 1 February, 2023?": a question
that names a date asks about what was said around then. :func:`windows` finds explicit dates
(a day, a month, a year) and a few relative ones ("yesterday", "last week", "3 months ago") and
turns each into a window of epoch seconds; the pipeline then multiplies the relevance of turns
written inside a window (see :func:`date_prior`).

People report events after they happen, so every window is extended forwards: by 3 days for
a day, 14 days for a week or a month, 31 days for a year. A day or month named without a year
is the latest one not after ``now``. "May" alone is a month only after a preposition ("in May",
"during May", "last May", "early May"), never the verb. Seasons ("last summer") were measured
and left out: they cost LoCoMo 0.2 points of R@10 (people tell of a summer's events in autumn).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import numpy as np

from mnemo.text.months import MONTHS

DAY = 86400.0
_MONTHS = MONTHS
_MONTH_OF = (
    {m: i + 1 for i, m in enumerate(_MONTHS)}
    | {m[:3]: i + 1 for i, m in enumerate(_MONTHS) if m != "may"}
    | {"sept": 9}
)
_MON = r"(?P<mon>" + "|".join(sorted(_MONTH_OF, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_DAYN = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_NUM |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a few": 3, "few": 3, "couple of": 2}

#: (pattern, kind), most specific first; a span matched by one is not matched again.
_PATTERNS = [
    (re.compile(rf"\b{_MON}\s+{_DAYN}(?:,\s*|\s+){_YEAR}\b", re.I), "day"),
    (re.compile(rf"\b{_DAYN}\s+(?:of\s+)?{_MON}(?:,\s*|\s+){_YEAR}\b", re.I), "day"),
    (re.compile(r"\b(?P<year>(?:19|20)\d{2})-(?P<mnum>[01]\d)-(?P<day>[0-3]\d)\b"), "day"),
    (re.compile(rf"\b{_MON}\s+{_DAYN}\b(?!\s*,?\s*(?:19|20)\d{{2}})", re.I), "day"),
    (re.compile(rf"\b{_DAYN}\s+(?:of\s+)?{_MON}\b", re.I), "day"),
    (re.compile(rf"\b{_MON},?\s+(?:of\s+)?{_YEAR}\b", re.I), "month"),
    (
        re.compile(
            rf"\b(?:(?:in|during|last|this|early|late|since|by|until|of)\s+|mid-?\s*){_MON}\b",
            re.I,
        ),
        "month",
    ),
    (re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR}\b", re.I), "year"),
    (re.compile(r"\b(?P<rel>yesterday|last night)\b", re.I), "yesterday"),
    (re.compile(r"\blast (?P<unit>week|weekend|month|year)\b", re.I), "last"),
    (
        re.compile(
            r"\b(?P<n>\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|"
            r"couple of)\s+(?P<unit>day|week|month|year)s?\s+ago\b",
            re.I,
        ),
        "ago",
    ),
]
_SLACK = {"day": 3 * DAY, "week": 14 * DAY, "month": 14 * DAY, "year": 31 * DAY}
_UNIT_DAYS = {"day": 1.0, "week": 7.0, "weekend": 7.0, "month": 30.44, "year": 365.25}


def _month_window(year: int, month: int) -> tuple[float, float]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start.timestamp(), end.timestamp() + _SLACK["month"]


def _latest_year(month: int, day: int, now: datetime) -> int:
    """The year of the latest (month, day) not after ``now``."""
    try:
        this_year = datetime(now.year, month, min(day, 28 if month == 2 else day), tzinfo=UTC)
    except ValueError:
        return now.year
    return now.year if this_year <= now else now.year - 1


def _window(m: re.Match[str], kind: str, now: datetime) -> tuple[float, float] | None:
    g = m.groupdict()
    t = now.timestamp()
    if kind in ("day", "month"):
        month = int(g["mnum"]) if g.get("mnum") else _MONTH_OF[g["mon"].lower().rstrip(".")]
        day = int(g["day"]) if g.get("day") else 1
        year = int(g["year"]) if g.get("year") else _latest_year(month, day, now)
        if kind == "month":
            return _month_window(year, month)
        try:
            start = datetime(year, month, day, tzinfo=UTC).timestamp()
        except ValueError:
            return None
        return start, start + DAY + _SLACK["day"]
    if kind == "year":
        year = int(g["year"])
        start = datetime(year, 1, 1, tzinfo=UTC).timestamp()
        return start, datetime(year + 1, 1, 1, tzinfo=UTC).timestamp() + _SLACK["year"]
    if kind == "yesterday":
        return t - 2 * DAY, t
    unit = g["unit"].lower()
    span = _UNIT_DAYS[unit] * DAY
    if kind == "last":
        return t - 2 * span, t
    raw = g["n"].lower()
    n = int(raw) if raw.isdigit() else _NUM.get(raw, 1)
    centre = t - n * span
    return centre - span, min(centre + span, t)


def windows(query: str, now: datetime | float) -> list[tuple[float, float]]:
    """Time windows ``[start, end)`` (epoch seconds) of the date expressions in ``query``;
    none when ``now`` lies at the calendar's end (epoch seconds rounding past 9999)."""
    try:
        ref = now if isinstance(now, datetime) else datetime.fromtimestamp(now, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return []
    if ref.tzinfo is None:
        ref = ref.replace(tzinfo=UTC)
    taken: list[tuple[int, int]] = []
    out: list[tuple[float, float]] = []
    for pattern, kind in _PATTERNS:
        for m in pattern.finditer(query):
            if any(m.start() < b and a < m.end() for a, b in taken):
                continue
            taken.append(m.span())
            try:
                found = _window(m, kind, ref)
            except (ValueError, OverflowError):  # a date past datetime's range (year 9999)
                found = None
            if found is not None:
                out.append(found)
    return out


def date_prior(times: np.ndarray, spans: list[tuple[float, float]], weight: float) -> np.ndarray:
    """1 + ``weight`` for times inside any window, else 1 (all 1 when there is none)."""
    inside = np.zeros(len(times), dtype=bool)
    for start, end in spans:
        inside |= (times >= start) & (times < end)
    return np.where(inside, 1.0 + weight, 1.0)


__all__ = ["date_prior", "windows"]
