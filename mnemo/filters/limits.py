"""The size limits of a filter, checked before it is parsed.

A filter arrives as JSON from a caller (library, REST body, MCP tool call). :func:`check_size`
walks it once without recursion and stops at the first limit passed, so a 1 MB filter, a
filter nested 100,000 levels deep or an ``in`` list of a million values is refused in about
the time it takes to count to the limit, before the parser (which recurses) sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemo.errors import ValidationError

#: Most nested objects and lists (``{"AND": [{"k": {"in": [...]}}]}`` is 5 deep).
MAX_DEPTH = 32
#: Most parts: objects, lists, keys and values, counted together.
MAX_NODES = 2_000
#: Most characters of text in keys and string values together (numbers count 8).
MAX_CHARS = 32_768


def check_size(raw: Any) -> None:
    """Raise ValidationError when ``raw`` is nested deeper than :data:`MAX_DEPTH`, has more
    than :data:`MAX_NODES` parts or more than :data:`MAX_CHARS` characters of text."""
    stack: list[tuple[Any, int]] = [(raw, 1)]
    nodes = chars = 0
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValidationError(f"filter is nested deeper than {MAX_DEPTH} levels")
        children: list[Any]
        if isinstance(value, Mapping):
            children = list(value.values()) if len(value) <= MAX_NODES else []
            nodes += 2 * len(value)
            chars += sum(len(k) if isinstance(k, str) else 8 for k in value) if children else 0
        elif isinstance(value, list | tuple):
            children = list(value) if len(value) <= MAX_NODES else []
            nodes += len(value)
        else:
            children = []
            chars += len(value) if isinstance(value, str) else 8
        nodes += 1
        if nodes > MAX_NODES:
            raise ValidationError(f"filter has more than {MAX_NODES:,} parts (keys and values)")
        if chars > MAX_CHARS:
            raise ValidationError(f"filter holds more than {MAX_CHARS:,} characters of text")
        stack.extend((child, depth + 1) for child in children)


__all__ = ["MAX_CHARS", "MAX_DEPTH", "MAX_NODES", "check_size"]
