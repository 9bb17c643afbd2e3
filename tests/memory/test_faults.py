"""Faults of the LLM show in job status and in ``mnemo stats``; turns and jobs are never lost."""

from __future__ import annotations

import socket
import time

from scripted_server import ScriptedServer
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_llm_down_falls_back_and_is_counted(db_path: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with Memory(db_path, embedder="hashing", llm_base_url=url, llm_max_retries=0) as mem:
        start = time.perf_counter()
        mem.add_messages([{"role": "user", "content": "My name is Alex. I live in Lyon."}], "u1")
        assert time.perf_counter() - start < 2.0  # the write never waits for the LLM
        assert mem.drain() == 3
        stats = mem.stats()
        assert stats.jobs == {"done": 3}
        assert stats.llm_fallbacks == 2  # facts and profile each fell back once
        assert [f.value for f in mem.profile("u1")][:1] == ["Alex"]
        assert mem.list("u1", kind="fact")[0].metadata["extracted_by"] == "rules"
    out = CliRunner().invoke(
        app, ["stats"], env={"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}
    )
    assert out.exit_code == 0, out.output
    assert "LLM fallbacks" in out.output and "2" in out.output


def test_a_failing_job_shows_its_error_in_stats(db_path: str) -> None:
    with ScriptedServer() as server:
        server.enqueue(status=401)
        mem = Memory(
            db_path,
            embedder="hashing",
            llm_base_url=server.url,
            llm_max_retries=0,
            profile_enabled=False,
            episodes_enabled=False,
        )
        mem.add_messages([{"role": "user", "content": "I work as a nurse."}], "u1")
        mem.drain()
        stats = mem.stats()
        assert stats.jobs == {"pending": 1}  # kept for a retry, not lost
        assert len(stats.job_errors) == 1 and "401" in stats.job_errors[0]
        assert "turns.facts" in stats.job_errors[0]
        mem.close()
    out = CliRunner().invoke(
        app, ["stats"], env={"MNEMO_PATH": db_path, "MNEMO_EMBEDDER": "hashing"}
    )
    assert out.exit_code == 0 and "job error" in out.output and "401" in out.output
