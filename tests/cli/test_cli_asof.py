"""``--as-of`` and ``--now`` on ``mnemo search`` and the ``mnemo context`` command (issue 24,
"Time"), through typer's runner on real SQLite and PostgreSQL stores; on main the options
do not exist."""

from __future__ import annotations

import json
from datetime import timedelta

from asof_support import seed_work
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.schemas import utcnow

runner = CliRunner()


def test_search_and_context_as_of(target: dict[str, str]) -> None:
    env = {"MNEMO_EMBEDDER": "hashing"}
    env.update({"MNEMO_DATABASE_URL": target["url"]} if "url" in target else {})
    env.update({"MNEMO_PATH": target["path"]} if "path" in target else {})
    seed_work(target)
    ask = ["where do I work", "--user", "tia"]
    out = runner.invoke(app, ["search", *ask, "--json"], env=env)
    assert out.exit_code == 0, out.output
    assert any("pilot" in h["content"] for h in json.loads(out.output))
    out = runner.invoke(app, ["search", *ask, "--as-of", "2021-06-01", "--json"], env=env)
    assert out.exit_code == 0, out.output
    assert [h["content"] for h in json.loads(out.output)] == [
        "I work as a nurse at the city hospital"
    ]
    out = runner.invoke(
        app, ["context", *ask, "--as-of", "2021-06-01", "--now", "2021-06-01"], env=env
    )
    assert out.exit_code == 0, out.output
    assert "nurse" in out.output and "pilot" not in out.output
    out = runner.invoke(app, ["context", *ask, "--json"], env=env)
    assert out.exit_code == 0 and "pilot" in json.loads(out.output)["text"]

    future = (utcnow() + timedelta(days=2)).isoformat()
    bad = (("search", "--as-of", future), ("context", "--as-of", future),
           ("search", "--now", "soon"), ("context", "--as-of", "later"))  # fmt: skip
    for cmd, opt, value in bad:
        out = runner.invoke(app, [cmd, *ask, opt, value], env=env)
        assert out.exit_code != 0, out.output
        lines = out.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), out.output
