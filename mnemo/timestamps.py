"""Times as mnemo takes and stores them: parsing (ISO-8601, epoch seconds, datetimes), the
fixed-width UTC storage form, the range the engine computes with, and the times of a batch's
undated turns."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from mnemo.errors import ValidationError

#: The times the engine computes with (:func:`bounded_time`): [TIME_FIRST, TIME_END). Far
#: enough from the calendar's ends that a time plus or minus any span it computes (a
#: query's "100 years ago", a ttl of 1000 years) stays a date.
TIME_FIRST = datetime(1000, 1, 1, tzinfo=UTC)
TIME_END = datetime(9000, 1, 1, tzinfo=UTC)


def parse_time(value: Any, field: str = "created_at") -> datetime:
    """Parse an ISO-8601 string, epoch seconds or a datetime into an aware UTC datetime.

    Naive values are taken as UTC. Anything else raises ValidationError.
    """
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, bool):
        raise ValidationError(f"{field}: expected a timestamp, got a boolean")
    elif isinstance(value, int | float):
        try:
            dt = datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise ValidationError(f"{field}: epoch seconds out of range: {value!r}") from None
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError(
                f"{field}: cannot parse {value!r}; use ISO-8601 such as 2023-05-08T13:56:00"
            ) from None
    else:
        raise ValidationError(f"{field}: expected ISO-8601 text or epoch seconds, got {value!r}")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except (OverflowError, ValueError):
        raise ValidationError(f"{field}: {value!r} is out of range in UTC") from None


def bounded_time(value: Any, field: str = "created_at") -> datetime:
    """:func:`parse_time`, refusing a time outside [:data:`TIME_FIRST`, :data:`TIME_END`).

    For the times the engine computes with: a turn's or memory's ``created_at``, a search's
    ``now`` and ``as_of``. Stored rows and filter values are read with :func:`parse_time`.
    """
    dt = parse_time(value, field)
    if not TIME_FIRST <= dt < TIME_END:
        raise ValidationError(
            f"{field}: {value!r} is out of range; times fall in the years "
            f"{TIME_FIRST.year}-{TIME_END.year - 1}"
        )
    return dt


def format_time(dt: datetime) -> str:
    """The storage form of a time: fixed-width ISO-8601 UTC, so text order is time order."""
    dt = dt.astimezone(UTC)
    return f"{dt.year:04d}-" + dt.strftime("%m-%dT%H:%M:%S.%fZ")


def utcnow() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def shift(dt: datetime, delta: timedelta) -> datetime:
    """``dt + delta``, held within the times a store accepts ([:data:`TIME_FIRST`,
    :data:`TIME_END`)): a turn dated 1000-01-01 with an undated turn before it puts both at
    1000-01-01."""
    return min(max(dt + delta, TIME_FIRST), TIME_END - timedelta(microseconds=1))


#: The time between an undated turn and its dated neighbour (in one batch or session).
TIME_STEP = timedelta(seconds=1)


def fill_times(
    times: Sequence[datetime | None], now: datetime, step: timedelta = TIME_STEP
) -> list[datetime]:
    """The time of every turn of a batch: its own, else its neighbour's plus a small step.

    An undated turn after a dated one takes the previous turn's time + ``step``; undated turns
    before the first dated one count back from it (its time - k x ``step``). A batch with no
    dated turn is stamped ``now``. So a reply sent without a time stays next to the dated
    question it answers instead of jumping to the present.
    """
    first = next((i for i, t in enumerate(times) if t is not None), None)
    if first is None:
        return [now] * len(times)
    anchor = times[first]
    assert anchor is not None
    out = [shift(anchor, -(first - i) * step) for i in range(first)]
    for t in times[first:]:
        out.append(t if t is not None else shift(out[-1], step))
    return out


__all__ = [
    "TIME_END",
    "TIME_FIRST",
    "TIME_STEP",
    "bounded_time",
    "fill_times",
    "format_time",
    "parse_time",
    "shift",
    "utcnow",
]
