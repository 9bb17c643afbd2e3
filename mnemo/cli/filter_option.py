"""The ``--filter JSON`` option of ``mnemo search``, ``list``, ``count`` and ``delete-all``.

``--filter`` takes a filter in mem0's syntax as JSON (docs/memory-model.md, "Filters"), or
``@path`` to read it from a file (a long filter does not fit in one command-line argument).
Text that is not a JSON object, and a filter ``Memory`` refuses, end the command with one
``error:`` line and exit status 2; nothing changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mnemo.filters.text import filter_from_json

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
    if text is not None and text.startswith("@"):
        text = Path(text[1:]).expanduser().read_text(encoding="utf-8")
    return filter_from_json(text, "--filter")


__all__ = ["FilterOpt", "SessionOpt", "filter_arg"]
