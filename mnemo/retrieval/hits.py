"""Building :class:`~mnemo.schemas.Hit` records from fetched rows."""

from __future__ import annotations

from typing import Any

from mnemo.schemas import Hit, parse_time
from mnemo.storage.base import Ref


def epoch(created_at: str) -> float:
    """Epoch seconds of a stored time."""
    return parse_time(created_at).timestamp()


def to_hit(
    ref: Ref,
    row: dict[str, Any],
    score: float,
    scores: dict[str, float],
    turn_kind: str | None = None,
    duplicates: list[str] | None = None,
) -> Hit:
    """A Hit from a store's fetched fields, its final score and per-stage scores, the kind of
    a turn and the ids of the candidates collapsed into it."""
    return Hit(
        id=row["id"],
        kind=row["kind"],
        content=row["content"],
        score=score,
        created_at=parse_time(row["created_at"]),
        user_id=row["user_id"],
        session_id=row["session_id"],
        role=row["role"],
        name=row["name"],
        metadata=row["metadata"],
        source_message_ids=row["source_message_ids"],
        scores=scores,
        turn_kind=turn_kind,
        duplicates=duplicates or [],
        agent_id=row.get("agent_id"),
    )
