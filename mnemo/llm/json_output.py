"""Reading JSON out of a model's answer: strict first, then one lenient extraction.

The lenient pass strips Markdown code fences and otherwise takes the first JSON object or
array that decodes, ignoring prose around it. Only objects and arrays count as JSON output.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.S)
#: How many opening brackets the extraction tries before giving up.
MAX_STARTS = 20


def _container(value: Any) -> bool:
    return isinstance(value, dict | list)


def _first_container(text: str) -> Any:
    """The first ``{...}`` or ``[...]`` in ``text`` that decodes, else raise ValueError."""
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"[{\[]", text)][:MAX_STARTS]
    for start in starts:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if _container(value):
            return value
    raise ValueError("no JSON object or array found")


def parse_json_output(text: str) -> Any:
    """The JSON object or array in a model's answer; ValueError if there is none.

    >>> parse_json_output('Sure! ```json\\n{"a": 1}\\n``` hope that helps')
    {'a': 1}
    """
    stripped = text.strip()
    try:
        value = json.loads(stripped)
    except ValueError:
        pass
    else:
        if _container(value):
            return value
    for fenced in _FENCE.findall(stripped):
        try:
            value = json.loads(fenced.strip())
        except ValueError:
            continue
        if _container(value):
            return value
    return _first_container(stripped)
