"""The kinds of bounded number settings share, each kind's bounds written once.

A setting of one of these kinds is declared by its kind instead of repeating the bounds::

    neighbor_weight: float = share(0.3, "A turn gains this share of ...")

is ``Field(0.3, ge=0, le=1, description="A turn gains this share of ...")``: the same field,
schema and error messages. A setting with bounds of its own (``port``, ``window_max_turns``)
keeps them on its ``Field``. The annotation still says the type (``float | None`` when None is
allowed too); the kind only bounds the numbers.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field


def share(default: float | None, description: str) -> Any:
    """A number in [0, 1]: a weight of one side against another, a share, a probability, an
    importance, or a threshold on one of those."""
    return Field(default, ge=0, le=1, description=description)


def cosine(default: float | None, description: str) -> Any:
    """A threshold on a cosine similarity: a number in [-1, 1]."""
    return Field(default, ge=-1, le=1, description=description)


def weight(default: float | None, description: str) -> Any:
    """A factor of at least 0 with no upper bound; 0 turns off what it weighs."""
    return Field(default, ge=0, description=description)


def positive(default: float | None, description: str) -> Any:
    """A number above 0: a duration, a timeout, an interval or a decay constant."""
    return Field(default, gt=0, description=description)


def count(default: int | None, description: str) -> Any:
    """A whole number of at least 0: a count or a limit that may be none."""
    return Field(default, ge=0, description=description)


def size(default: int | None, description: str) -> Any:
    """A whole number of at least 1: a size, a limit or a count that cannot be none."""
    return Field(default, ge=1, description=description)


def retries(default: int, description: str) -> Any:
    """Retries of a failed network request: 0 to 20."""
    return Field(default, ge=0, le=20, description=description)


__all__ = ["cosine", "count", "positive", "retries", "share", "size", "weight"]
