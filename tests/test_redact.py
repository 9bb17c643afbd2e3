"""Credentials never leave in logs, stored notes, job errors, HTTP error bodies or CLI output.

The LLM base URL carries a password and points at a port nothing listens on, so every call
fails and its error text (which names the URL) flows to each place a message can go.
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app as cli_app
from mnemo.redact import mask_credentials

SECRET = "hunter2-s3cret"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("postgresql://app:pw@db:5432/m", "postgresql://app:***@db:5432/m"),
        ("see http://u:p@a@h:1/v1 now", "see http://u:***@h:1/v1 now"),
        ("http://h/v1?key=abc&x=1", "http://h/v1?key=***&x=1"),
        ("host=db password=pw dbname=m", "host=db password=*** dbname=m"),
        ("password=pw", "password=***"),
        ("http://user@host/v1 and http://h/v1", "http://user@host/v1 and http://h/v1"),
    ],
)
def test_mask_credentials(text: str, masked: str) -> None:
    assert mask_credentials(text) == masked


def test_an_llm_url_password_reaches_no_log_note_or_job_error(
    db_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://mnemo:{SECRET}@127.0.0.1:{closed_port()}/v1"
    caplog.set_level(logging.DEBUG)
    with Memory(db_path, embedder="hashing", llm_base_url=url, llm_max_retries=0) as mem:
        mem.add_messages([{"role": "user", "content": "I live in Lyon and I love cats"}], "u1")
        assert mem.drain() >= 1
        stored = [m.model_dump_json() for m in mem.list("u1", include_deleted=True)]
        notes = [json.dumps(m.metadata) for m in mem.list("u1")]
        profile = [f.model_dump_json() for f in mem.profile("u1", include_inactive=True)]
        jobs = [str(j.last_error) for j in mem.store.jobs.list_jobs()]
    assert any("LLM" in n or "fallback" in n for n in notes + profile), "no fallback recorded"
    for where in (caplog.text, *stored, *notes, *profile, *jobs):
        assert SECRET not in where
    assert "mnemo:***@127.0.0.1" in caplog.text


def test_embedder_errors_do_not_show_the_password(db_path: str) -> None:
    with ScriptedServer() as server:
        base = server.url.replace("http://", f"http://u:{SECRET}@")
        server.enqueue(status=400, json={"error": {"message": "bad model"}})
        from mnemo.config.settings import Settings
        from mnemo.embedders import create_embedder
        from mnemo.errors import EmbeddingError

        embedder = create_embedder(Settings(embedder="openai", embedder_base_url=base))
        with pytest.raises(EmbeddingError) as info:
            embedder.embed(["hello"])
        assert SECRET not in str(info.value) and "u:***@" in str(info.value)
        embedder.close()


def with_password(url: str) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}:{SECRET}@{parts.hostname}:{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def test_export_and_migrate_print_no_database_password(pg_url: str, tmp_path: Path) -> None:
    url = with_password(pg_url)
    db = tmp_path / "m.db"
    with Memory(str(db), embedder="hashing") as mem:
        mem.add("a fact", "u1")
    runner = CliRunner()
    moved = runner.invoke(
        cli_app, ["migrate", str(db), url, "--searches", "2", "--embedder", "hashing"]
    )
    assert moved.exit_code == 0, moved.output
    out = runner.invoke(cli_app, ["export", str(tmp_path / "out.jsonl"), "--db", url])
    assert out.exit_code == 0, out.output
    refused = url.replace(f":{urlsplit(url).port}/", f":{closed_port()}/")
    bad = runner.invoke(cli_app, ["export", str(tmp_path / "x.jsonl"), "--db", refused])
    assert bad.exit_code != 0
    for result in (moved, out, bad):
        assert SECRET not in result.output
    assert ":***@" in out.output
