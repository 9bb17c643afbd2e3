"""``mnemo migrate`` checks everything it can before it copies a row (the source exists, the
target is empty, the embedder made the source's vectors), and a failure after the copy began
(a row the target refuses, Ctrl-C during the checks) leaves the target as it was: a SQLite file
it created is deleted, a PostgreSQL schema emptied. On real stores and real processes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from signal_support import sigint_default
from typer.testing import CliRunner

from mnemo import Memory, SchemaError, StorageError, ValidationError
from mnemo.cli.main import app
from mnemo.ops.migrate import migrate

ROOT = Path(__file__).resolve().parents[2]
QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


def seed(path: str, turns: int = 40) -> None:
    """A SQLite store whose vectors the hashing embedder (384 dims) made."""
    with Memory(path, embedder="hashing", **QUIET) as mem:
        for start in range(0, turns, 500):
            batch = [
                {"role": "user", "content": f"turn {i} about rivers, cats and pizza {i % 31}"}
                for i in range(start, min(turns, start + 500))
            ]
            mem.add_messages(batch, user_id=f"u{start % 3}", session_id=f"s{start}")
        mem.add("likes tea", user_id="u0", tags=["drink"])


def pg_rows(url: str) -> int:
    """Turns and memories in the PostgreSQL schema of ``url``."""
    with Memory(url=url, embedder="hashing", **QUIET) as mem:
        s = mem.stats()
        return s.messages + sum(s.memories.values()) + s.users


def pg_tables(url: str) -> int:
    """Tables in the schema first on the ``search_path`` of ``url``."""
    import psycopg

    with psycopg.connect(url) as c:
        row = c.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchone()
    return int(row[0]) if row else 0


def test_an_embedder_that_did_not_make_the_vectors_fails_before_copying(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "new.db")
    seed(src)
    monkeypatch.setenv("MNEMO_EMBEDDER_DIM", "256")  # hashing, but not the one of the store
    with pytest.raises(SchemaError, match=r"made by \['hashing:384'\].*'hashing:256'"):
        migrate(src, dst, searches=5, embedder="hashing")
    assert not Path(dst).exists()  # the file it would have created is not left behind
    monkeypatch.delenv("MNEMO_EMBEDDER_DIM")
    with pytest.raises(SchemaError, match="Nothing was copied"):
        migrate(src, pg_url, searches=5, embedder=None)  # the default embedder: not hashing
    assert pg_tables(pg_url) == 0  # not even mnemo's (empty) tables: the target as it was
    out = CliRunner().invoke(app, ["migrate", src, dst, "--searches", "3"])
    assert out.exit_code == 2 and "--searches 0" in out.output and not Path(dst).exists()
    report = migrate(src, dst, searches=3, embedder="hashing")  # the right one: it works
    assert report.lossless and report.copied["messages"] == 40


def test_a_missing_source_is_not_created(tmp_path: Path) -> None:
    src, dst = tmp_path / "typo.db", tmp_path / "new.db"
    with pytest.raises(ValidationError, match="no mnemo store at"):
        migrate(str(src), str(dst), searches=0)
    assert not src.exists() and not dst.exists()


def test_a_non_empty_target_is_refused_and_kept(tmp_path: Path) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "full.db")
    seed(src)
    seed(dst, turns=3)
    with pytest.raises(ValidationError, match="not empty"):
        migrate(src, dst, searches=3, embedder="hashing")
    with Memory(dst, embedder="hashing", **QUIET) as mem:
        assert mem.stats().messages == 3  # untouched


def test_a_failed_copy_deletes_the_target_file_it_created(tmp_path: Path) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "new.db")
    seed(src)
    with sqlite3.connect(src) as c:  # a row the target's CHECK constraint refuses
        c.execute("PRAGMA ignore_check_constraints = 1")
        c.execute("UPDATE history SET event = 'BOGUS'")
    with pytest.raises(StorageError, match="CHECK constraint"):
        migrate(src, dst, searches=0)
    assert not any(tmp_path.glob("new.db*"))


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_ctrl_c_after_the_copy_leaves_the_target_as_it_was(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A real ``mnemo migrate`` gets SIGINT once every row is in the target, while it checks
    and compares searches: the target ends as it began."""
    src = str(tmp_path / "src.db")
    n = 3000
    seed(src, turns=n)
    dst = str(tmp_path / "new.db") if kind == "sqlite" else request.getfixturevalue("pg_url")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "mnemo", "migrate", src, dst, "--embedder", "hashing"]
    proc = subprocess.Popen(
        [*cmd, "--searches", str(n)], env=env, stderr=subprocess.PIPE, preexec_fn=sigint_default
    )
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if _copied(kind, dst) >= n:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the migration ended before it could be interrupted"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0, stderr
    if kind == "sqlite":
        assert not any(tmp_path.glob("new.db*")), stderr
    else:
        assert pg_rows(dst) == 0


def _copied(kind: str, dst: str) -> int:
    """Committed turns in the target (0 until the copy's one transaction commits)."""
    if kind == "sqlite":
        if not Path(dst).exists():
            return 0
        try:
            with sqlite3.connect(f"file:{dst}?mode=ro", uri=True, timeout=1) as c:
                return int(c.execute("SELECT count(*) FROM messages").fetchone()[0])
        except sqlite3.OperationalError:
            return 0
    import psycopg

    with psycopg.connect(dst) as c:
        try:
            row = c.execute("SELECT count(*) FROM messages").fetchone()
        except psycopg.errors.UndefinedTable:
            return 0
        return int(row[0]) if row else 0
