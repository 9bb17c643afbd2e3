"""Topic decay (`topics`): a half-life that grows with use, and the priority it gives a topic.

Pure functions of numbers; the seed's two tables are rendered from them (and tested to match
the seed's text exactly). Times are seconds; days are 86 400 s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

DAY = 86_400.0
MemoryType = Literal["short-term", "transitioning", "long-term"]


@dataclass(frozen=True)
class DecayPolicy:
    """The numbers of the decay: `topics`'s ``MemoryManager`` defaults."""

    base_half_life_s: float = DAY
    max_half_life_s: float = 30 * DAY
    accesses_per_doubling: int = 5
    min_priority: float = 0.05


def half_life_seconds(access_count: int, policy: DecayPolicy) -> float:
    """Dynamic half-life: ``min(base * 2 ** (access_count // accesses_per_doubling), max)``.

    >>> [half_life_seconds(n, DecayPolicy()) / DAY for n in (0, 4, 5, 10, 15, 20, 25, 99)]
    [1.0, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    """
    doublings = max(access_count, 0) // policy.accesses_per_doubling
    if doublings >= 64:  # 2**64 days is past any cap
        return policy.max_half_life_s
    return float(min(policy.base_half_life_s * 2**doublings, policy.max_half_life_s))


def memory_type(access_count: int, policy: DecayPolicy) -> MemoryType:
    """``short-term`` below ``n`` accesses, ``transitioning`` below ``2n``, else ``long-term``."""
    n = policy.accesses_per_doubling
    if access_count < n:
        return "short-term"
    return "transitioning" if access_count < 2 * n else "long-term"


def priority(importance: float, age_s: float, half_life_s: float) -> float:
    """``priority = importance * 0.5 ** (age_s / half_life_s)``; a negative age counts as 0.

    >>> priority(1.0, 2 * DAY, DAY)
    0.25
    """
    return float(importance * 0.5 ** (max(age_s, 0.0) / half_life_s))


def survival_seconds(half_life_s: float, importance: float = 1.0, floor: float = 0.05) -> float:
    """Time until priority first falls under ``floor``, in whole half-lives:
    ``half_life * ceil(log2(importance / floor))`` (0 when it starts below the floor).

    >>> survival_seconds(DAY) / DAY
    5.0
    """
    if importance < floor or importance <= 0:
        return 0.0
    halvings = math.ceil(math.log2(importance / floor))
    if 0.5**halvings >= floor / importance:  # land strictly below the floor
        halvings += 1
    return half_life_s * halvings


# ---- the seed's tables, rendered -----------------------------------------------------------
def _days(seconds: float) -> str:
    days = seconds / DAY
    text = f"{days:g}"
    return f"{text} day" if days == 1 else f"{text} days"


def _percent(value: float, floor: float) -> str:
    if value < floor:
        return f"{value * 100:.1f}% - deleted"
    return f"{value * 100:g}%"


def decay_lines(access_count: int, policy: DecayPolicy, steps: int = 6) -> list[str]:
    """The seed's priority-by-day list for a topic of ``access_count`` accesses, importance 1:
    one line per half-life, e.g. ``- 1 day: priority = 0.5 (50%)``."""
    hl = half_life_seconds(access_count, policy)
    lines = []
    for k in range(steps):
        p = priority(1.0, k * hl, hl)
        lines.append(f"- {_days(k * hl)}: priority = {p!r} ({_percent(p, policy.min_priority)})")
    return lines


def consolidation_rows(policy: DecayPolicy) -> list[tuple[str, str, str, str]]:
    """Rows of the seed's consolidation timeline: (accesses, half-life, memory type, survival)."""
    rows = []
    n = policy.accesses_per_doubling
    k = 0
    while True:
        hl = half_life_seconds(k * n, policy)
        capped = hl >= policy.max_half_life_s
        accesses = f"{k * n}+" if capped else f"{k * n}-{k * n + n - 1}"
        half = _days(hl) + (" (max)" if capped else "")
        kind = memory_type(k * n, policy).capitalize()
        survival = "~" + _days(survival_seconds(hl, 1.0, policy.min_priority))
        rows.append((accesses, half, kind, survival))
        if capped:
            return rows
        k += 1


def consolidation_table(policy: DecayPolicy) -> str:
    """The seed's "Memory Consolidation Timeline" as a Markdown table."""
    header = (
        "Accesses",
        "Half-Life",
        "Memory Type",
        f"Survival Time (to <{policy.min_priority * 100:g}% priority)",
    )
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("-" * (len(h) + 2) for h in header)]
    lines[1] += "|"
    lines += ["| " + " | ".join(row) + " |" for row in consolidation_rows(policy)]
    return "\n".join(lines)


__all__ = [
    "DAY",
    "DecayPolicy",
    "MemoryType",
    "consolidation_rows",
    "consolidation_table",
    "decay_lines",
    "half_life_seconds",
    "memory_type",
    "priority",
    "survival_seconds",
]
