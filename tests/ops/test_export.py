"""``mnemo export`` / ``mnemo import --format mnemo``: lossless JSONL round trips on real stores."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory, ValidationError
from mnemo.cli.main import app
from mnemo.ops.export import export_store, is_export
from mnemo.ops.migrate import verify
from mnemo.ops.restore import import_store
from mnemo.storage.base import NewJob
from mnemo.storage.sqlite.store import SQLiteStore

QUIET: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}
WORDS = ["cat", "dog", "river", "mountain", "pizza", "guitar", "piano", "summer", "lake", "trip"]
QUERIES = ["cat river", "pizza guitar", "summer lake trip", "loves dog", "peanuts allergy"]


def seed(path: str) -> None:
    """A SQLite store with turns, memories (updated, deleted), tags, history, a job, a
    document, a topic and an API key, for two users."""
    with Memory(path, embedder="hashing", **QUIET) as mem:
        for u in range(2):
            turns = [
                {
                    "role": ("user", "assistant")[i % 2],
                    "content": " ".join(WORDS[(u + i + k) % len(WORDS)] for k in range(5)),
                    "created_at": f"2024-01-1{i % 9}T10:00:00",
                    "metadata": {"ü": [1, 2.5], "n": 0.1 + 0.2},
                }
                for i in range(10)
            ]
            mem.add_messages(turns, user_id=f"u{u}", session_id="s0")
            item = mem.add(f"likes {WORDS[u]}", user_id=f"u{u}", tags=["pref", "x"])
            mem.update(item.id, content=f"loves {WORDS[u]}", tags=["pref"])
            mem.add(f"deleted {WORDS[u]}", user_id=f"u{u}", tags=[f"t{u}"])
        mem.delete(mem.list(user_id="u1", tag="t1")[0].id)
        mem.store.jobs.enqueue([NewJob(kind="turns.facts", payload={"n": 1}, user_id="u0")])
        mem.attach_document("Ann's allergies: peanuts. Her cat is Miso.", "u0", title="notes")
        mem.attach_document("Bob plays the piano.", "u1", title="bob")
        mem.add_user_message("u1", "planning a hiking trip to the Alps in June", "s0")
        mem.store.api_keys.add("key_1", "default", "ci", "f" * 64)  # type: ignore[attr-defined]


NOW = datetime(2030, 1, 1, tzinfo=UTC)  # one clock for both searches: recency is in the score


def results(path: str, user: str, **settings: float) -> list[list[tuple[str, float]]]:
    """Ids and scores of every query in QUERIES for ``user``."""
    with Memory(path, embedder="hashing", **QUIET, **settings) as mem:
        return [
            [(h.id, round(h.score, 9)) for h in mem.search(q, user_id=user, limit=10, now=NOW)]
            for q in QUERIES
        ]


def export_text(path: str, user: tuple[str, str] | None = None) -> str:
    out = io.StringIO()
    export_store(path, out, user)
    return out.getvalue()


def test_round_trip_is_lossless_and_searches_agree(tmp_path: Path) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "dst.db")
    seed(src)
    text = export_text(src)
    header = json.loads(text.splitlines()[0])
    assert header["mnemo_export"] == 1 and "meta" not in header["tables"]
    report = import_store(dst, io.StringIO(text))
    assert report.rows["messages"] == 21 and "api_keys" not in report.rows
    assert report.ignored == {"api_keys": 1}  # API keys are never imported
    assert report.rows["memory_tags"] >= 3 and report.rows["document_chunks"] >= 2
    a, b = SQLiteStore(src), SQLiteStore(dst)
    try:
        checks = verify(a.table_rows, b.table_rows)
    finally:
        a.close()
        b.close()
    assert {c.table for c in checks} >= {"messages", "memories", "topics", "history", "jobs"}
    differ = [c for c in checks if not c.same]
    assert [c.table for c in differ] == ["api_keys"], differ
    for user in ("u0", "u1"):
        before = results(src, user)
        assert any(before)
        assert results(dst, user) == before
    without_keys = [line for line in text.splitlines() if '"table": "api_keys"' not in line]
    assert export_text(dst).splitlines() == without_keys  # exporting the copy: the same file


def test_per_user_export_holds_only_that_users_rows(tmp_path: Path) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "dst.db")
    seed(src)
    text = export_text(src, ("default", "u0"))
    rows = [json.loads(line) for line in text.splitlines()[1:]]
    tables = {r["table"] for r in rows}
    assert "api_keys" not in tables and {"messages", "memories", "documents"} <= tables
    assert all(r["row"]["user_id"] == "u0" for r in rows if "user_id" in r["row"])
    import_store(dst, io.StringIO(text))
    with Memory(dst, embedder="hashing", **QUIET) as mem:
        assert mem.list(user_id="u1") == []
        assert [d.title for d in mem.documents("u0")] == ["notes"]
        tagged = {m.content for m in mem.list(user_id="u0", tag="pref")}
        assert tagged == {"loves cat"}
    # BM25 statistics are store-wide, so only the dense scores carry over unchanged
    assert results(dst, "u0", lexical_weight=0.0) == results(src, "u0", lexical_weight=0.0)


def test_a_bad_line_changes_nothing(tmp_path: Path) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "dst.db")
    seed(src)
    text = export_text(src)
    broken = text.splitlines()
    broken.insert(5, "{not json")
    with pytest.raises(ValidationError, match="line 6"):
        import_store(dst, io.StringIO("\n".join(broken)))
    with pytest.raises(ValidationError, match="not a mnemo export"):
        import_store(dst, io.StringIO('{"role": "user", "content": "hi"}\n'))
    with Memory(dst, embedder="hashing", **QUIET) as mem:
        assert mem.stats().messages == 0  # the failed import rolled back


def test_cli_export_and_import_detects_the_header(tmp_path: Path) -> None:
    src, dst = str(tmp_path / "src.db"), str(tmp_path / "dst.db")
    seed(src)
    out = tmp_path / "dump.jsonl"
    r = CliRunner().invoke(app, ["export", str(out), "--db", src])
    assert r.exit_code == 0, r.output
    assert is_export(out)
    r = CliRunner().invoke(app, ["import", str(out), "--db", dst])
    assert r.exit_code == 0, r.output
    assert "imported" in r.output
    assert results(dst, "u0") == results(src, "u0")
    mine = tmp_path / "u1.jsonl"
    r = CliRunner().invoke(app, ["export", str(mine), "--db", src, "--user", "u1"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["import", str(mine), "--db", dst, "--format", "mnemo"])
    assert r.exit_code == 0 and "imported 0 rows" in r.output  # all of it was there already


def test_sqlite_export_imports_into_postgres(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "src.db")
    seed(src)
    text = export_text(src)
    import_store(pg_url, io.StringIO(text))
    expected = rows_by_table(text)
    del expected["api_keys"]  # never imported
    assert rows_by_table(export_text(pg_url)) == expected  # vectors and all


def rows_by_table(text: str) -> dict[str, list[str]]:
    """The rows of an export per table, canonical and sorted (column order may differ)."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines()[1:]:
        record = json.loads(line)
        out.setdefault(record["table"], []).append(json.dumps(record["row"], sort_keys=True))
    return {t: sorted(rows) for t, rows in out.items()}
