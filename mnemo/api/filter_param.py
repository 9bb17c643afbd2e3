"""The ``filters`` query parameter of the GET listings: a filter (mem0's syntax) as JSON.

A POST body carries ``filters`` as a JSON object; a GET listing carries the same object as
the text of one query parameter (:mod:`mnemo.api.list_params`), read here. Text that is not a
JSON object is a 422 naming the parameter; the filter itself is checked by the ``Memory`` call
it goes to.
"""

from __future__ import annotations

from typing import Any

from mnemo.filters.text import filter_from_json

#: The help of a ``filters`` query parameter.
FILTER_JSON_HELP = (
    'A filter as JSON, e.g. {"category": "work"} or '
    '{"AND": [{"tags": "health"}, {"priority": {"gte": 3}}]} (docs/memory-model.md).'
)


def filter_json(text: str | None) -> dict[str, Any] | None:
    """The filter object a ``filters`` query parameter holds (None when absent or empty);
    ValidationError when it is not a JSON object."""
    return filter_from_json(text, "filters")


__all__ = ["FILTER_JSON_HELP", "filter_json"]
