"""`agent-cli`'s file store: mirror, snapshot, startup reconcile (real files in tmp dirs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemo import Memory
from mnemo.errors import ValidationError
from mnemo.files import layout


def open_mem(tmp_path: Path, **kw: object) -> Memory:
    return Memory(
        str(tmp_path / "db.sqlite"), embedder="hashing", files_dir=str(tmp_path / "files"), **kw
    )


def md_files(root: Path, under: str = "entries") -> list[Path]:
    return sorted(p for p in (root / under).rglob("*.md"))


def file_of(root: Path, id: str, under: str = "entries") -> Path:
    found = [p for p in md_files(root, under) if p.name.endswith(f"__{id}.md")]
    assert len(found) == 1, f"{id} has {len(found)} files under {under}"
    return found[0]


def test_layout_of_turns_facts_summaries(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        ids = mem.add_messages(
            [
                {"role": "user", "content": "I adopted a cat"},
                {"role": "assistant", "content": "Nice"},
            ],
            user_id="u1",
            session_id="s1",
        )
        fact = mem.add("User has a cat", "u1", session_id="s1", tags=["pets"])
        summary = mem.add("They talked about cats", "u1", session_id="s1", kind="summary")
        glob = mem.add("Lives in Paris", "u1")
    user_turn = file_of(root, ids[0])
    assert user_turn.parent == root / "entries/u1/s1/turns/user"
    assert file_of(root, ids[1]).parent == root / "entries/u1/s1/turns/assistant"
    assert file_of(root, fact.id).parent == root / "entries/u1/s1/facts"
    assert file_of(root, summary.id).parent == root / "entries/u1/s1/summaries"
    assert file_of(root, glob.id).parent == root / "entries/u1/_global/facts"
    entry = layout.parse(file_of(root, fact.id).read_text())
    assert (entry.id, entry.user_id, entry.session_id, entry.kind) == (fact.id, "u1", "s1", "fact")
    assert entry.body == "User has a cat" and entry.front["tags"] == ["pets"]
    assert layout.parse(user_turn.read_text()).role == "user"
    index = json.loads((root / ".mnemo-index.json").read_text())["files"]
    assert len(index) == 5 and all(v["sha256"] for v in index.values())


def test_api_update_rewrites_and_delete_moves_to_deleted(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        item = mem.add("User likes tea", "u1")
        mem.update(item.id, content="User likes coffee", tags=["drinks"])
        assert layout.parse(file_of(root, item.id).read_text()).body == "User likes coffee"
        mem.delete(item.id)
    assert not [p for p in md_files(root) if item.id in p.name]
    gone = file_of(root, item.id, under="deleted")
    assert gone.relative_to(root).parts[:3] == ("deleted", "u1", "_global")
    assert layout.parse(gone.read_text()).body == "User likes coffee"


def test_unsafe_ids_stay_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        item = mem.add("fact", "../../etc", session_id="a/b")
    path = file_of(root, item.id).resolve()
    assert path.is_relative_to(root.resolve() / "entries")
    assert layout.parse(path.read_text()).user_id == "../../etc"


def test_front_matter_round_trip_and_errors() -> None:
    entry = layout.Entry("mem_x", "u", None, "fact", "line one\n\nline: two ---", "memory",
                         "2026-01-02T03:04:05.000000Z", {"tags": ["a"]})  # fmt: skip
    back = layout.parse(layout.render(entry))
    assert (back.body, back.created_at, back.front["tags"]) == (entry.body, entry.created_at, ["a"])
    with pytest.raises(ValidationError):
        layout.parse("no front matter")
    with pytest.raises(ValidationError):
        layout.parse("---\nid: [unclosed\n---\nbody\n")
    with pytest.raises(ValidationError):
        layout.parse("---\nid: x\nbody without a closing fence\n")


def test_offline_edit_and_delete_are_applied_at_startup(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        edited = mem.add("User likes tea", "u1", tags=["drinks"])
        removed = mem.add("User owns a bike", "u1")
        kept = mem.add("User lives in Paris", "u1")
    path = file_of(root, edited.id)
    path.write_text(path.read_text().replace("User likes tea", "User likes green tea"))
    file_of(root, removed.id).unlink()
    (root / "entries/u1/_global/facts/mine.md").write_text(
        "---\nuser_id: u1\ntags: [hand]\n---\nUser plays chess\n"
    )
    with open_mem(tmp_path) as mem:
        assert mem.get(edited.id).content == "User likes green tea"  # type: ignore[union-attr]
        assert mem.history(edited.id)[-1].actor == "file"
        assert mem.list("u1", include_deleted=True)[0].id  # listing works
        assert [h.event for h in mem.history(removed.id)][-1] == "DELETE"
        assert mem.history(removed.id)[-1].actor == "file"
        assert mem.get(kept.id).content == "User lives in Paris"  # type: ignore[union-attr]
        chess = [m for m in mem.list("u1") if m.content == "User plays chess"]
        assert len(chess) == 1 and chess[0].tags == ["hand"]
        assert mem.history(chess[0].id)[0].actor == "file"
        assert mem.search("green tea", user_id="u1")[0].id == edited.id
        assert not (root / "entries/u1/_global/facts/mine.md").exists()
    file_of(root, chess[0].id)  # the hand-made file now has its canonical name and id
    file_of(root, removed.id, under="deleted")


def test_rows_without_files_get_one_and_stale_files_are_rewritten(tmp_path: Path) -> None:
    db = str(tmp_path / "db.sqlite")
    root = tmp_path / "files"
    with Memory(db, embedder="hashing") as plain:  # written while the file store was off
        ids = plain.add_messages([{"role": "user", "content": "hello"}], user_id="u1")
        item = plain.add("User likes tea", "u1")
    with open_mem(tmp_path) as mem:
        file_of(root, ids[0])
        file_of(root, item.id)
        mem.close()
    with Memory(db, embedder="hashing") as plain:  # the store changes, the file store is off
        plain.update(item.id, content="User likes coffee")
    with open_mem(tmp_path) as mem:
        assert layout.parse(file_of(root, item.id).read_text()).body == "User likes coffee"
        assert mem.get(item.id).content == "User likes coffee"  # type: ignore[union-attr]
        assert mem.reconcile_files() == {}  # in step: nothing to do


def test_turn_edits_are_undone(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        (mid,) = mem.add_messages([{"role": "user", "content": "I adopted a cat"}], user_id="u1")
    path = file_of(root, mid)
    path.write_text(path.read_text().replace("a cat", "a dog"))
    with open_mem(tmp_path) as mem:
        assert mem.get(mid).content == "I adopted a cat"
    assert "event log" in caplog.text
    assert layout.parse(path.read_text()).body == "I adopted a cat"


def test_bad_file_is_reported_and_left(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        mem.add("User likes tea", "u1")
    bad = root / "entries/u1/_global/facts/bad.md"
    bad.write_text("just text, no front matter\n")
    with open_mem(tmp_path) as mem:
        assert len(mem.list("u1")) == 1
        assert mem.reconcile_files() == {"invalid": 1}
    assert bad.exists() and "bad.md ignored" in caplog.text


def test_binary_and_emptied_files_do_not_block_startup(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        item = mem.add("User likes tea", "u1")
    (root / "entries/u1/_global/facts/blob.md").write_bytes(b"\xff\xfe\x00binary")
    path = file_of(root, item.id)
    path.write_text(path.read_text().replace("User likes tea", "   "))
    with open_mem(tmp_path) as mem:
        assert mem.get(item.id).content == "User likes tea"  # type: ignore[union-attr]
        assert mem.reconcile_files() == {"invalid": 2}


def test_file_error_does_not_lose_the_db_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        blocker = root / "entries/u2"
        blocker.parent.mkdir(parents=True, exist_ok=True)
        blocker.write_text("a file where u2's folder goes: every write below it fails")
        item = mem.add("second", "u2")
        assert mem.get(item.id).content == "second"  # type: ignore[union-attr]
        assert "could not mirror" in caplog.text
        blocker.unlink()
    with open_mem(tmp_path):
        file_of(root, item.id)  # the startup reconcile wrote it


def test_delete_user_erases_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "files"
    with open_mem(tmp_path) as mem:
        mem.add_messages([{"role": "user", "content": "hi"}], user_id="u1")
        item = mem.add("fact", "u1")
        mem.delete(item.id)
        mem.add("other", "u2")
        mem.delete_user("u1")
    assert not (root / "entries/u1").exists() and not (root / "deleted/u1").exists()
    assert len(md_files(root)) == 1


def test_tenant_has_its_own_root(tmp_path: Path) -> None:
    with open_mem(tmp_path, tenant="acme") as mem:
        item = mem.add("fact", "u1")
    file_of(tmp_path / "files/tenants/acme", item.id)


def test_the_rolling_summary_is_summaries_summary_md(tmp_path: Path) -> None:
    mem = open_mem(tmp_path, preset="agent-cli", fact_extraction="off")
    turns = [
        {"role": "user", "content": "I am planning a trip to Kyoto in April."},
        {"role": "assistant", "content": "April is cherry blossom season in Kyoto."},
    ]
    mem.add_messages(turns, "u1", "s1")
    mem.drain()
    mem.add_messages([{"role": "user", "content": "I also want to visit Nara."}], "u1", "s1")
    mem.drain()
    path = tmp_path / "files" / "entries" / "u1" / "s1" / "summaries" / "summary.md"
    entry = layout.parse(path.read_text(encoding="utf-8"))
    assert entry.kind == "summary" and entry.front["summary_kind"] == "rolling"
    assert "Nara" in entry.body  # rewritten in place as the conversation goes on
    assert len(list(path.parent.glob("*.md"))) == 1
    mem.close()
