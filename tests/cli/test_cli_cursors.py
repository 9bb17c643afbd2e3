"""``mnemo list --cursor``: the footer's next-page command pages by cursor, stays right while
memories are written between commands, and a cursor of another query is one ``error:`` line
with a non-zero exit."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()


def mnemo(db_path: str, *args: str) -> tuple[int, str]:
    out = runner.invoke(app, [*args, "--db", db_path, "--embedder", "hashing"])
    return out.exit_code, out.output


def test_list_follows_the_printed_cursor_while_memories_are_written(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        for i in range(7):
            mem.add(f"fact {i}", "ann", created_at=f"2024-01-0{i + 1}T00:00:00Z")
        code, out = mnemo(db_path, "list", "--user", "ann", "--limit", "3")
        assert code == 0 and "3 of 7 memories" in out
        seen = re.findall(r"fact (\d)", out)
        nxt = out.splitlines()[-1]
        assert nxt.startswith("next page: mnemo list --user ann --db ") and "--cursor " in nxt
        mem.add("newer than all", "ann", created_at="2030-01-01T00:00:00Z")  # before page 2
        code, out = mnemo(db_path, "list", "--user", "ann", "--limit", "3", "--cursor",
                          nxt.split("--cursor ")[1])  # fmt: skip
        assert code == 0 and "4-6 of 8 memories" in out  # the new row counts, moves nothing
        seen += re.findall(r"fact (\d)", out)
        assert seen == ["6", "5", "4", "3", "2", "1"]  # none repeated, none skipped

        code, out = mnemo(db_path, "list", "--user", "ann", "--limit", "3", "--json")
        listed = json.loads(out)
        assert listed["next_cursor"] and listed["next_offset"] == 3 and listed["total"] == 8
        token = listed["next_cursor"]
    for args in (
        ("list", "--user", "bob", "--cursor", token),  # another user's query
        ("list", "--user", "ann", "--kind", "note", "--cursor", token),
        ("list", "--user", "ann", "--cursor", token + "x"),
        ("list", "--user", "ann", "--cursor", token, "--offset", "3"),
    ):
        code, out = mnemo(db_path, *args)
        lines = out.strip().splitlines()
        assert code != 0 and len(lines) == 1 and lines[0].startswith("error:"), out
        assert "cursor" in lines[0]
