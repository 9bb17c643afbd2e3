"""``mnemo import`` of a JSONL turn file is checked whole before it writes, idempotent and
resumable: a bad line writes nothing, a re-run adds nothing, and a real ``python -m mnemo
import`` killed with SIGKILL half-way and run again ends with exactly one row per line."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from signal_support import sigint_default
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def write_turns(path: Path, n: int, users: int = 3) -> None:
    """``n`` turns over a few users and sessions (some lines name them, some do not)."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            turn: dict[str, object] = {
                "role": ("user", "assistant")[i % 2],
                "content": f"turn {i}: the river walk and the cat named {i % 97}",
                "metadata": {"i": i},
            }
            if i % 3:
                turn["user_id"] = f"u{i % users}"
                turn["session_id"] = f"s{i // 500}"
            fh.write(json.dumps(turn) + "\n")
            if i % 1000 == 999:
                fh.write("\n")  # blank lines are skipped


def rows(db: str) -> int:
    """Turns in the SQLite file, read without mnemo (as a monitoring script would)."""
    if not Path(db).exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        conn.close()


def test_a_bad_line_writes_nothing_and_the_fixed_file_imports_once(
    tmp_path: Path, db_path: str
) -> None:
    src = tmp_path / "turns.jsonl"
    write_turns(src, 300)
    lines = src.read_text().splitlines()
    good = lines[250]
    lines[250] = json.dumps({"role": "robot", "content": "bad", "user_id": "u1"})
    src.write_text("\n".join(lines) + "\n")
    args = ["import", str(src), "--user", "ann", "--batch-size", "20", "--db", db_path]
    env = {"MNEMO_EMBEDDER": "hashing"}
    out = runner.invoke(app, args, env=env)
    assert out.exit_code == 2 and "turns.jsonl:251: role" in out.output, out.output
    assert rows(db_path) == 0  # checked whole before the first write
    for bad in (
        '{"role": "user", "content": "hi \\ud800 there"}',  # a lone surrogate, escaped
        '{"role": "user", "content": "hi", "metadata": {"k": ["\\udc00"]}}',
    ):
        lines[250] = bad
        src.write_text("\n".join(lines) + "\n")
        out = runner.invoke(app, args, env=env)
        assert out.exit_code == 2 and "turns.jsonl:251:" in out.output, out.output
        assert "lone surrogate" in out.output and rows(db_path) == 0
    lines[250] = good
    src.write_text("\n".join(lines) + "\n")
    out = runner.invoke(app, args, env=env)
    assert out.exit_code == 0 and "imported 300 turns" in out.output, out.output
    out = runner.invoke(app, args, env=env)  # again: nothing new
    assert out.exit_code == 0 and "imported 0 turns" in out.output, out.output
    assert "300 turns were already stored" in out.output
    assert rows(db_path) == 300
    with Memory(db_path, embedder="hashing") as mem:
        stored = sorted(t.content for t in mem.messages("u1", limit=1000))
    expected = [f"turn {i}: the river walk and the cat named {i % 97}" for i in range(300)]
    assert stored == sorted(expected[i] for i in range(300) if i % 3 == 1)


def big_import(tmp_path: Path, db_path: str, n: int) -> tuple[list[str], dict[str, str]]:
    """The command and environment of a real ``python -m mnemo import`` of ``n`` turns."""
    src = tmp_path / "big.jsonl"
    write_turns(src, n)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(PYTHONPATH=str(ROOT), MNEMO_EMBEDDER="hashing", MNEMO_FACT_EXTRACTION="off")
    cmd = [sys.executable, "-m", "mnemo", "import", str(src), "--user", "ann"]
    return [*cmd, "--batch-size", "25", "--db", db_path], env


def wait_for_rows(proc: subprocess.Popen[bytes], db_path: str, count: int) -> None:
    """Wait until the import ``proc`` has stored ``count`` turns (or ended, or 120 s)."""
    deadline = time.monotonic() + 120
    while rows(db_path) < count and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def test_sigkill_mid_import_then_rerun_gives_one_row_per_line(tmp_path: Path, db_path: str) -> None:
    n = 6000
    cmd, env = big_import(tmp_path, db_path, n)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_rows(proc, db_path, n // 4)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the import finished before it was killed"
    partial = rows(db_path)
    assert 0 < partial < n
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    assert f"imported {n - partial} turns" in run.stdout
    assert rows(db_path) == n
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0 and "imported 0 turns" in again.stdout
    assert rows(db_path) == n


def test_ctrl_c_mid_import_says_what_is_stored_and_that_a_rerun_resumes(
    tmp_path: Path, db_path: str
) -> None:
    n = 6000
    cmd, env = big_import(tmp_path, db_path, n)
    log = tmp_path / "stderr.txt"
    with log.open("w") as err:  # a file, not a pipe: nothing blocks on a full pipe
        proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=sigint_default
        )
    wait_for_rows(proc, db_path, n // 4)
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
    proc.wait(timeout=60)
    stderr = log.read_text()
    assert proc.returncode == 130, (proc.returncode, stderr[-2000:])
    partial = rows(db_path)
    assert 0 < partial < n
    assert "Traceback" not in stderr
    said = [line for line in stderr.replace("\r", "\n").splitlines() if "interrupted" in line]
    assert said == [
        f"interrupted: {partial} turns stored by this run, {n - partial} of {n} not yet; run "
        "the same command again to resume (turns already stored are skipped)"
    ], stderr[-2000:]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    assert f"imported {n - partial} turns" in run.stdout
    assert rows(db_path) == n
