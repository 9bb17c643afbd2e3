"""``/openapi.json`` over real HTTP publishes the prose of the routes' and models' docstrings,
never their doctest examples: no description holds ``>>>`` or a ``Traceback`` (the
SearchQuery model's doctest used to be published whole)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from api_support import served


def descriptions(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every ``description`` text of an OpenAPI document, with where it is."""
    if isinstance(node, dict):
        if isinstance(node.get("description"), str):
            yield where, node["description"]
        for key, value in node.items():
            yield from descriptions(value, f"{where}/{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from descriptions(value, f"{where}/{n}")


def test_no_description_carries_a_doctest(tmp_path: Path) -> None:
    with served(str(tmp_path / "m.db"), serve_worker=False) as (_, client):
        spec = client.get("/openapi.json").json()
        again = client.get("/openapi.json").json()
    assert again == spec
    found = dict(descriptions(spec))
    assert len(found) > 50
    leaks = {w: d for w, d in found.items() if "Traceback" in d or ">>>" in d}
    assert leaks == {}
    search = spec["components"]["schemas"]["SearchQuery"]["description"]
    assert search.startswith("One search: what to look for, whose memory, and how")
    assert not search.endswith("\n")
