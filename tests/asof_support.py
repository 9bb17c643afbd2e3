"""The turns the "as of" tests of every surface share: a nurse in 2021, a pilot in 2024."""

from __future__ import annotations

from typing import Any

from mnemo import Memory

NURSE = "I work as a nurse at the city hospital"
PILOT = "I work as a pilot for a small airline now"
#: one turn written in 2021, one in 2024; as of 2021-06-01 only the first was known
WORK_TURNS: list[dict[str, Any]] = [
    {"role": "user", "content": NURSE, "created_at": "2021-03-01T10:00:00Z"},
    {"role": "user", "content": PILOT, "created_at": "2024-02-01T10:00:00Z"},
]


def seed_work(target: dict[str, str], user: str = "tia") -> None:
    """Store :data:`WORK_TURNS` for ``user`` in the store ``target`` names (hashing)."""
    with Memory(**target, embedder="hashing") as mem:
        mem.add_messages(WORK_TURNS, user_id=user)
