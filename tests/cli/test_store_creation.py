"""Which commands may create a store: ``mnemo worker`` only drains one, so a missing SQLite file
is one ``error:`` line and nothing on disk; the commands that write create it and say so once on
stderr (``created new store PATH``; ``mnemo keys create`` too); a server refused for its
address creates nothing; PostgreSQL (an empty schema included) says nothing and works as
before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serve_support import free_port
from serve_support import mnemo as run_mnemo
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()
ENV = {"MNEMO_EMBEDDER": "hashing"}


def test_worker_refuses_a_missing_store(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    out = runner.invoke(app, ["worker", "--once", "--db", str(missing)], env=ENV)
    assert out.exit_code == 2, out.output
    assert out.output.strip().splitlines() == [
        f"error: no mnemo store at {missing} (give --db or MNEMO_PATH; `mnemo add` or "
        "`mnemo import` creates one)"
    ]
    assert list(tmp_path.iterdir()) == []


def created_lines(stderr: str) -> list[str]:
    """The ``created new store`` lines of a command's standard error."""
    return [line for line in stderr.splitlines() if line.startswith("created new store")]


def test_a_write_creates_the_store_says_so_once_and_the_worker_drains_it(
    target: dict[str, str],
) -> None:
    where = target.get("path") or target["url"]
    if "path" in target:
        Path(where).unlink(missing_ok=True)  # the fixture's file must not exist yet
    early = runner.invoke(app, ["worker", "--once", "--db", where], env=ENV)
    if "path" in target:  # nothing to drain, and nothing created
        assert early.exit_code == 2 and "error: no mnemo store at" in early.output
        assert not Path(where).exists()
    else:  # an empty schema is a store
        assert early.exit_code == 0, early.output
        assert early.output.strip().splitlines() == ["mnemo worker: ran 0 job(s)"]
    said = ["add", "I moved to Leeds", "--user", "ann", "--role", "user", "--db", where]
    first = runner.invoke(app, said, env=ENV)
    assert first.exit_code == 0, first.output
    expected = [f"created new store {where}"] if "path" in target else []
    assert created_lines(first.stderr) == expected
    assert first.stdout.strip().startswith("msg_")  # stdout holds only the id
    again = runner.invoke(app, ["add", "Ann likes tea", "--user", "ann", "--db", where], env=ENV)
    assert again.exit_code == 0 and created_lines(again.stderr) == [], again.output
    drained = runner.invoke(app, ["worker", "--once", "--db", where], env=ENV)
    assert drained.exit_code == 0, drained.output
    assert "mnemo worker: ran 0 job(s)" not in drained.output  # the turn's jobs ran
    assert created_lines(drained.stderr) == []


def import_sources(tmp_path: Path) -> dict[str, list[str]]:
    """The arguments of each kind of `mnemo import` (their files written under tmp_path)."""
    turns = tmp_path / "turns.jsonl"
    turns.write_text(json.dumps({"role": "user", "content": "hi", "user_id": "ann"}) + "\n")
    dump = tmp_path / "mem0.json"
    dump.write_text(json.dumps({"results": [{"id": "m1", "memory": "x", "user_id": "ann"}]}))
    source = tmp_path / "source.db"
    with Memory(str(source), embedder="hashing") as mem:
        mem.add("Ann likes tea", user_id="ann")
    export, folder = tmp_path / "export.jsonl", tmp_path / "md"
    for args in (["export", str(export)], ["export", str(folder), "--format", "markdown"]):
        done = runner.invoke(app, [*args, "--db", str(source)], env=ENV)
        assert done.exit_code == 0, done.output
    return {
        "jsonl": ["import", str(turns)],
        "mnemo": ["import", str(export)],
        "markdown": ["import", str(folder), "--format", "markdown"],
        "mem0": ["import", str(dump), "--format", "mem0"],
    }


@pytest.mark.parametrize("kind", ["jsonl", "mnemo", "markdown", "mem0"])
def test_every_import_says_it_created_the_store(tmp_path: Path, kind: str) -> None:
    args = import_sources(tmp_path)[kind]
    new = tmp_path / "new.db"
    out = runner.invoke(app, [*args, "--db", str(new)], env=ENV)
    assert out.exit_code == 0, out.output
    assert created_lines(out.stderr) == [f"created new store {new}"]
    again = runner.invoke(app, [*args, "--db", str(new)], env=ENV)
    assert again.exit_code == 0 and created_lines(again.stderr) == [], again.output


def test_mcp_over_stdio_says_it_created_the_store(tmp_path: Path) -> None:
    new = tmp_path / "new.db"
    done = run_mnemo("mcp", "--db", str(new), input="")  # the client hangs up at once
    assert done.returncode == 0, done.stderr
    assert created_lines(done.stderr) == [f"created new store {new}"]
    assert new.is_file()


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http"]], ids=["serve", "mcp"])
def test_a_refused_server_creates_no_store(tmp_path: Path, command: list[str]) -> None:
    if command[0] == "mcp":
        pytest.importorskip("mcp")
    new = tmp_path / "x.db"
    args = [*command, "--host", "0.0.0.0", "--port", str(free_port()), "--db", str(new)]
    done = run_mnemo(*args)
    assert done.returncode == 2, done.stderr
    assert "error: refusing to listen on 0.0.0.0 without API keys" in done.stderr
    assert created_lines(done.stderr) == []
    assert list(tmp_path.iterdir()) == []  # no x.db, no -wal or -shm


def test_keys_create_says_it_created_the_store_once(tmp_path: Path) -> None:
    new = tmp_path / "new.db"
    first = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--db", str(new)], env=ENV)
    assert first.exit_code == 0, first.output
    assert created_lines(first.stderr) == [f"created new store {new}"]
    again = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--db", str(new)], env=ENV)
    assert again.exit_code == 0 and created_lines(again.stderr) == [], again.output
    listed = runner.invoke(app, ["keys", "list", "--json", "--db", str(new)], env=ENV)
    assert [k["tenant"] for k in json.loads(listed.stdout)] == ["acme", "acme"]
