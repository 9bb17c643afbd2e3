"""The file store and agent scope: files hold the shared rows only (a file has no agent
scope, so a private row in it would read as shared); private rows and agents' own memories
stay in the database, and the startup reconcile neither writes nor deletes them."""

from __future__ import annotations

from pathlib import Path

from mnemo import Memory


def open_mem(tmp_path: Path) -> Memory:
    files = str(tmp_path / "files")
    return Memory(str(tmp_path / "db.sqlite"), embedder="hashing", files_dir=files)


def file_texts(root: Path) -> str:
    return "\n".join(p.read_text() for p in sorted(root.rglob("*.md")))


def test_only_shared_rows_have_files(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        shared = mem.add("shared Heron fact", "u1")
        private = mem.add("alpha private Falcon", "u1", agent_id="alpha")
        own = mem.add("alpha own tool note", agent_id="alpha")
        mem.add_messages([{"role": "user", "content": "beta turn Osprey"}], "u1", agent_id="beta")
        mem.add_messages([{"role": "user", "content": "shared turn Kite"}], "u1")
        text = file_texts(root)
        assert "Heron" in text and "Kite" in text
        assert not any(w in text for w in ("Falcon", "tool note", "Osprey"))
    with open_mem(tmp_path) as mem:  # the startup reconcile runs on open
        counts = mem.reconcile_files()
        assert not any(n for k, n in counts.items() if k != "unchanged")
        assert {m.id for m in mem.list()} == {shared.id, private.id, own.id}
        assert mem.get(private.id).deleted_at is None
        assert "Falcon" not in file_texts(root)
        mem.delete_agent("alpha")
        assert {m.id for m in mem.list()} == {shared.id}
        assert "Heron" in file_texts(root)
