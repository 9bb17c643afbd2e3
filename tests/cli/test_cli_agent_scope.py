"""``--agent`` on ``mnemo add/search/list/get`` and ``mnemo forget-agent``, through typer's
runner, on both stores (``--db`` takes the SQLite file or the postgresql:// URL)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app

runner = CliRunner()


def test_agent_option_scopes_writes_reads_and_erasure(target: dict[str, str]) -> None:
    db = ["--db", target.get("path") or target["url"], "--embedder", "hashing"]

    def mnemo(*args: str, code: int = 0, stdin: str | None = None) -> str:
        out = runner.invoke(app, [*args, *db], input=stdin)
        assert out.exit_code == code, out.output
        return out.stdout if code == 0 else out.output  # stderr: "created new store ..."

    shared = mnemo("add", "Heron ships in spring", "--user", "ann").strip()
    alpha = mnemo("add", "alpha code word Falcon", "--user", "ann", "--agent", "alpha").strip()
    beta = mnemo("add", "beta code word Osprey", "--user", "ann", "--agent", "beta").strip()
    own = mnemo("add", "alpha tool note", "--agent", "alpha").strip()
    mnemo("add", "beta turn Osprey", "--user", "ann", "--agent", "beta", "--role", "user")

    hits = json.loads(mnemo("search", "code word", "--user", "ann", "--agent", "alpha", "--json"))
    assert {h["id"] for h in hits} >= {alpha} and beta not in {h["id"] for h in hits}
    assert all(h["agent_id"] in (None, "alpha") for h in hits)
    mine = json.loads(mnemo("search", "tool note", "--agent", "alpha", "--json"))
    assert [h["id"] for h in mine] == [own]

    page = json.loads(mnemo("list", "--user", "ann", "--agent", "alpha", "--json"))
    assert {m["id"] for m in page["data"]} == {shared, alpha} and page["total"] == 2
    shown = mnemo("list", "--user", "ann", "--agent", "alpha", "--limit", "1")
    assert "seen by agent alpha" in shown and "agent alpha" in shown
    assert "--agent alpha" in shown  # the next-page command keeps the scope
    assert "own memories of agent alpha" in mnemo("list", "--agent", "alpha")

    assert json.loads(mnemo("get", alpha, "--agent", "alpha", "--user", "ann", "--json"))["id"]
    hidden = mnemo("get", beta, "--user", "ann", "--agent", "alpha", code=2)
    assert hidden.count("error:") == 1 and "in this scope" in hidden
    bad = mnemo("add", "x", "--user", "ann", "--agent", "  ", code=2)
    assert "error:" in bad and "agent_id" in bad
    neither = mnemo("search", "x", code=2)
    assert "give --user USER or --agent AGENT" in neither

    mnemo("forget-agent", "beta", stdin="n\n", code=1)
    erased = json.loads(mnemo("forget-agent", "beta", "--yes", "--json"))
    assert erased["agent_id"] == "beta" and erased["deleted"]["memories"] == 1
    assert erased["deleted"]["messages"] == 1
    left = json.loads(mnemo("list", "--user", "ann", "--json"))
    assert {m["id"] for m in left["data"]} == {shared, alpha}
    assert "error:" in mnemo("forget-agent", " ", "--yes", code=2)


@pytest.mark.parametrize(
    "args",
    [
        ["add", "x"],
        ["add", "x", "--role", "user"],
        ["search", "x"],
        ["context", "x"],
        ["count"],
        ["delete-all", "--yes"],
    ],
    ids=" ".join,
)
def test_a_command_without_user_or_agent_names_the_flags(
    target: dict[str, str], args: list[str]
) -> None:
    db = ["--db", target.get("path") or target["url"], "--embedder", "hashing"]
    runner.invoke(app, ["add", "a fact", "--user", "ann", *db])  # the store exists
    out = runner.invoke(app, [*args, *db])
    errors = [line for line in out.output.splitlines() if line.startswith("error:")]
    assert out.exit_code == 2, out.output
    assert errors == ["error: give --user USER or --agent AGENT (whose memories these are)"]
    assert "NoneType" not in out.output and "user_id" not in out.output
