"""The commands built on a request model take its fields as options: ``mnemo search`` and
``context`` every SearchQuery field but their named exceptions, ``mnemo list`` MemoryQuery's,
each named for its field unless the command's table says otherwise."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
import typer

from mnemo.cli.main import app
from mnemo.cli.options import ModelOptions, option_type
from mnemo.cli.query_options import NOT_ON_CLI
from mnemo.list_query import MemoryQuery
from mnemo.search_query import SearchQuery


def flags(command: str) -> set[str]:
    """Every flag and argument name of ``mnemo <command>``."""
    cmd = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    return {d for p in cmd.params for d in [*p.opts, *p.secondary_opts]}


def test_search_and_context_take_the_search_fields() -> None:
    shared = {"query", "--user", "-u", "--agent", "--session", "--as-of", "--now"}
    own = {"--filter", "--json", "--db", "--embedder"}
    search = {"--limit", "--kind", "--explain", "--no-explain", "--current-session"}
    assert flags("search") == shared | own | search
    assert flags("context") == shared | own | {"--budget"}
    on_cli = set(SearchQuery.model_fields) - NOT_ON_CLI
    assert on_cli == {"query", "user_id", "agent_id", "session_id", "as_of", "now"} | {
        "limit",
        "kinds",
        "explain",
        "current_session",
    }


def test_list_takes_the_listing_fields() -> None:
    assert flags("list") == {
        "--user", "-u", "--session", "--kind", "--tag", "--limit", "--offset", "--cursor",
        "--agent", "--filter", "--json", "--db", "--embedder",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("declared", "read"),
    [
        (bool, bool),
        (int | None, int | None),
        (tuple[str, ...] | None, list[str] | None),
        (datetime | None, str | None),
    ],
)
def test_an_option_reads_a_field_as_the_command_line_gives_it(declared: Any, read: Any) -> None:
    assert option_type(declared) == read


def test_a_mapping_has_no_command_line_form_and_an_exception_must_name_a_field() -> None:
    with pytest.raises(TypeError, match="no command-line form"):
        option_type(dict[str, Any] | None)
    with pytest.raises(ValueError, match="MemoryQuery has no field kinds"):
        ModelOptions(MemoryQuery, flags={"kinds": ("--kind",)}).params()
