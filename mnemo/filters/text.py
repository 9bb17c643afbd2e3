"""A filter written as JSON text: a GET query parameter, a CLI option, a form field.

:func:`filter_from_json` reads the object; the filter itself is checked where it is used
(:func:`mnemo.filters.parse_filter`, called by ``Memory``).
"""

from __future__ import annotations

import json
from typing import Any

from mnemo.errors import ValidationError


def filter_from_json(text: str | None, name: str = "filters") -> dict[str, Any] | None:
    """The filter object ``text`` holds; None when it is None or blank. ValidationError,
    naming ``name`` (the parameter or option), when it is not a JSON object."""
    if text is None or not text.strip():
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ValidationError(
            f'{name}: not JSON ({exc}); write an object such as {{"tags": "work"}}'
        ) from None
    if not isinstance(value, dict):
        raise ValidationError(f"{name} must be a JSON object, got {type(value).__name__}")
    return value


__all__ = ["filter_from_json"]
