"""Stored and user-given text is printed as it is: Rich never reads it as markup. A memory,
user, tenant, query or path holding ``[/]`` (a closing tag with nothing to close: Rich's
MarkupError) or ``[bold]x[/bold]`` (tags Rich would drop) comes out literally, exit status 0.
Driven through typer's runner on real SQLite files, and ``mnemo chat`` against a real server
with the echo upstream."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from api_support import served
from typer.testing import CliRunner

from mnemo.api.echo_upstream import BANNER
from mnemo.cli.main import app

runner = CliRunner()
TEXT = "shortcut is [/] here [bold]x[/bold]"
ODD = "[/]k[b]x[/b]"  # a user, tenant or query of the same kind (short: a narrow column)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A store on a path with brackets in it, the hashing embedder, a wide terminal."""
    db = tmp_path / "notes[v2].db"
    return {"MNEMO_PATH": str(db), "MNEMO_EMBEDDER": "hashing", "COLUMNS": "300"}


def run(env: dict[str, str], *args: str) -> str:
    """The output of ``mnemo ARGS``, which must exit 0."""
    out = runner.invoke(app, list(args), env=env)
    assert out.exit_code == 0, out.output
    assert "MarkupError" not in out.output
    return out.output


def added(env: dict[str, str]) -> str:
    """The id of ``TEXT``, added for user k."""
    return run(env, "add", TEXT, "--user", "k").strip().splitlines()[-1]


def test_search_get_history_list_and_context_print_a_memory_literally(env: dict[str, str]) -> None:
    mid = added(env)
    assert TEXT in run(env, "search", "shortcut", "--user", "k")
    assert TEXT in run(env, "get", mid)
    assert TEXT in run(env, "history", mid)
    run(env, "edit", mid, "--content", "shortcut [/] is gone")
    assert f"{TEXT} -> shortcut [/] is gone" in run(env, "history", mid)
    run(env, "add", TEXT, "--user", "k")
    assert TEXT in run(env, "list")  # list and context already printed it as stored
    assert TEXT in run(env, "list", "--user", "k")
    assert TEXT in run(env, "context", "shortcut", "--user", "k")


def test_a_user_with_brackets_is_printed_literally(env: dict[str, str]) -> None:
    run(env, "add", "my cat is Miso", "--user", ODD)
    assert ODD in run(env, "list")  # the user column
    assert f"memories of {ODD}" in run(env, "list", "--user", ODD)  # the title
    assert f"hits for '{ODD}'" in run(env, "search", ODD, "--user", ODD)
    assert f"user {ODD!r}" in run(env, "forget-user", ODD, "--yes")


def test_a_query_with_brackets_is_printed_literally(env: dict[str, str]) -> None:
    added(env)
    assert "hits for '[/] here'" in run(env, "search", "[/] here", "--user", "k")


def test_a_store_path_with_brackets_is_printed_literally(env: dict[str, str]) -> None:
    added(env)
    where = env["MNEMO_PATH"]
    assert where in "".join(run(env, "stats").split())  # the title, wrapped
    assert f"in {where}" in run(env, "repair", "--dry-run")
    folder = str(Path(where).parent / "md[1]")
    assert f"exported to {folder}:" in run(env, "export", folder, "--format", "markdown")


def test_a_tenant_with_brackets_is_printed_literally(env: dict[str, str]) -> None:
    created = run(env, "keys", "create", "--tenant", ODD, "--name", TEXT)
    assert f"for tenant {ODD!r}" in created
    listed = run(env, "keys", "list")
    assert ODD in listed and TEXT in listed
    rows = json.loads(run(env, "keys", "list", "--json"))
    assert [(r["tenant"], r["name"]) for r in rows] == [(ODD, TEXT)]


def test_chat_prints_what_was_recalled_and_the_reply_literally(db_path: str) -> None:
    with served(db_path, upstream_base_url="echo") as (srv, http):
        http.post("/v1/memories", json={"user_id": "k", "content": TEXT}).raise_for_status()
        args = ["chat", "--user", "k", "--url", srv.url, "--model", "m"]
        out = runner.invoke(app, args, input="shortcut here?\n/quit\n", env={"COLUMNS": "300"})
    assert out.exit_code == 0, out.output
    assert f") {TEXT}" in out.output  # the recalled memory
    assert f"assistant> {BANNER}" in out.output  # the echo reply's bracketed first line
