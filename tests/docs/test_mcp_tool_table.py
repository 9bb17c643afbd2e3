"""docs/mcp.md's tool table against the live tool schemas (the server ``mnemo mcp`` builds), so
the page cannot drift: the same tools, and for each the same arguments, an argument marked
``?`` optional in the schema and a required one not marked.

The arguments of a row are the backticked names of its third column outside parentheses
(``name``, ``name?`` or ``name: shape``); the parentheses hold notes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mnemo import Memory
from mnemo.mcp.server import create_server
from mnemo.mcp.source import FixedMemory

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
#: One argument in a row: its name, and ``?`` when the page says it is optional.
ARGUMENT = re.compile(r"`([a-z_]+)(\?)?(?::[^`]*)?`")


def without_notes(text: str) -> str:
    """``text`` without its parenthesized parts (nested ones included)."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def documented() -> dict[str, dict[str, bool]]:
    """Each tool of the page's table: its arguments, each with whether it is marked optional."""
    tools: dict[str, dict[str, bool]] = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`([a-z_]+)`", cells[0]) if len(cells) == 3 else None
        if name is None:
            continue
        args = ARGUMENT.findall(without_notes(cells[2]))
        tools[name.group(1)] = {arg: bool(mark) for arg, mark in args}
    return tools


def live() -> dict[str, dict[str, Any]]:
    """Each tool's input schema, as the server lists it."""
    with Memory(":memory:", embedder="hashing") as mem:
        server = create_server(FixedMemory(mem))
        return {t.name: t.input_schema for t in anyio.run(server.list_tools)}


def test_the_table_lists_every_tool_with_its_arguments() -> None:
    page, schemas = documented(), live()
    assert sorted(page) == sorted(schemas)
    for tool, schema in schemas.items():
        required = set(schema.get("required", []))
        assert set(page[tool]) == set(schema["properties"]), tool
        marked = {arg for arg, optional in page[tool].items() if optional}
        assert not marked & required, f"{tool}: {marked & required} are required"


def test_the_rule_reads_a_row_as_the_page_means_it() -> None:
    row = "`user_id`, `turns: [{role, content, name?}]`, `limit?` (1-10, `mnemo.SearchQuery`'s)"
    args = ARGUMENT.findall(without_notes(row))
    assert {a: bool(m) for a, m in args} == {"user_id": False, "turns": False, "limit": True}
