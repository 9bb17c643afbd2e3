"""Importing a hostile `mnemo export` file: every row is checked before anything is written,
API keys are never imported, and a rejected file leaves the target exactly as it was, on both
stores."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from mnemo import Memory, Settings, ValidationError
from mnemo.api.auth import hash_key
from mnemo.cli.main import app
from mnemo.ops.export import export_store
from mnemo.ops.restore import import_store
from mnemo.storage import open_store

QUIET: dict[str, Any] = {
    "fact_extraction": "off",
    "profile_enabled": False,
    "episodes_enabled": False,
}
ATTACKER_KEY = "mnemo_0123456789ab_the-author-of-the-file-knows-this"


@pytest.fixture
def location(target: dict[str, str]) -> str:
    """The victim store (SQLite file or PostgreSQL URL), holding one user's data."""
    where = target.get("path") or target["url"]
    with Memory(**target, embedder="hashing", **QUIET) as mem:
        mem.add_messages([{"role": "user", "content": "victim turn about tea"}], "victim")
        mem.add("victim likes tea", user_id="victim")
    return where


def export_text(location: str, user: tuple[str, str] | None = None) -> str:
    out = io.StringIO()
    export_store(location, out, user)
    return out.getvalue()


def attacker_file(tmp_path: Path) -> list[dict[str, Any]]:
    """A genuine whole-store export of another store (as parsed lines), with an API key."""
    src = str(tmp_path / "attacker.db")
    with Memory(src, embedder="hashing", **QUIET) as mem:
        mem.add_messages(
            [{"role": "user", "content": f"attacker turn {i}"} for i in range(3)], "mallory"
        )
        mem.add("mallory fact", user_id="mallory", metadata={"k": "v"})
        mem.store.api_keys.add("k1", "default", "evil", hash_key(ATTACKER_KEY))  # type: ignore[attr-defined]
    return [json.loads(line) for line in export_text(src).splitlines()]


def as_text(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(x) + "\n" for x in lines)


def first(lines: list[dict[str, Any]], table: str) -> dict[str, Any]:
    """The row of the first line of ``table`` (to tamper with in place)."""
    return next(x["row"] for x in lines if x.get("table") == table)


def line_of(lines: list[dict[str, Any]], table: str) -> int:
    """The 1-based line number of the first row of ``table``."""
    return next(i for i, x in enumerate(lines, start=1) if x.get("table") == table)


def b64(data: bytes) -> dict[str, str]:
    return {"$bytes": base64.b64encode(data).decode("ascii")}


def test_api_keys_are_never_imported(location: str, tmp_path: Path) -> None:
    report = import_store(location, io.StringIO(as_text(attacker_file(tmp_path))))
    assert report.ignored == {"api_keys": 1} and report.rows["messages"] == 3
    settings = Settings(**({"database_url": location} if "://" in location else {"path": location}))
    store = open_store(settings)
    try:
        assert store.api_keys.tenant_of(hash_key(ATTACKER_KEY)) is None  # type: ignore[attr-defined]
        assert not store.api_keys.any_live()  # type: ignore[attr-defined]
    finally:
        store.close()


#: name -> (how to tamper with the parsed lines, the table whose first line is named, what the
#: error says)
Tamper = Callable[[list[dict[str, Any]]], None]
HOSTILE: dict[str, tuple[Tamper, str, str]] = {
    "5-byte embedding": (
        lambda ls: first(ls, "messages").update(embedding=b64(b"\x00" * 5)),
        "messages",
        "5 bytes, not whole float32 vectors",
    ),
    "wrong dimension": (
        lambda ls: first(ls, "memories").update(embedding=b64(np.ones(7, np.float32).tobytes())),
        "memories",
        "has 7 dimensions",
    ),
    "NaN in a vector": (
        lambda ls: first(ls, "messages").update(
            embedding=b64(np.full(384, np.nan, np.float32).tobytes())
        ),
        "messages",
        "NaN",
    ),
    "bad base64": (
        lambda ls: first(ls, "messages").update(embedding={"$bytes": "!!not base64!!"}),
        "messages",
        "not valid base64",
    ),
    "over max_content_chars": (
        lambda ls: first(ls, "memories").update(content="x" * 1001),
        "memories",
        "max_content_chars",
    ),
    "lone surrogate in content": (
        lambda ls: first(ls, "messages").update(content="hi \ud800"),
        "messages",
        "lone surrogate",
    ),
    "lone surrogate in metadata": (
        lambda ls: first(ls, "memories").update(metadata='{"k": "\\udc00"}'),
        "memories",
        "lone surrogate",
    ),
    "metadata not JSON": (
        lambda ls: first(ls, "memories").update(metadata="{nope"),
        "memories",
        "not valid JSON",
    ),
    "NUL in a user id": (
        lambda ls: first(ls, "messages").update(user_id="mal\x00lory"),
        "messages",
        "NUL",
    ),
    "text where a number goes": (
        lambda ls: first(ls, "memories").update(importance="high"),
        "memories",
        "importance must be",
    ),
    "a time not in storage form": (
        lambda ls: first(ls, "messages").update(created_at="yesterday"),
        "messages",
        "not a stored time",
    ),
    "a tag of no memory of the file": (
        lambda ls: first(ls, "memory_tags").update(memory_rowid=999),
        "memory_tags",
        "names no memories row",
    ),
}


def test_a_hostile_row_is_rejected_and_nothing_is_written(location: str, tmp_path: Path) -> None:
    before = export_text(location)
    genuine = attacker_file(tmp_path)
    limits = Settings(max_content_chars=1000)
    for name, (tamper, table, message) in HOSTILE.items():
        lines = json.loads(json.dumps(genuine))
        if table == "memory_tags":  # the file's memory has no tags: give it one, after it
            tag = {"table": "memory_tags", "row": {"memory_rowid": 1, "tag": "t"}}
            lines.insert(line_of(lines, "history") - 1, tag)
        tamper(lines)
        expected = f"line {line_of(lines, table)}: {table}"
        with pytest.raises(ValidationError) as caught:
            import_store(location, io.StringIO(as_text(lines)), settings=limits)
        assert expected in str(caught.value) and message in str(caught.value), (name, caught)
        assert export_text(location) == before, name


def test_a_per_user_export_holds_only_its_user(location: str, tmp_path: Path) -> None:
    before = export_text(location)
    src = str(tmp_path / "one.db")
    with Memory(src, embedder="hashing", **QUIET) as mem:
        mem.add("mine", user_id="alice")
    lines = [json.loads(x) for x in export_text(src, ("default", "alice")).splitlines()]
    first(lines, "memories")["user_id"] = "victim"  # smuggle a row into another user
    with pytest.raises(ValidationError, match="another user in a per-user export"):
        import_store(location, io.StringIO(as_text(lines)))
    assert export_text(location) == before


def test_cli_hostile_file_is_one_line_and_api_keys_are_warned_about(
    tmp_path: Path, db_path: str
) -> None:
    runner = CliRunner()
    lines = attacker_file(tmp_path)
    good = tmp_path / "good.jsonl"
    good.write_text(as_text(lines))
    out = runner.invoke(app, ["import", str(good), "--db", db_path])
    assert out.exit_code == 0, out.output
    assert "skipped 1 api_keys row(s): API keys are never imported" in out.output
    first(lines, "messages")["embedding"] = b64(b"12345")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(as_text(lines))
    out = runner.invoke(app, ["import", str(bad), "--db", str(tmp_path / "fresh.db")])
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert f"line {line_of(lines, 'messages')}: messages.embedding" in out.output
