"""``mnemo serve --upstream echo``: the proxy tried with no model. A real server process, the
official `openai` client, streaming and not, on SQLite and PostgreSQL: each reply is marked as
a demo and quotes the memory mnemo recalled; the user turns are stored, the echo replies not."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from serve_support import ROOT, free_port, start, stop, wait_healthy

from mnemo.api.echo_upstream import BANNER

TOLD = "My cat is called Luna and she loves sardines."
ASKED = "What does my cat Luna love to eat?"


@pytest.fixture
def echo_server(target: dict[str, str]) -> Iterator[tuple[openai.OpenAI, subprocess.Popen[str]]]:
    """A ``mnemo serve --upstream echo`` process on the test's store, and a client of it."""
    port = free_port()
    db = target.get("path") or target["url"]
    proc = start("serve", "--db", db, "--port", str(port), "--upstream", "echo")
    try:
        assert wait_healthy(proc, port)["upstream"] is True
        url = f"http://127.0.0.1:{port}/v1"
        with openai.OpenAI(base_url=url, api_key="x", max_retries=0) as client:
            yield client, proc
    finally:
        if proc.poll() is None:
            stop(proc)


def ask(client: openai.OpenAI, text: str, stream: bool = False) -> tuple[str, list[Any]]:
    """The reply's text and ``memory_hits``."""
    messages: Any = [{"role": "user", "content": text}]
    if not stream:
        reply = client.chat.completions.create(model="any", messages=messages, user="ann")
        return reply.choices[0].message.content or "", (reply.model_extra or {})["memory_hits"]
    chunks = list(
        client.chat.completions.create(model="any", messages=messages, user="ann", stream=True)
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    hits = [h for c in chunks if not c.choices for h in (c.model_extra or {})["memory_hits"]]
    return text, hits


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_the_echo_upstream_answers_with_the_recalled_memory(
    echo_server: tuple[openai.OpenAI, subprocess.Popen[str]], stream: bool
) -> None:
    client, _ = echo_server
    first, hits = ask(client, TOLD, stream)
    assert first.startswith(BANNER) and "demo" in first and hits == []
    assert f"user: {TOLD}" in first and "system: (none" in first
    second, hits = ask(client, ASKED, stream)
    assert second.startswith(BANNER) and f"user: {ASKED}" in second
    memory = second.split("system: ", 1)[1]
    assert TOLD in memory  # recall at work: what ann said, in the memory the echo was given
    assert [h["content"] for h in hits] == [TOLD]  # the user turn; the echo replies are not kept
    assert [m.id for m in client.models.list()] == ["mnemo-echo"]
    with pytest.raises(openai.UnprocessableEntityError, match='user="alice"'):
        client.chat.completions.create(model="any", messages=[{"role": "user", "content": "hi"}])


def test_serve_says_the_echo_upstream_is_a_demo(
    echo_server: tuple[openai.OpenAI, subprocess.Popen[str]],
) -> None:
    client, proc = echo_server
    client.models.list()
    assert "upstream: echo, a DEMO: no model is asked" in stop(proc)


def test_the_server_page_examples_run_against_the_echo_upstream(
    echo_server: tuple[openai.OpenAI, subprocess.Popen[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/server.md's Python examples, in order, in one namespace, with the port of this
    test's server in place of 8000."""
    client, _ = echo_server
    page = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) >= 4, "docs/server.md lost its proxy examples"
    assert all("user=" in b for b in blocks if "chat.completions.create(" in b)
    namespace: dict[str, object] = {"__name__": "server_doc"}
    try:
        for number, block in enumerate(blocks, 1):
            code = block.replace("http://127.0.0.1:8000/v1", str(client.base_url).rstrip("/"))
            exec(compile(code, f"docs/server.md, block {number}", "exec"), namespace)
    finally:
        page_client = namespace.get("client")
        if isinstance(page_client, openai.OpenAI):
            page_client.close()
    out = capsys.readouterr().out
    assert out.count(BANNER) == 2 and "recalled: ['My dog Rex is scared of thunder.']" in out
    assert 'user="alice"' in out and "MNEMO_PROXY_DEFAULT_USER" in out
