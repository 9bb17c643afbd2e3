"""Undated lines of a JSONL import take their time from their own session's dated lines, not
from the batch they happen to land in: one careless line of another session in between (or a
batch boundary) used to leave the rest of a session stamped with the import's wall clock. A
file where some lines name a session and others do not gets a warning naming those lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app
from mnemo.ops.importers import describe_lines, lines_without_session, session_times

runner = CliRunner()
ENV = {"MNEMO_EMBEDDER": "hashing"}


def write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def times_of(db: str, user: str, session: str) -> dict[str, str]:
    with Memory(db, embedder="hashing") as mem:
        return {m.content: m.created_at.isoformat() for m in mem.messages(user, session_id=session)}


def careless_file(tmp_path: Path) -> Path:
    return write(
        tmp_path / "chat.jsonl",
        [
            {"session_id": "a", "role": "user", "content": "We got a puppy",
             "created_at": "2024-03-01T10:00:00Z"},
            {"role": "user", "content": "a careless line with no session"},
            {"session_id": "a", "role": "assistant", "content": "What is its name?"},
            {"session_id": "a", "role": "user", "content": "Biscuit"},
            {"session_id": "b", "role": "user", "content": "b before its date"},
            {"session_id": "b", "role": "user", "content": "b dated",
             "created_at": "2024-05-01T09:00:00Z"},
        ],
    )  # fmt: skip


def test_undated_turns_take_their_own_sessions_time(tmp_path: Path, db_path: str) -> None:
    src = careless_file(tmp_path)
    out = runner.invoke(app, ["import", str(src), "--user", "maya", "--db", db_path], env=ENV)
    assert out.exit_code == 0, out.output
    a = times_of(db_path, "maya", "a")
    assert a["We got a puppy"].startswith("2024-03-01T10:00:00")
    assert a["What is its name?"].startswith("2024-03-01T10:00:01")
    assert a["Biscuit"].startswith("2024-03-01T10:00:02")
    b = times_of(db_path, "maya", "b")
    assert b["b before its date"].startswith("2024-05-01T08:59:59")
    # the careless line itself went to the default session, with nothing to date it by
    default = times_of(db_path, "maya", "default")
    assert list(default) == ["a careless line with no session"]
    assert not default["a careless line with no session"].startswith("2024")


def test_a_mixed_file_warns_naming_the_lines(tmp_path: Path, db_path: str) -> None:
    src = careless_file(tmp_path)
    out = runner.invoke(app, ["import", str(src), "--user", "maya", "--db", db_path], env=ENV)
    assert out.exit_code == 0, out.output
    warning = [line for line in out.output.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1, out.output
    assert "no session_id on line 2 while" in warning[0] and "'default'" in warning[0]


def test_no_warning_when_no_line_or_every_line_names_a_session(
    tmp_path: Path, db_path: str
) -> None:
    plain = write(
        tmp_path / "plain.jsonl", [{"role": "user", "content": f"t{i}"} for i in range(3)]
    )
    out = runner.invoke(app, ["import", str(plain), "--user", "u", "--db", db_path], env=ENV)
    assert out.exit_code == 0 and "warning:" not in out.output, out.output
    assert lines_without_session(plain) == []


def test_a_batch_boundary_keeps_the_sessions_time(tmp_path: Path, db_path: str) -> None:
    lines: list[dict[str, Any]] = [
        {"role": "user", "content": "first", "created_at": "2024-01-02T03:04:05Z"}
    ]
    lines += [{"role": "assistant", "content": f"reply {i}"} for i in range(5)]
    src = write(tmp_path / "s.jsonl", lines)
    args = ["import", str(src), "--user", "u", "--batch-size", "2", "--db", db_path]
    assert runner.invoke(app, args, env=ENV).exit_code == 0
    times = times_of(db_path, "u", "default")
    assert times["reply 4"].startswith("2024-01-02T03:04:10")
    assert all(t.startswith("2024-01-02") for t in times.values())


def test_session_times_and_line_lists(tmp_path: Path) -> None:
    src = careless_file(tmp_path)
    times = session_times(src, "maya", "default")
    assert set(times) == {3, 4, 5}  # the undated lines of dated sessions, by line number
    assert lines_without_session(src) == [2]
    assert describe_lines([2, 7, 9]) == "lines 2, 7 and 9"


def test_reimport_after_the_fix_adds_nothing(tmp_path: Path, db_path: str) -> None:
    """The filled times do not change a line's import id: a re-run still skips it."""
    src = careless_file(tmp_path)
    args = ["import", str(src), "--user", "maya", "--db", db_path]
    assert runner.invoke(app, args, env=ENV).exit_code == 0
    out = runner.invoke(app, args, env=ENV)
    assert out.exit_code == 0 and "imported 0 turns" in out.output, out.output
