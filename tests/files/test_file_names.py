"""File names of the Markdown store stay within the file system's limits (255 bytes a name),
whatever the user, session or tenant id; a row whose file cannot be written never stops the
store from opening (the server starts, the error is logged)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mnemo import Memory
from mnemo.files import layout

NAME_MAX = 255
LONG_USER = "é" * 200  # 200 characters (within the id limit), 1,200 bytes percent-encoded
LONG_SESSION = "セッション" * 50


def open_mem(tmp_path: Path, **kw: object) -> Memory:
    return Memory(
        str(tmp_path / "db.sqlite"), embedder="hashing", files_dir=str(tmp_path / "files"), **kw
    )


def test_long_non_ascii_ids_get_short_unique_folder_names(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        ids = mem.add_messages([{"role": "user", "content": "hello"}], LONG_USER, LONG_SESSION)
        other = mem.add_messages([{"role": "user", "content": "hi"}], LONG_USER[:-1] + "è", "s")
        fact = mem.add("User likes tea", LONG_USER, session_id=LONG_SESSION)
    files = sorted((root / "entries").rglob("*.md"))
    assert len(files) == 3
    for path in files:
        assert all(len(part.encode()) <= NAME_MAX for part in path.relative_to(root).parts)
    by_id = {layout.parse(p.read_text()).id: p for p in files}
    assert by_id[ids[0]].parts[-5] != by_id[other[0]].parts[-5], "two users share a folder"
    entry = layout.parse(by_id[fact.id].read_text())
    assert (entry.user_id, entry.session_id) == (LONG_USER, LONG_SESSION)
    with open_mem(tmp_path) as again:  # the store opens again and finds every file in step
        assert [m.id for m in again.messages(LONG_USER, session_id=LONG_SESSION)] == ids
    assert sorted((root / "entries").rglob("*.md")) == files


def test_segment_of_a_short_id_is_unchanged_and_never_looks_shortened() -> None:
    assert layout.segment("u1") == "u1"
    assert layout.segment("a~b") == "a%7Eb"
    long = layout.segment("x" * 256)
    assert len(long) <= layout.MAX_SEGMENT_BYTES and "~" in long
    assert layout.segment("x" * 255 + "y") != long


def test_a_row_whose_file_cannot_be_written_does_not_stop_opening(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        ids = mem.add_messages([{"role": "user", "content": "hello"}], "u1", "s1")
        mem.add_messages([{"role": "user", "content": "again"}], "u2", "s1")
    (turn,) = [p for p in (root / "entries").rglob("*.md") if ids[0] in p.name]
    turn.unlink()
    turn.mkdir()  # a folder where the file belongs: writing it fails with an OSError
    (root / "entries/u2").rename(root / "u2-elsewhere")
    with caplog.at_level(logging.ERROR), open_mem(tmp_path) as again:
        assert again.get(ids[0]).content == "hello"
    assert "could not mirror" in caplog.text
    assert len(list((root / "entries/u2").rglob("*.md"))) == 1  # the other rows were written
