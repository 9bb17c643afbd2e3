"""What mnemo creates on disk is private to its user: the SQLite file (and its WAL and shared
memory files) 0600 in a 0700 folder, the Markdown file store 0700 folders and 0600 files.
Files and folders that already exist keep their modes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mnemo import Memory
from mnemo.errors import StorageError


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def open_umask() -> object:
    old = os.umask(0o022)  # the common default, which made 0644 files
    yield
    os.umask(old)


def test_the_database_and_its_folder_are_private(tmp_path: Path) -> None:
    db = tmp_path / "new" / "m.db"
    with Memory(str(db), embedder="hashing") as mem:
        mem.add_messages([{"role": "user", "content": "hello"}], "u1")
        made = [p for p in db.parent.iterdir() if p.name.startswith("m.db")]
        assert {p.name for p in made} >= {"m.db", "m.db-wal", "m.db-shm"}
        for path in made:
            assert mode(path) == 0o600, path
    assert mode(db.parent) == 0o700


def test_an_existing_database_keeps_its_mode(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(str(db), embedder="hashing"):
        pass
    db.chmod(0o640)
    with Memory(str(db), embedder="hashing"):
        pass
    assert mode(db) == 0o640


def test_the_file_store_is_private(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with Memory(str(tmp_path / "m.db"), embedder="hashing", files_dir=str(root)) as mem:
        mem.add_messages([{"role": "user", "content": "hello"}], "u1", "s1")
        mem.add("User likes tea", "u1")
    files = [p for p in root.rglob("*") if p.is_file()]
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    assert files and all(mode(p) == 0o600 for p in files), [(p, oct(mode(p))) for p in files]
    assert all(mode(p) == 0o700 for p in folders), [(p, oct(mode(p))) for p in folders]


def test_an_uncreatable_database_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match="cannot create"):
        Memory(str(blocker / "m.db"), embedder="hashing")


def test_a_jsonl_export_is_private_and_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    """``mnemo export`` writes every tenant's rows: a file it creates is 0600, like the store
    it came from (a file that was there keeps its mode)."""
    from typer.testing import CliRunner

    from mnemo.cli.main import app

    db = tmp_path / "m.db"
    with Memory(str(db), embedder="hashing") as mem:
        mem.add("User likes tea", "u1")
    env = {"MNEMO_EMBEDDER": "hashing"}
    dump = tmp_path / "dump.jsonl"
    out = CliRunner().invoke(app, ["export", str(dump), "--db", str(db)], env=env)
    assert out.exit_code == 0, out.output
    assert mode(dump) == 0o600 and "likes tea" in dump.read_text()
    mine = tmp_path / "mine.jsonl"
    mine.write_text("old")
    mine.chmod(0o640)
    out = CliRunner().invoke(app, ["export", str(mine), "--db", str(db), "-u", "u1"], env=env)
    assert out.exit_code == 0, out.output
    assert mode(mine) == 0o640 and "likes tea" in mine.read_text()
