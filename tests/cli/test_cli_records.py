"""``mnemo list/get/history/edit/delete/forget-user/stats/jobs``, ``--version`` and ``-h``, driven
through typer's runner on real SQLite files (and the job re-queue on both stores)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()


@pytest.fixture
def env(db_path: str) -> dict[str, str]:
    return {"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}


@pytest.fixture
def seeded(db_path: str) -> dict[str, str]:
    """Two memories of ann, one of bob, and one turn of ann; their ids by name."""
    with Memory(db_path, embedder="hashing") as mem:
        tea = mem.add("Ann likes green tea", user_id="ann", tags=["drinks"])
        cat = mem.add("Ann has a cat named Miso", user_id="ann", kind="note")
        bob = mem.add("Bob plays the cello", user_id="bob")
        (turn,) = mem.add_messages([{"role": "user", "content": "hi there"}], user_id="ann")
    return {"tea": tea.id, "cat": cat.id, "bob": bob.id, "turn": turn}


def test_list_get_edit_delete(env: dict[str, str], seeded: dict[str, str]) -> None:
    out = runner.invoke(app, ["list", "--user", "ann", "--json"], env=env)
    assert out.exit_code == 0, out.output
    listed = json.loads(out.output)
    assert [m["id"] for m in listed["data"]] == [seeded["cat"], seeded["tea"]]
    assert (listed["total"], listed["next_offset"]) == (2, None)
    out = runner.invoke(app, ["list", "--json", "--kind", "note"], env=env)
    assert [m["content"] for m in json.loads(out.output)["data"]] == ["Ann has a cat named Miso"]
    out = runner.invoke(app, ["list"], env=env)
    assert out.exit_code == 0 and "3 of 3 memories" in out.output and "cello" in out.output

    out = runner.invoke(app, ["get", seeded["tea"], "--json"], env=env)
    assert out.exit_code == 0 and json.loads(out.output)["tags"] == ["drinks"]
    out = runner.invoke(app, ["get", seeded["turn"]], env=env)
    assert out.exit_code == 0 and "hi there" in out.output

    out = runner.invoke(
        app, ["edit", seeded["tea"], "--content", "Ann likes oolong", "--tag", "tea"], env=env
    )
    assert out.exit_code == 0 and f"updated {seeded['tea']}" in out.output
    out = runner.invoke(app, ["search", "oolong", "--user", "ann", "--json"], env=env)
    assert json.loads(out.output)[0]["content"] == "Ann likes oolong"
    out = runner.invoke(app, ["edit", seeded["tea"]], env=env)
    assert out.exit_code == 2 and "nothing to change" in out.output

    out = runner.invoke(app, ["delete", seeded["tea"]], env=env)
    assert out.exit_code == 0 and f"deleted {seeded['tea']}" in out.output
    out = runner.invoke(app, ["get", seeded["tea"]], env=env)
    assert out.exit_code == 2 and "was deleted" in out.output
    assert len(out.output.strip().splitlines()) == 1
    out = runner.invoke(app, ["delete", "mem_nope"], env=env)
    assert out.exit_code == 2 and "Traceback" not in out.output

    out = runner.invoke(app, ["history", seeded["tea"], "--json"], env=env)  # deleted: still kept
    assert out.exit_code == 0, out.output
    entries = json.loads(out.output)
    assert [(e["event"], e["actor"]) for e in entries][1:] == [("UPDATE", "cli"), ("DELETE", "cli")]
    assert entries[1]["old"]["content"] == "Ann likes green tea"
    out = runner.invoke(app, ["history", seeded["tea"]], env=env)
    words = " ".join(out.output.replace("│", " ").split())
    assert out.exit_code == 0 and "UPDATE" in words and "DELETE" in words and "None" not in words
    out = runner.invoke(app, ["history", "mem_nope"], env=env)
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1


def mnemo_at_80(*args: str) -> str:
    """``mnemo <args>`` in a real process whose terminal is 80 columns wide; its stdout."""
    env = {**os.environ, "COLUMNS": "80", "MNEMO_EMBEDDER": "hashing"}
    run = subprocess.run(
        [sys.executable, "-m", "mnemo", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_list_reads_in_80_columns_and_says_how_to_go_on(db_path: str) -> None:
    """Issue 27: the content column was 6 characters wide ("adopti/on") and the list never
    said how many there were or how to see more."""
    with Memory(db_path, embedder="hashing") as mem:
        made = [
            mem.add(
                f"Caroline adopted a rescue dog named Biscuit ({i}) after months of looking",
                "caroline",
                created_at=f"2024-03-01T10:{i // 60:02d}:{i % 60:02d}Z",
            )
            for i in range(85)
        ]
    newest = [m.id for m in reversed(made)]
    out = mnemo_at_80("list", "--user", "caroline", "--db", db_path)
    table = [line for line in out.splitlines() if not line.startswith("next page: ")]
    assert max(len(line) for line in table) <= 80  # the command of the next page may not fit
    assert "adopti\n" not in out and re.search(r"Caroline adopted a rescue dog named", out)
    shown = re.findall(r"mem_[0-9a-z]{26}", out)  # whole ids, as get/edit/delete take them
    assert shown == newest[:20]
    # the next page's command pages by cursor (issue 24: it stays right under writes)
    again = f"next page: mnemo list --user caroline --db {db_path} --cursor "
    assert out.splitlines()[-2] == "20 of 85 memories"
    assert out.splitlines()[-1].startswith(again)
    token = out.splitlines()[-1].removeprefix(again)

    page2 = mnemo_at_80("list", "--user", "caroline", "--db", db_path, "--cursor", token)
    assert re.findall(r"mem_[0-9a-z]{26}", page2) == newest[20:40]
    assert page2.splitlines()[-2] == "21-40 of 85 memories"
    assert page2.splitlines()[-1].startswith(again)
    by_offset = mnemo_at_80("list", "--user", "caroline", "--db", db_path, "--offset", "20")
    assert re.findall(r"mem_[0-9a-z]{26}", by_offset) == newest[20:40]  # offsets still work
    last = mnemo_at_80("list", "--user", "caroline", "--db", db_path, "--offset", "80")
    assert "81-85 of 85 memories" in last and "next page" not in last

    listed = json.loads(mnemo_at_80("list", "--user", "caroline", "--db", db_path, "--json"))
    assert (listed["total"], listed["offset"], listed["next_offset"]) == (85, 0, 20)
    assert listed["next_cursor"] == token
    assert [m["id"] for m in listed["data"]] == newest[:20]
    got = mnemo_at_80("get", shown[0], "--db", db_path, "--json")
    assert json.loads(got)["id"] == newest[0]


def test_forget_user_asks_first(env: dict[str, str], seeded: dict[str, str], db_path: str) -> None:
    out = runner.invoke(app, ["forget-user", "ann"], input="n\n", env=env)
    assert out.exit_code == 1 and "cannot be undone" in out.output
    with Memory(db_path, embedder="hashing") as mem:
        assert len(mem.list("ann")) == 2
    out = runner.invoke(app, ["forget-user", "ann"], input="y\n", env=env)
    assert out.exit_code == 0 and "erased user 'ann'" in out.output
    out = runner.invoke(app, ["forget-user", "bob", "--yes", "--json"], env=env)
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["deleted"]["memories"] == 1
    with Memory(db_path, embedder="hashing") as mem:
        assert mem.list() == []


@pytest.mark.parametrize(
    "args",
    [
        ["stats"],
        ["stats", "--json"],
        ["list"],
        ["get", "mem_x"],
        ["history", "mem_x"],
        ["jobs"],
        ["search", "tea", "--user", "ann"],
        ["keys", "list"],
        ["keys", "list", "--json"],
        ["keys", "revoke", "abc"],
        ["export", "{out}/backup.jsonl"],
        ["export", "{out}/md", "--format", "markdown"],
        ["reembed", "--dry-run"],
        ["reembed"],
        ["repair", "--dry-run"],
        ["repair"],
    ],
)
def test_read_only_commands_never_create_a_store(tmp_path: Path, args: list[str]) -> None:
    """Commands that read (or only repair) a store refuse a missing one: a mistyped --db is
    one error line, not an empty store created and reported as "0" (nor an empty export)."""
    missing = tmp_path / "no" / "such" / "x.db"
    (tmp_path / "out").mkdir()
    args = [a.format(out=tmp_path / "out") for a in args]
    out = runner.invoke(app, [*args, "--db", str(missing)], env={"MNEMO_EMBEDDER": "hashing"})
    assert out.exit_code == 2
    assert out.output.strip().splitlines() == [
        f"error: no mnemo store at {missing} (give --db or MNEMO_PATH; `mnemo add` or "
        "`mnemo import` creates one)"
    ]
    assert not (tmp_path / "no").exists()
    assert list((tmp_path / "out").iterdir()) == []


def test_keys_list_json(db_path: str) -> None:
    out = runner.invoke(
        app, ["keys", "create", "--tenant", "acme", "--name", "ci", "--db", db_path]
    )
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["keys", "list", "--json", "--db", db_path])
    assert out.exit_code == 0, out.output
    keys = json.loads(out.output)
    assert [(k["tenant"], k["name"], k["revoked_at"]) for k in keys] == [("acme", "ci", None)]
    assert set(keys[0]) == {"id", "tenant", "name", "created_at", "revoked_at"}
    assert "mnemo_" not in out.output  # ids and dates only, never a key


def test_stats_table_and_json(env: dict[str, str], seeded: dict[str, str]) -> None:
    out = runner.invoke(app, ["stats", "--json"], env=env)
    assert out.exit_code == 0, out.output
    s = json.loads(out.output)
    assert s["users"] == 2 and s["memories"] == {"fact": 2, "note": 1} and s["messages"] == 1
    out = runner.invoke(app, ["stats"], env=env)
    assert out.exit_code == 0 and "fact 2, note 1" in out.output and "{" not in out.output


def kill_one_job(mem: Memory) -> int:
    """Claim the oldest job of the tenant of `mem` and fail it for good; its id."""
    job = mem.store.jobs.claim_job(tenant=mem.tenant)
    assert job is not None
    assert mem.store.jobs.fail_job(job.id, "boom", None)
    return job.id


def test_jobs_list_and_retry_dead(env: dict[str, str], db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.add_messages([{"role": "user", "content": "I moved to Lisbon"}], user_id="ann")
        dead = kill_one_job(mem)
    out = runner.invoke(app, ["jobs", "--status", "dead", "--json"], env=env)
    assert out.exit_code == 0, out.output
    jobs = json.loads(out.output)["jobs"]
    assert [(j["id"], j["status"], j["last_error"]) for j in jobs] == [(dead, "dead", "boom")]
    out = runner.invoke(app, ["jobs"], env=env)
    assert out.exit_code == 0 and "dead" in out.output and "boom" in out.output
    out = runner.invoke(app, ["jobs", "--retry-dead"], env=env)
    assert out.exit_code == 0 and "re-queued 1 dead job(s)" in out.output
    out = runner.invoke(app, ["jobs", "--json", "--retry-dead"], env=env)
    assert json.loads(out.output)["requeued"] == 0
    assert all(j["status"] == "pending" for j in json.loads(out.output)["jobs"])
    out = runner.invoke(app, ["jobs", "--status", "bogus"], env=env)
    assert out.exit_code == 2


def test_requeue_dead_jobs_on_both_stores(open_mem: Callable[..., Memory]) -> None:
    a, b = open_mem(tenant="a"), open_mem(tenant="b")
    a.add_messages([{"role": "user", "content": "one"}], user_id="u")
    dead = kill_one_job(a)
    b.add_messages([{"role": "user", "content": "two"}], user_id="u")
    kill_one_job(b)
    assert a.store.jobs.requeue_dead_jobs(tenant="a") == 1
    job = next(j for j in a.store.jobs.list_jobs() if j.id == dead)
    assert (job.status, job.attempts) == ("pending", 0)
    assert [j.status for j in a.store.jobs.list_jobs("dead")] == ["dead"]  # b's, untouched
    assert a.store.jobs.requeue_dead_jobs() == 1
    assert a.store.jobs.list_jobs("dead") == []


def test_version_and_short_help() -> None:
    out = runner.invoke(app, ["--version"])
    assert out.exit_code == 0 and out.output.startswith("mnemo ")
    assert runner.invoke(app, ["-h"]).output == runner.invoke(app, ["--help"]).output
    out = runner.invoke(app, ["list", "-h"])
    assert out.exit_code == 0 and "--json" in out.output
