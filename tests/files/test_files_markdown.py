"""Markdown export / import: the file-store layout as an exchange format (round trip)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app
from mnemo.errors import ValidationError
from mnemo.files.markdown import export_markdown, import_markdown

NOW = "2026-06-01T00:00:00Z"
QUERIES = ("cat", "where does she live", "tea or coffee", "chess club", "violin lessons")
LONG = (
    " ".join(  # a long user turn: indexed with extra keys (see retrieval.keys)
        f"Week {i} was busy with work, errands and far too many meetings again." for i in range(8)
    )
    + " On Sundays I now take violin lessons with my neighbour."
)


def fill(mem: Memory) -> None:
    mem.add_messages(
        [
            {"role": "user", "content": "I adopted a cat named Tom", "name": "Ann"},
            {"role": "assistant", "content": "Tom is a lovely name"},
            {"role": "user", "content": "I moved to Lyon last spring"},
        ],
        user_id="u1",
        session_id="s1",
    )
    mem.add_messages([{"role": "user", "content": "I play chess at the club"}], user_id="u2")
    mem.add_messages([{"role": "user", "content": LONG}], user_id="u1", session_id="s2")  # keys
    mem.add("Ann lives in Lyon", "u1", session_id="s1", tags=["place"], importance=0.9)
    mem.add("Ann prefers tea over coffee", "u1", metadata={"source": "chat"})
    mem.add("Session about pets and moving", "u1", session_id="s1", kind="summary")
    gone = mem.add("Ann owns a bike", "u1")
    mem.delete(gone.id)
    mem.add("Bob plays chess", "u2")


def results(mem: Memory, user: str) -> list[list[tuple[str, str, float]]]:
    return [
        [(h.id, h.content, round(h.score, 6)) for h in mem.search(q, user_id=user, now=NOW)]
        for q in QUERIES
    ]


def test_round_trip_gives_identical_search(tmp_path: Path) -> None:
    with Memory(str(tmp_path / "a.db"), embedder="hashing") as src:
        fill(src)
        counts = export_markdown(src.store, src.tenant, tmp_path / "md")
        before = {u: results(src, u) for u in ("u1", "u2")}
        listed = [(m.id, m.tags, m.importance, m.metadata) for m in src.list("u1")]
        turns = [(m.id, m.seq, m.name, m.created_at) for m in src.messages("u1")]
    assert counts == {"turns": 5, "memories": 4, "deleted": 1}
    with Memory(str(tmp_path / "b.db"), embedder="hashing") as dst:
        assert import_markdown(dst.store, dst.embedding, dst.settings, tmp_path / "md") == {
            "turns": 5,
            "memories": 4,
            "deleted": 1,
        }
        assert {u: results(dst, u) for u in ("u1", "u2")} == before
        assert [(m.id, m.tags, m.importance, m.metadata) for m in dst.list("u1")] == listed
        assert [(m.id, m.seq, m.name, m.created_at) for m in dst.messages("u1")] == turns
        assert len(dst.list("u1", include_deleted=True)) == len(listed) + 1
        with Memory(str(tmp_path / "a.db"), embedder="hashing") as again_src:
            want = again_src.stats().model_dump(exclude={"path", "jobs"})
        assert dst.stats().model_dump(exclude={"path", "jobs"}) == want  # no follow-up jobs
        again = import_markdown(
            dst.store, dst.embedding, dst.settings, tmp_path / "md"
        )  # re-run: every id is known
        assert again == {"turns": 0, "memories": 0, "deleted": 0}


def test_per_user_export_and_cli(tmp_path: Path) -> None:
    db, out = str(tmp_path / "a.db"), tmp_path / "u2"
    with Memory(db, embedder="hashing") as src:
        fill(src)
    r = CliRunner().invoke(
        app, ["export", str(out), "--format", "markdown", "--user", "u2", "--db", db,
              "--embedder", "hashing"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert {p.name for p in (out / "entries").iterdir()} == {"u2"}
    dst = str(tmp_path / "b.db")
    r = CliRunner().invoke(
        app, ["import", str(out), "--format", "markdown", "--db", dst, "--embedder", "hashing"]
    )
    assert r.exit_code == 0, r.output
    assert "1 turns, 1 memories" in " ".join(r.output.split())
    with Memory(dst, embedder="hashing") as mem:
        assert [m.content for m in mem.list("u2")] == ["Bob plays chess"]
        assert mem.list("u1") == []


def test_import_rejects_a_folder_without_entries(tmp_path: Path) -> None:
    with Memory(str(tmp_path / "b.db"), embedder="hashing") as mem:
        with pytest.raises(ValidationError):
            import_markdown(mem.store, mem.embedding, mem.settings, tmp_path)
        bad = tmp_path / "entries/u1/_global/facts"
        bad.mkdir(parents=True)
        (bad / "x.md").write_text("no front matter")
        with pytest.raises(ValidationError):
            import_markdown(mem.store, mem.embedding, mem.settings, tmp_path)
        assert mem.stats().memories == {} and mem.stats().messages == 0  # nothing written
