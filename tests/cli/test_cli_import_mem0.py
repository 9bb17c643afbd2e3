"""``mnemo import FILE --format mem0`` through typer's runner on a real SQLite file: a mem0
dump's memories are stored with their ids, scopes, metadata and times, a re-run skips them,
standard input works (``-``), and a bad dump is one ``error:`` line, exit status 2, with
nothing written."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app
from mnemo.compat.mem0 import Memory as Mem0

runner = CliRunner()
DUMP = {
    "results": [
        {"id": "m0-1", "memory": "Is allergic to peanuts", "metadata": {"category": "health"},
         "created_at": "2025-03-01T09:30:00-05:00", "user_id": "sam"},
        {"id": "m0-2", "memory": "Prefers short answers", "user_id": "sam",
         "agent_id": "helper"},
    ]
}  # fmt: skip


def test_import_a_mem0_dump_then_again(db_path: str, tmp_path: Path) -> None:
    env = {"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}
    dump = tmp_path / "mem0.json"
    dump.write_text(json.dumps(DUMP), encoding="utf-8")
    first = runner.invoke(app, ["import", str(dump), "--format", "mem0"], env=env)
    assert first.exit_code == 0, first.output
    assert "imported 2 memories" in first.output
    again = runner.invoke(app, ["import", "-", "--format", "mem0"], env=env, input=dump.read_text())
    assert again.exit_code == 0, again.output
    assert "imported 0 memories" in again.output and "2 were already there" in again.output
    with Memory(db_path, embedder="hashing") as mem:
        found = Mem0(memory=mem).get("m0-1")
        assert found is not None and found["metadata"]["category"] == "health"
        assert found["created_at"] == "2025-03-01T14:30:00+00:00"
        assert mem.count("sam") == 2 and mem.count("sam", agent_id="helper") == 2


def test_a_bad_dump_is_one_error_line_and_writes_nothing(db_path: str, tmp_path: Path) -> None:
    env = {"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"results": [DUMP["results"][0], {"id": "x"}]}), encoding="utf-8")
    out = runner.invoke(app, ["import", str(bad), "--format", "mem0"], env=env)
    assert out.exit_code == 2
    assert out.output.strip().splitlines()[-1] == "error: mem0 item 1 (x) has no memory text"
    missing = runner.invoke(
        app, ["import", str(tmp_path / "none.json"), "--format", "mem0"], env=env
    )
    assert missing.exit_code == 2 and "no such file" in missing.output
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.count("sam") == 0
