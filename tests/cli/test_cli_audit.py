"""``mnemo audit`` on real SQLite and PostgreSQL stores: the report as a table and as JSON,
``--fix`` applying the safe fixes, ``--apply`` one finding by id."""

from __future__ import annotations

import json

from audit_support import AFTER_FIX, EXPECTED, seed
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()


def test_audit_report_fix_and_apply(target: dict[str, str]) -> None:
    env = {"MNEMO_EMBEDDER": "hashing", "COLUMNS": "400"}
    env.update({"MNEMO_DATABASE_URL": target["url"]} if "url" in target else {})
    env.update({"MNEMO_PATH": target["path"]} if "path" in target else {})
    with Memory(**target, embedder="hashing") as mem:
        seed(mem)
    out = runner.invoke(app, ["audit", "--user", "u1", "--json"], env=env)
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert {(f["kind"], f["detail"], f["fix"]["safe"]) for f in report["findings"]} == EXPECTED
    out = runner.invoke(app, ["audit"], env=env)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())  # the console wraps long lines
    assert "1 duplicate, 1 contradiction, 1 stale, 2 junk; 0 fixes applied" in text
    assert "Leeds -> York" in text

    out = runner.invoke(app, ["audit", "--user", "u1", "--fix"], env=env)
    assert out.exit_code == 0 and "3 fixes applied" in " ".join(out.output.split()), out.output
    with Memory(**target, embedder="hashing") as mem:
        assert {m.content for m in mem.list(user_id="u1", limit=100)} == AFTER_FIX
    [question] = [f["id"] for f in report["findings"] if f["detail"] == "question"]
    out = runner.invoke(app, ["audit", "--user", "u1", "--apply", question, "--json"], env=env)
    assert json.loads(out.stdout)["applied"] == 1
    out = runner.invoke(app, ["audit", "--user", "u1", "--apply", "mem_x"], env=env)
    assert out.exit_code == 2 and "finding ids" in out.output


def test_an_unknown_user_is_one_error_line(target: dict[str, str]) -> None:
    where = target.get("path") or target["url"]
    with Memory(**target, embedder="hashing") as mem:
        seed(mem)
    args = ["audit", "--user", "nobody", "--db", where, "--embedder", "hashing"]
    for extra in ([], ["--json"], ["--fix"]):
        out = runner.invoke(app, [*args, *extra])
        assert out.exit_code == 2, out.output
        assert out.output.strip().splitlines() == ["error: no user 'nobody' in tenant 'default'"]
