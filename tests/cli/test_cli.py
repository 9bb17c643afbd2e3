"""The command line, driven through typer's runner on real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()


@pytest.fixture
def env(db_path: str) -> dict[str, str]:
    return {"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}


def test_add_search_stats(env: dict[str, str]) -> None:
    out = runner.invoke(
        app, ["add", "Ann is allergic to shellfish", "--user", "ann", "--tag", "health"], env=env
    )
    assert out.exit_code == 0, out.output
    assert out.stdout.strip().startswith("mem_")  # stderr says the store was created
    out = runner.invoke(
        app,
        ["add", "I booked the ferry", "--user", "ann", "--role", "user", "--session", "trip"],
        env=env,
    )
    assert out.exit_code == 0 and out.output.strip().startswith("msg_")
    out = runner.invoke(app, ["search", "shellfish allergy", "--user", "ann", "--json"], env=env)
    assert out.exit_code == 0, out.output
    hits = json.loads(out.output)
    assert hits[0]["content"] == "Ann is allergic to shellfish" and "fused" in hits[0]["scores"]
    out = runner.invoke(app, ["search", "ferry", "--user", "ann", "--explain"], env=env)
    assert out.exit_code == 0 and "ferry" in out.output and "dense_rank" in out.output
    out = runner.invoke(app, ["stats"], env=env)
    assert out.exit_code == 0 and "messages" in out.output


def test_import_jsonl_with_users_sessions_and_batches(
    env: dict[str, str], tmp_path: Path, db_path: str
) -> None:
    lines = [
        {"role": "user", "content": f"turn {i}", "session_id": f"s{i // 4}"} for i in range(10)
    ]
    lines.append({"role": "user", "content": "from bob", "user_id": "bob"})
    src = tmp_path / "turns.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    out = runner.invoke(app, ["import", str(src), "--user", "ann", "--batch-size", "3"], env=env)
    assert out.exit_code == 0, out.output
    assert "imported 11 turns" in out.output
    mem = Memory(db_path, embedder="hashing")
    assert [m.content for m in mem.messages("ann", session_id="s1")] == [
        "turn 4",
        "turn 5",
        "turn 6",
        "turn 7",
    ]
    assert [m.content for m in mem.messages("bob")] == ["from bob"]


def test_import_errors_are_one_line_and_exit_2(
    env: dict[str, str], tmp_path: Path, db_path: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "fine"}\n{"role": "robot", "content": "x"}\n')
    out = runner.invoke(app, ["import", str(bad), "--user", "ann", "--batch-size", "1"], env=env)
    assert out.exit_code == 2
    assert "bad.jsonl:2: role" in out.output and "Traceback" not in out.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"role": "user", "content": "ok"}\n{not json\n')
    out = runner.invoke(app, ["import", str(broken), "--user", "ann"], env=env)
    assert out.exit_code == 2 and "broken.jsonl:2" in out.output
    out = runner.invoke(app, ["import", str(tmp_path / "missing.jsonl"), "--user", "a"], env=env)
    assert out.exit_code == 2
    no_user = tmp_path / "nouser.jsonl"
    no_user.write_text('{"role": "user", "content": "ok"}\n')
    out = runner.invoke(app, ["import", str(no_user)], env=env)
    assert out.exit_code == 2 and "user_id" in out.output


def test_bad_search_input_is_a_clean_error(env: dict[str, str]) -> None:
    assert runner.invoke(app, ["add", "a fact", "--user", "u"], env=env).exit_code == 0
    out = runner.invoke(app, ["search", "x", "--user", "u", "--kind", "bogus"], env=env)
    assert out.exit_code == 2 and "kinds" in out.output


def test_demo_runs_on_hashing(tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")
    out = runner.invoke(app, ["demo", "--db", db, "--embedder", "hashing"])
    assert out.exit_code == 0, out.output
    assert "ingested 22 turns" in out.output and "Edinburgh" in out.output


@pytest.mark.slow
def test_demo_with_the_bundled_model_recalls_the_answers(tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")
    with Memory(db, embedder="local") as mem:
        pass
    out = runner.invoke(app, ["demo", "--db", db], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    with Memory(db) as mem:
        top = mem.search("What is the name of my dog?", user_id="maya", limit=3)
        assert any("Biscuit" in h.content for h in top)
        top = mem.search("Which foods should I avoid when cooking for me?", user_id="maya", limit=3)
        assert any("peanuts" in h.content for h in top)


def test_import_locomo_format(env: dict[str, str], tmp_path: Path, db_path: str) -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I got a puppy"},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Cute!", "blip_caption": "a dog"},
            ],
            "session_2_date_time": "2:00 pm on 9 May, 2023",
        },
        "qa": [],
    }
    src = tmp_path / "locomo.json"
    src.write_text(json.dumps([sample]))
    out = runner.invoke(app, ["import", str(src), "--format", "locomo"], env=env)
    assert out.exit_code == 0, out.output
    assert "imported 2 turns" in out.output
    msgs = Memory(db_path, embedder="hashing").messages("conv-x")
    assert [(m.name, m.metadata["dia_id"]) for m in msgs] == [("Ann", "D1:1"), ("Bob", "D1:2")]
    assert "a dog" in msgs[1].content
