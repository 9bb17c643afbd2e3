"""The ``filters`` query parameter of the GET listings: a filter (mem0's syntax) as JSON.

A POST body carries ``filters`` as a JSON object; a GET listing carries the same object as
the text of one query parameter, read here. Text that is not a JSON object is a 422 naming
the parameter; the filter itself is checked by the ``Memory`` call it goes to.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import Query

from mnemo.errors import ValidationError

FiltersParam = Annotated[
    str | None,
    Query(
        description='A filter as JSON, e.g. {"category": "work"} or '
        '{"AND": [{"tags": "health"}, {"priority": {"gte": 3}}]} (docs/memory-model.md).'
    ),
]


def filter_json(text: str | None) -> dict[str, Any] | None:
    """The filter object held by a ``filters`` query parameter (None when absent or empty);
    ValidationError when it is not a JSON object."""
    if text is None or not text.strip():
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ValidationError(f"filters: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValidationError(f"filters must be a JSON object, got {type(value).__name__}")
    return value


__all__ = ["FiltersParam", "filter_json"]
