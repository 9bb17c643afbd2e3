"""The filter box of the memories list: a filter (mem0's syntax) typed as JSON.

Empty means no filter. Text that is not a JSON object is a ValidationError saying so; the
filter itself is checked by ``Memory.list_page``, whose message names the offending part.
"""

from __future__ import annotations

import json
from typing import Any

from mnemo.errors import ValidationError


def filter_json(text: str | None) -> dict[str, Any] | None:
    """The filter object the box holds; None when it is empty."""
    if text is None or not text.strip():
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValidationError(f'filter: not JSON ({exc}); write e.g. {{"tags": "work"}}') from None
    if not isinstance(value, dict):
        raise ValidationError(f"filter must be a JSON object, got {type(value).__name__}")
    return value


__all__ = ["filter_json"]
