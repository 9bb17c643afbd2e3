"""A tool call whose arguments fail the tool's schema (the SDK's client over stdio, a real
``python -m mnemo mcp``) is refused in one line in mnemo's words, as the library and REST
refuse them: no pydantic report, no link to pydantic's site, no echo of the input."""

from __future__ import annotations

from typing import Any

from mcp_support import error_text, run, stdio_client

#: (tool, arguments, the whole message)
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    (
        "recall",
        {"query": "x", "user_id": "ann", "limit": 0},
        "Error executing tool recall: ValidationError: limit must be an integer in [1, 1000]",
    ),
    (
        "recall",
        {"query": "x"},
        "Error executing tool recall: ValidationError: user_id: Field required",
    ),
    (
        "remember",
        {"user_id": "ann", "content": "x", "importance": 2},
        "Error executing tool remember: ValidationError: importance: Input should be less than "
        "or equal to 1",
    ),
    (
        "remember",
        {"user_id": "ann", "turns": [{"role": "bogus", "content": "x"}]},
        "Error executing tool remember: ValidationError: turns.0.role: Input should be 'user', "
        "'assistant', 'system' or 'tool'",
    ),
    (
        "list_memories",
        {"user_id": "ann", "limit": "many"},
        "Error executing tool list_memories: ValidationError: limit must be an integer in "
        "[1, 10000]",
    ),
    (
        "recall",
        {"query": "x", "user_id": "ann", "filters": "not an object"},
        "Error executing tool recall: ValidationError: filters: Input should be a valid dictionary",
    ),
    (
        "remember",
        {"user_id": "", "content": "x"},
        "Error executing tool remember: ValidationError: user_id: String should have at least "
        "1 character",
    ),
    (  # a refusal of the tool's own code: the same form
        "remember",
        {"user_id": "ann"},
        "Error executing tool remember: ValidationError: give exactly one of content and turns",
    ),
]


def test_refused_arguments_are_one_line_in_mnemos_words(db_path: str) -> None:
    async def body() -> None:
        async with stdio_client(db_path) as client:
            for tool, args, message in REFUSED:
                said = error_text(await client.call_tool(tool, args))
                assert said == message
                assert "\n" not in said and "pydantic" not in said and "input_value" not in said

    run(body)
