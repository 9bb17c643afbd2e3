"""``mnemo entities`` and ``mnemo entity NAME`` through typer's runner, on both stores."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()


def test_entities_and_entity_commands(target: dict[str, str]) -> None:
    db = ["--db", target.get("path") or target["url"], "--embedder", "hashing"]
    said = ["My husband Raj is a pilot, he flies for KLM.", "Raj visited Lisbon with me."]
    with Memory(**target, embedder="hashing") as mem:
        mem.add_messages([{"role": "user", "content": t} for t in said], "dana")
        mem.drain()
    out = runner.invoke(app, ["entities", "--user", "dana", "--json", *db])
    assert out.exit_code == 0, out.output
    got = {e["name"]: e for e in json.loads(out.output)}
    assert set(got) == {"Raj", "KLM", "Lisbon"} and got["Raj"]["mentions"] == 2
    out = runner.invoke(app, ["entities", "-u", "dana", *db], terminal_width=200)
    assert out.exit_code == 0 and "3 entities" in out.output and "my husband" in out.output
    out = runner.invoke(app, ["entity", "my husband", "--user", "dana", "--json", *db])
    assert out.exit_code == 0, out.output
    detail = json.loads(out.output)
    assert detail["entity"]["name"] == "Raj" and [t["content"] for t in detail["turns"]] == said
    out = runner.invoke(app, ["entity", "raj's", "-u", "dana", *db], terminal_width=200)
    assert out.exit_code == 0 and "Raj" in out.output and "2 turns" in out.output
    out = runner.invoke(app, ["entity", "Bob", "--user", "dana", *db])
    assert out.exit_code == 2 and "no entity" in out.output
    out = runner.invoke(app, ["entities", "--json", *db])  # the default user has none
    assert out.exit_code == 0 and json.loads(out.output) == []
