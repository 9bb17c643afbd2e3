"""``--filter`` on ``mnemo search`` and ``mnemo list``, and ``mnemo count`` / ``mnemo
delete-all``, through typer's runner on a real SQLite file: bad JSON, a bad filter and a 1 MB
filter (from a file) are one ``error:`` line, exit status 2, and change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()
BLUE = json.dumps({"team": "blue"})


@pytest.fixture
def env(db_path: str) -> dict[str, str]:
    with Memory(db_path, embedder="hashing") as mem:
        for content, team in (
            ("Ann plans the coffee budget", "blue"),
            ("Ann buys coffee beans", "red"),
            ("Ann likes coffee with milk", "blue"),
        ):
            mem.add(content, user_id="ann", metadata={"team": team})
    return {"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}


def invoke(env: dict[str, str], *args: str) -> tuple[int, str]:
    out = runner.invoke(app, list(args), env=env)
    return out.exit_code, out.output


def test_search_list_count_and_delete_all_take_a_filter(env: dict[str, str]) -> None:
    code, out = invoke(env, "search", "coffee", "--user", "ann", "--filter", BLUE, "--json")
    assert code == 0, out
    assert sorted(h["metadata"]["team"] for h in json.loads(out)) == ["blue", "blue"]
    code, out = invoke(env, "list", "--user", "ann", "--filter", BLUE, "--limit", "1")
    assert code == 0 and "1 of 2 memories" in out, out
    assert "--filter" in out  # the next page's command keeps the filter
    code, out = invoke(env, "count", "--user", "ann", "--filter", BLUE, "--json")
    assert (code, json.loads(out)) == (0, {"user_id": "ann", "count": 2})
    code, out = invoke(env, "delete-all", "--user", "ann", "--filter", BLUE, "--yes")
    assert code == 0 and "deleted 2 memories" in out, out
    code, out = invoke(env, "count", "--user", "ann")
    assert code == 0 and "1 memories" in out


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("{not json", "--filter: not JSON"),
        ("[1]", "must be a JSON object"),
        ('{"AND": [{"team": "blue"}, {"kind": {"gte": "fact"}}]}', "AND[1].kind"),
        ('{"user_id": "bob"}', "user_id is a scope"),
    ],
)
def test_a_bad_filter_is_one_error_line(env: dict[str, str], given: str, says: str) -> None:
    for command in (["count"], ["delete-all", "--yes"], ["list"], ["search", "coffee"]):
        code, out = invoke(env, *command, "--user", "ann", "--filter", given)
        lines = out.strip().splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), (command, out)
        assert says in out, out
    assert invoke(env, "count", "--user", "ann")[1].strip() == "3 memories"


def test_a_1mb_filter_from_a_file_is_refused(env: dict[str, str], tmp_path: Path) -> None:
    big = tmp_path / "filter.json"
    big.write_text(json.dumps({"team": "x" * 1_000_000}), encoding="utf-8")
    code, out = invoke(env, "delete-all", "--user", "ann", "--filter", f"@{big}", "--yes")
    assert code == 2 and out.startswith("error:") and "characters" in out, out
    assert invoke(env, "count", "--user", "ann")[1].strip() == "3 memories"
