"""Content-hash vector reuse stays inside a tenant, on both stores.

A text one tenant stored is embedded again when another tenant writes it (otherwise the second
tenant could tell from the write's timing that the first one stored that exact text); within a
tenant the stored vector, and the stored extra keys of a long turn, are reused. Embedding calls
are counted at the scripted OpenAI-compatible embeddings server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from scripted_server import ScriptedServer

from mnemo import Memory

SECRET = "My bank PIN is 4921 and I keep it in the blue notebook."
FILLER = (
    "The quarterly planning meeting ran long again and the slides were not ready. "
    "Our team lead wants every ticket estimated before Friday, which feels rushed. "
    "The new build server keeps timing out on the integration suite every afternoon. "
    "I spent most of the morning rewriting the deployment checklist for the release. "
)
LONG = FILLER + SECRET
PROBE = "dim probe"  # what the openai embedder sends once to learn the vector size
QUIET = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(embedding_dim=8) as s:
        yield s


def embedded_texts(server: ScriptedServer) -> list[str]:
    out: list[str] = []
    for r in server.requests:
        if r.path.endswith("/embeddings") and isinstance(r.json, dict):
            data = r.json.get("input", [])
            out += [data] if isinstance(data, str) else data
    return [t for t in out if t != PROBE]


@pytest.mark.parametrize("text", [SECRET, LONG], ids=["short", "long-with-keys"])
def test_vectors_are_reused_within_a_tenant_only(
    open_mem: Callable[..., Memory], server: ScriptedServer, text: str
) -> None:
    def tenant(name: str) -> Memory:
        return open_mem(
            tenant=name,
            embedder="openai",
            embedder_base_url=server.url,
            embedder_model="scripted-embed",
            key_chunk_words=20,
            **QUIET,
        )

    a, b = tenant("a"), tenant("b")
    a.add_messages([{"role": "user", "content": text}], "u1")
    first = len(embedded_texts(server))
    assert text in embedded_texts(server)

    a.add_messages([{"role": "user", "content": text}], "u2")  # same tenant: all reused
    assert len(embedded_texts(server)) == first

    b.add_messages([{"role": "user", "content": text}], "u1")  # another tenant: embedded anew
    again = embedded_texts(server)[first:]
    assert again.count(text) == 1
    assert len(again) == first, "the other tenant's keys were reused too"
    assert [m.content for m in b.messages("u1")] == [text]


def test_prefetched_texts_are_embedded_in_one_request(
    open_mem: Callable[..., Memory], server: ScriptedServer
) -> None:
    mem = open_mem(
        embedder="openai",
        embedder_base_url=server.url,
        embedder_model="scripted-embed",
        **QUIET,
    )
    texts = [f"note number {i} about the garden" for i in range(5)]
    before = len([r for r in server.requests if r.path.endswith("/embeddings")])
    with mem.embedding.prefetched(texts):
        for text in texts:
            mem.add(text, "u1")
    calls = [r for r in server.requests if r.path.endswith("/embeddings")][before:]
    assert len(calls) == 1 and embedded_texts(server)[-5:] == texts
    assert [h.content for h in mem.search("garden", "u1", kinds=["fact"], limit=5)] != []
    mem.add("after the block", "u1")  # the prefetched vectors are gone: a request of its own
    assert embedded_texts(server)[-1] == "after the block"
