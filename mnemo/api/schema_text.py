"""What the published OpenAPI schema (``/openapi.json``, ``/docs``) says of a route or a model:
its docstring's prose, without the doctest examples.

FastAPI takes a route's description from its docstring and pydantic a model's from the
class docstring, so a docstring's ``>>>`` examples, with the output and the tracebacks they
show (``Traceback (most recent call last): ...``), would be published as API documentation.
They are for readers of the code: :func:`install` cuts every description at its first
doctest line.

>>> published("One search.\\n\\n>>> SearchQuery(query='x').limit\\n10")
'One search.'
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

#: What starts a doctest example line.
PROMPT = ">>>"


def published(text: str) -> str:
    """``text`` up to its first doctest line, trailing blank space dropped (the whole of it
    when it has none)."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if line.lstrip().startswith(PROMPT):
            return "\n".join(lines[:n]).rstrip()
    return text


def clean(node: Any) -> None:
    """Cut every ``description`` text in ``node`` (an OpenAPI document or part of one) at its
    doctest, in place; a description left empty is dropped."""
    if isinstance(node, dict):
        text = node.get("description")
        if isinstance(text, str):
            cut = published(text)
            if cut:
                node["description"] = cut
            else:
                del node["description"]
        for value in node.values():
            clean(value)
    elif isinstance(node, list):
        for value in node:
            clean(value)


def install(app: FastAPI) -> None:
    """Make ``app`` publish its OpenAPI document with :func:`clean` descriptions (built and
    cleaned once, then served as FastAPI serves its own)."""
    build = app.openapi
    cleaned: list[dict[str, Any]] = []

    def openapi() -> dict[str, Any]:
        if not cleaned:
            schema = build()
            clean(schema)
            cleaned.append(schema)
        return cleaned[0]

    app.openapi = openapi  # type: ignore[method-assign]


__all__ = ["PROMPT", "clean", "install", "published"]
