"""Calibrated relevance on the surfaces: REST hits and the proxy's ``memory_hits`` show it,
and the proxy injects nothing into a request about something the user never discussed. A
real uvicorn, the bundled embedder (the one a new user gets), the official `openai` client
and tests/scripted_server.py as the upstream."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest
from scripted_server import ScriptedServer

from mnemo import Settings
from mnemo.api.app import create_app
from mnemo.api.server import BackgroundServer

TOLD = [
    "I adopted a beagle called Biscuit last spring",
    "Biscuit loves the beach and chasing seagulls",
    "I started a new job as a nurse at the city hospital",
    "My sister Anna is visiting us in June",
]


@pytest.fixture
def upstream() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def proxy(db_path: str, upstream: ScriptedServer) -> Iterator[tuple[str, httpx.Client]]:
    """The server (proxy and REST) in front of ``upstream``, holding what Maya told it."""
    srv = BackgroundServer(create_app(Settings(path=db_path, upstream_base_url=upstream.url)))
    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=60) as http:
            turns = [{"role": "user", "content": t} for t in TOLD]
            r = http.post("/v1/messages", json={"user_id": "maya", "messages": turns})
            assert r.status_code == 201, r.text
            yield srv.url, http
    finally:
        srv.stop()


def ask(url: str, text: str) -> dict[str, object]:
    with openai.OpenAI(base_url=url + "/v1", api_key="x") as client:
        reply = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": text}], user="maya"
        )
    return dict(reply.model_extra or {})


def test_rest_hits_carry_a_calibrated_relevance(proxy: tuple[str, httpx.Client]) -> None:
    _, http = proxy
    dog = http.post("/v1/search", json={"user_id": "maya", "query": "my dog Biscuit"}).json()
    off = http.post(
        "/v1/search", json={"user_id": "maya", "query": "quantum chromodynamics lecture"}
    ).json()
    assert dog["data"] and off["data"]  # search returns hits either way, ranked as before
    for hit in dog["data"] + off["data"]:
        assert 0.0 <= hit["relevance"] <= 1.0
    assert "Biscuit" in dog["data"][0]["content"]
    # comparable across queries, unlike the relative score
    assert dog["data"][0]["relevance"] > 10 * max(h["relevance"] for h in off["data"])


def test_the_proxy_injects_nothing_for_an_unrelated_request(
    proxy: tuple[str, httpx.Client], upstream: ScriptedServer
) -> None:
    url, _ = proxy
    upstream.enqueue_chat("QCD is the theory of the strong interaction.")
    extra = ask(url, "Can you recommend a quantum chromodynamics lecture?")
    assert extra["memory_hits"] == []
    sent = upstream.requests[-1].json["messages"]
    assert [m["role"] for m in sent] == ["user"]  # no memory block was added
    assert not any(t in str(sent) for t in TOLD)
    # a request the memory can answer still gets it, with its relevance
    upstream.enqueue_chat("Biscuit!")
    hits = ask(url, "What is my dog's name?")["memory_hits"]
    assert isinstance(hits, list) and "Biscuit" in hits[0]["content"]
    assert 0.0 < hits[0]["relevance"] <= 1.0
    sent = upstream.requests[-1].json["messages"]
    assert "Biscuit" in sent[0]["content"]
