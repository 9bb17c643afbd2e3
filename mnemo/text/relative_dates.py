"""Relative time phrases of a fact, resolved against the date its turn was said.

A fact keeps its phrase and gains the date it means, in brackets, so it still reads right
once the turn is old::

    User sprained their ankle on Friday      (said Monday 8 May 2023, past tense)
    ->  User sprained their ankle on Friday (5 May 2023)
    User and their family are relocating to Valencia next month
    ->  ... next month (June 2023)

Phrases: ``yesterday``, ``today``, ``tonight``, ``tomorrow``, ``this morning/afternoon/
evening``; ``last/this/next`` + ``week``, ``weekend``, ``month``, ``year``, a season or a
weekday; ``on <weekday>`` (the last one before the turn in a past-tense clause, else the next
one); ``(on) <weekday> last/next week`` (that weekday in that week); ``N days/weeks/months/
years ago``; ``in N days/weeks/months/years`` (future clauses).
Seasons are the northern hemisphere's meteorological ones (winter is December to February).
A phrase already followed by a bracket is left alone; so is every phrase of a fact whose turn
has no date.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2,
}  # fmt: skip
_COUNT = (
    r"(?P<n>\d{1,2}|a couple of|couple of|an|a|one|two|three|four|five|six|seven|eight|nine|ten)"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_PHRASE = re.compile(
    r"\b(?:"
    r"(?P<day>yesterday|today|tonight|tomorrow|this (?:morning|afternoon|evening))"
    r"|(?:on )?(?P<in_week>" + "|".join(WEEKDAYS) + r")(?: morning| afternoon| evening| night)?"
    r" (?P<week>last|next) week"
    r"|(?P<which>last|this|next|this past|this coming) "
    r"(?P<what>week|weekend|month|year|spring|summer|fall|autumn|winter|"
    + "|".join(WEEKDAYS)
    + r")"
    r"|on (?P<on>" + "|".join(WEEKDAYS) + r")"
    r"|" + _COUNT + " " + _UNIT + r" ago"
    r"|in (?P<in_n>\d{1,2}|a couple of|an|a|one|two|three|four|five|six|seven|eight|nine|ten) "
    r"(?P<in_unit>day|week|month|year)s?"
    r")\b(?!\s*\()",
    re.IGNORECASE,
)


#: A date said right after a weekday ("Saturday, March 12th", "Friday the 3rd").
_DATED_AFTER = re.compile(
    r",?\s*(?:the\s+)?(?:(?:" + "|".join(MONTHS) + r")\b|\d{1,2}(?:st|nd|rd|th)\b"
    r"|\d{1,2}\s+(?:" + "|".join(MONTHS) + r")\b)",
    re.IGNORECASE,
)


#: A part of the day in the plural after a weekday: a habit, not one day ("on Tuesday evenings").
_HABIT_AFTER = re.compile(r"\s+(?:mornings|afternoons|evenings|nights)\b", re.IGNORECASE)


def _day(d: date) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def _month(year: int, month: int) -> str:
    year += (month - 1) // 12
    return f"{MONTHS[(month - 1) % 12]} {year}"


def _shift_months(d: date, months: int) -> tuple[int, int]:
    total = d.year * 12 + d.month - 1 + months
    return total // 12, total % 12 + 1


def _season(name: str, on: date, which: str) -> str:
    """The season ``which`` ("last", "this", "next") of ``on``: "summer 2022", or "winter
    2022-2023". Last: the latest one over before ``on``; next: the first one starting after
    it; this: the one ``on`` falls in, else the next."""
    start = _SEASON_START[name.lower()]
    spans = []
    for year in range(on.year - 2, on.year + 2):
        first = date(year, start, 1)
        end = date(*_shift_months(first, 3), 1)
        spans.append((first, end))
    if which == "last":
        first, _ = max(s for s in spans if s[1] <= on)
    elif which == "next":
        first, _ = min(s for s in spans if s[0] > on)
    else:
        first, _ = next((s for s in spans if s[0] <= on < s[1]), min(s for s in spans if s[0] > on))
    label = "fall" if name.lower() == "autumn" else name.lower()
    return f"{label} {first.year}-{first.year + 1}" if start == 12 else f"{label} {first.year}"


def _weekday(name: str, on: date, past: bool, which: str = "") -> str:
    """The weekday ``name`` before ``on`` (last, this past, or a past-tense clause) or after
    it (next, this coming, or a present or future clause)."""
    target = WEEKDAYS.index(name.lower())
    before = which in ("last", "this past") or (past and which not in ("next", "this coming"))
    if before:
        return _day(on - timedelta(days=(on.weekday() - target) % 7 or 7))
    return _day(on + timedelta(days=(target - on.weekday()) % 7 or 7))


def _span(unit: str, n: int, on: date) -> str:
    unit = unit.lower()
    if unit == "day":
        return _day(on + timedelta(days=n))
    if unit == "week":
        return f"around {_day(on + timedelta(weeks=n))}"
    if unit == "month":
        return _month(*_shift_months(on, n))
    return str(on.year + n)


def _monday(on: date, step: int) -> date:
    """The Monday of the week ``step`` weeks from the one ``on`` is in."""
    return on - timedelta(days=on.weekday()) + timedelta(weeks=step)


def _which(which: str, what: str, on: date, past: bool) -> str:
    step = {"last": -1, "this past": -1, "next": 1, "this coming": 1}.get(which.lower(), 0)
    what = what.lower()
    if what == "week":
        return f"week of {_day(_monday(on, step))}"
    if what == "weekend":
        # the weekend a Sunday is in is the one that began the day before, not the next one
        saturday = (
            on - timedelta(days=1)
            if on.weekday() == 6
            else on + timedelta(days=(5 - on.weekday()) % 7)
        )
        if step < 0:
            saturday -= timedelta(days=7)
        elif step > 0 and on.weekday() < 5:
            saturday += timedelta(days=7)
        return f"weekend of {_day(saturday)}"
    if what == "month":
        return _month(*_shift_months(on, step))
    if what == "year":
        return str(on.year + step)
    if what in WEEKDAYS:
        return _weekday(what, on, past, which.lower())
    return _season(what, on, {-1: "last", 1: "next"}.get(step, "this"))


def _meaning(m: re.Match[str], on: date, past: bool) -> str | None:
    if m["day"]:
        word = m["day"].lower()
        shift = {"yesterday": -1, "tomorrow": 1}.get(word, 0)
        return _day(on + timedelta(days=shift))
    if m["in_week"]:  # "on Tuesday last week": the Tuesday of that week
        monday = _monday(on, -1 if m["week"] == "last" else 1)
        return _day(monday + timedelta(days=WEEKDAYS.index(m["in_week"].lower())))
    if m["which"]:
        return _which(m["which"], m["what"], on, past)
    if m["on"]:
        return _weekday(m["on"], on, past)
    if m["unit"]:
        return _span(m["unit"], -_NUMBERS.get(m["n"].lower(), 0) or -int(m["n"]), on)
    if m["in_unit"] and not past:
        n = _NUMBERS.get(m["in_n"].lower()) or int(m["in_n"])
        return _span(m["in_unit"], n, on)
    return None


#: A date written inside a possessive ("today (20 May 2023)'s show"): it goes after the noun.
_OWNED_DATE = re.compile(r"(?P<phrase>\w+) \((?P<date>[^()]*)\)['’]s (?P<noun>[\w-]+)")


def resolve(text: str, when: datetime | None, past: bool) -> str:
    """``text`` with each relative time phrase followed by the date it means (see the module
    docstring); ``past``: the clause is in a past tense. Unchanged when ``when`` is None."""
    if when is None:
        return text
    on = when.date()

    def annotate(m: re.Match[str]) -> str:
        weekday = m["on"] or (m["what"] or "").lower() in WEEKDAYS
        if weekday and (_DATED_AFTER.match(text, m.end()) or _HABIT_AFTER.match(text, m.end())):
            return m[
                0
            ]  # "on Saturday, March 12th": the date is said; "on Tuesday evenings": a habit
        meaning = _meaning(m, on, past)
        return f"{m[0]} ({meaning})" if meaning else m[0]

    return _OWNED_DATE.sub(r"\g<phrase>'s \g<noun> (\g<date>)", _PHRASE.sub(annotate, text))


__all__ = ["MONTHS", "WEEKDAYS", "resolve"]
