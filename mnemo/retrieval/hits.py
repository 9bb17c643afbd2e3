"""Building :class:`~mnemo.schemas.Hit` records from fetched rows."""

from __future__ import annotations

from typing import Any

from mnemo.memory_fields import fields_where
from mnemo.schemas import Hit, parse_time
from mnemo.storage.base import Ref

#: The memory fields a Hit copies from its row (a row's hit fields a Hit shows; a time
#: parsed), by name, with whether each is a time; then a turn's speaker.
COPIED: dict[str, bool] = {
    **{f.name: f.type == "time" for f in fields_where(hit=True) if f.name in Hit.model_fields},
    "role": False,
    "name": False,
}


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
    copied: dict[str, Any] = {
        name: parse_time(row[name]) if time else row.get(name) for name, time in COPIED.items()
    }
    return Hit(
        **copied, score=score, scores=scores, turn_kind=turn_kind, duplicates=duplicates or []
    )


__all__ = ["COPIED", "epoch", "to_hit"]
