"""The ``--filter JSON`` option of ``mnemo search``, ``list``, ``count`` and ``delete-all``.

``--filter`` takes a filter in mem0's syntax as JSON (docs/memory-model.md, "Filters"), or
``@path`` to read it from a file (a long filter does not fit in one command-line argument).
Text that is not a JSON object, and a filter ``Memory`` refuses, end the command with one
``error:`` line and exit status 2; nothing changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from mnemo.errors import ValidationError

FilterOpt = Annotated[
    str | None,
    typer.Option(
        "--filter",
        help='A filter as JSON, e.g. \'{"category": "work"}\' or '
        '\'{"AND": [{"tags": "health"}, {"priority": {"gte": 3}}]}\'; @FILE reads it from a file.',
    ),
]
SessionOpt = Annotated[str | None, typer.Option("--session", help="Only this session.")]


def filter_arg(text: str | None) -> dict[str, Any] | None:
    """The filter object ``--filter`` holds (read from the file after ``@``); None without
    one. ValidationError when it is not a JSON object (OSError for an unreadable file)."""
    if text is None:
        return None
    if text.startswith("@"):
        text = Path(text[1:]).expanduser().read_text(encoding="utf-8")
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValidationError(f"--filter: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValidationError(f"--filter must be a JSON object, got {type(value).__name__}")
    return value


__all__ = ["FilterOpt", "SessionOpt", "filter_arg"]
