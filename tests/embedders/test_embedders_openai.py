"""OpenAIEmbedder against the scripted server over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import httpx
import numpy as np
import pytest
from scripted_server import ScriptedServer, embeddings_body, fake_embedding

from mnemo.embedders.openai import BACKOFF_CAP_S, OpenAIEmbedder, embeddings_url
from mnemo.errors import EmbeddingError, TransientError


@pytest.fixture(scope="module")
def _running_server() -> Iterator[ScriptedServer]:
    with ScriptedServer(embedding_dim=8) as server:
        yield server


@pytest.fixture
def server(_running_server: ScriptedServer) -> Iterator[ScriptedServer]:
    _running_server.reset()
    yield _running_server
    _running_server.reset()


class Recorder:
    """Stands in for time.sleep: records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> Recorder:
    return Recorder()


@pytest.fixture
def make(server: ScriptedServer, sleeps: Recorder) -> Iterator[Callable[..., OpenAIEmbedder]]:
    """Build OpenAIEmbedders aimed at ``server`` with the recording sleep; closed afterwards."""
    created: list[OpenAIEmbedder] = []

    def factory(**kwargs: object) -> OpenAIEmbedder:
        kwargs.setdefault("base_url", server.url)
        kwargs.setdefault("sleep", sleeps)
        emb = OpenAIEmbedder(**kwargs)  # type: ignore[arg-type]
        created.append(emb)
        return emb

    yield factory
    for emb in created:
        emb.close()


def test_embeddings_url_appends_v1_only_when_missing() -> None:
    assert embeddings_url("http://h:1") == "http://h:1/v1/embeddings"
    assert embeddings_url("http://h:1/") == "http://h:1/v1/embeddings"
    assert embeddings_url("http://h:1/v1") == "http://h:1/v1/embeddings"
    assert embeddings_url("http://h:1/v1/") == "http://h:1/v1/embeddings"
    assert embeddings_url("https://h/proxy/openai") == "https://h/proxy/openai/v1/embeddings"
    assert embeddings_url("https://h/api/v1") == "https://h/api/v1/embeddings"


def test_success_shape_normalised_and_request_contents(server, make) -> None:
    emb = make(model="my-embed", api_key="sk-test")
    texts = ["alpha", "beta", "gamma"]
    vecs = emb.embed(texts)
    assert vecs.shape == (3, 8) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    expected = np.asarray([fake_embedding(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vecs, expected, rtol=1e-5, atol=1e-6)
    assert emb.id == "openai:my-embed" and emb.dim == 8
    (req,) = server.requests
    assert (req.method, req.path) == ("POST", "/v1/embeddings")
    assert req.headers["authorization"] == "Bearer sk-test"
    # Embedder.embed batches texts by length; the results come back in input order (above).
    sent = sorted(texts, key=len)
    assert req.json == {"model": "my-embed", "input": sent, "encoding_format": "float"}


def test_base_url_without_v1_and_no_api_key(server, make) -> None:
    emb = make(base_url=server.url.removesuffix("/v1"))
    assert emb.embed_batch(["x"]).shape == (1, 8)
    assert server.requests[0].path == "/v1/embeddings"
    assert "authorization" not in server.requests[0].headers


def test_items_sorted_by_index(server, make) -> None:
    vectors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    body = embeddings_body(vectors)
    body["data"].reverse()
    server.enqueue(json=body)
    out = make().embed_batch(["a", "b", "c"])
    np.testing.assert_array_equal(out, np.asarray(vectors, dtype=np.float32))


def test_batching_splits_requests(server, make) -> None:
    texts = [f"text {i}" for i in range(10)]
    vecs = make(batch_size=4).embed(texts)
    assert vecs.shape == (10, 8)
    assert [len(r.json["input"]) for r in server.requests] == [4, 4, 2]
    assert [t for r in server.requests for t in r.json["input"]] == texts
    single = make(batch_size=4).embed(["text 7"])
    np.testing.assert_allclose(vecs[7], single[0], rtol=1e-6)


def test_429_then_success_honours_retry_after(server, make, sleeps) -> None:
    server.enqueue(
        status=429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "2"}
    )
    server.enqueue(status=503, headers={"Retry-After": "3600"})  # capped
    assert make().embed_batch(["x"]).shape == (1, 8)
    assert len(server.requests) == 3
    assert sleeps.delays == [2.0, BACKOFF_CAP_S]


def test_500_until_retries_exhausted(server, make, sleeps) -> None:
    for _ in range(3):
        server.enqueue(status=500, json={"error": {"message": "kaboom inside"}})
    with pytest.raises(TransientError) as info:
        make(max_retries=2).embed_batch(["x"])
    message = str(info.value)
    assert "HTTP 500" in message and "kaboom inside" in message and server.url in message
    assert "3 attempts" in message
    assert len(server.requests) == 3 and server.pending == 0
    # exponential backoff with jitter: attempt k waits in [d/2, d], d = 0.5 * 2**k
    assert len(sleeps.delays) == 2
    assert 0.25 <= sleeps.delays[0] <= 0.5 and 0.5 <= sleeps.delays[1] <= 1.0


def test_400_fails_at_once(server, make, sleeps) -> None:
    server.enqueue(status=400, json={"error": {"message": "input is too long"}})
    with pytest.raises(EmbeddingError) as info:
        make().embed_batch(["x"])
    assert not isinstance(info.value, TransientError)
    assert "HTTP 400" in str(info.value) and "input is too long" in str(info.value)
    assert len(server.requests) == 1 and sleeps.delays == []


def test_401_with_plain_text_body(server, make) -> None:
    server.enqueue(status=401, raw="bad key, go away")
    with pytest.raises(EmbeddingError, match="HTTP 401: bad key, go away"):
        make(api_key="wrong").embed_batch(["x"])


def test_hang_longer_than_timeout_is_retried_then_transient(server, make, sleeps) -> None:
    server.enqueue(delay=2.0)
    server.enqueue(delay=2.0)
    start = time.monotonic()
    with pytest.raises(TransientError, match="timed out"):
        make(timeout_s=0.3, max_retries=1).embed_batch(["x"])
    assert time.monotonic() - start < 1.5
    assert len(server.requests) == 2 and len(sleeps.delays) == 1


def test_hang_then_success(server, make) -> None:
    server.enqueue(delay=2.0)
    assert make(timeout_s=0.3, max_retries=1).embed_batch(["x"]).shape == (1, 8)
    assert len(server.requests) == 2


def test_dropped_connection_is_retried(server, make, sleeps) -> None:
    server.enqueue(drop=True)
    assert make().embed_batch(["x"]).shape == (1, 8)
    assert len(server.requests) == 2 and len(sleeps.delays) == 1


def test_connection_refused_is_transient(make, sleeps) -> None:
    with ScriptedServer() as gone:
        url = gone.url  # nothing listens here once the server has stopped
    with pytest.raises(TransientError, match="failed") as info:
        make(base_url=url, max_retries=1).embed_batch(["x"])
    assert len(sleeps.delays) == 1
    assert isinstance(info.value, EmbeddingError)  # `except EmbeddingError` still catches it


def test_broken_json_is_embedding_error(server, make, sleeps) -> None:
    server.enqueue(raw=b'{"data": [{"embedding": [0.1,')
    with pytest.raises(EmbeddingError, match="invalid JSON") as info:
        make().embed_batch(["x"])
    assert not isinstance(info.value, TransientError) and sleeps.delays == []


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ({"object": "list"}, "no 'data' list"),
        (["not", "an", "object"], "no 'data' list"),
        (embeddings_body([[0.1, 0.2]]), "1 embeddings for 2 texts"),
        (embeddings_body([[0.1, 0.2]] * 3), "3 embeddings for 2 texts"),
        ({"data": [{"index": 0, "embedding": [0.1]}, {"index": 1}]}, "not a list of floats"),
        ({"data": [{"embedding": ["a"]}, {"embedding": [0.1]}]}, "not a list of floats"),
        ({"data": [{"embedding": "AAAA"}, {"embedding": [0.1]}]}, "not a list of floats"),
        ({"data": [{"embedding": [True]}, {"embedding": [0.1]}]}, "not a list of floats"),
        ({"data": [{"index": 0, "embedding": [1.0]}] * 2}, "indices"),
        ({"data": [{"index": "0", "embedding": [1.0]}] * 2}, "'index' is not an integer"),
        (embeddings_body([[0.1, 0.2], [0.3]]), "different lengths"),
    ],
)
def test_malformed_responses(server, make, body, match) -> None:
    server.enqueue(json=body)
    with pytest.raises(EmbeddingError, match=match):
        make().embed_batch(["a", "b"])
    assert len(server.requests) == 1


def test_non_finite_values_rejected(server, make) -> None:
    server.enqueue(raw='{"data": [{"index": 0, "embedding": [NaN, 1.0]}]}')
    with pytest.raises(EmbeddingError, match="non-finite"):
        make().embed_batch(["a"])


def test_dim_learned_from_first_response(server, make) -> None:
    emb = make()
    emb.embed_batch(["a", "b"])
    assert emb.dim == 8 and len(server.requests) == 1


def test_dim_probe_when_read_first(server, make) -> None:
    emb = make()
    assert emb.dim == 8
    assert [r.json["input"] for r in server.requests] == [["dim probe"]]
    assert emb.embed([]).shape == (0, 8) and len(server.requests) == 1


def test_given_dim_is_checked_without_probe(server, make) -> None:
    emb = make(dim=16)
    assert emb.dim == 16 and server.requests == []
    with pytest.raises(EmbeddingError, match="8-d vectors, expected 16"):
        emb.embed_batch(["x"])


def test_custom_transport_is_used() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=embeddings_body([[3.0, 4.0]]))

    emb = OpenAIEmbedder("http://nowhere.invalid", transport=httpx.MockTransport(handler))
    vecs = emb.embed(["x"])
    emb.close()
    np.testing.assert_allclose(vecs, [[0.6, 0.8]], rtol=1e-6)
    assert str(seen[0].url) == "http://nowhere.invalid/v1/embeddings"


# --- the scripted server's chat default, as later clients will see it -------------------------


def test_chat_completion_default_and_scripted(server) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=server.url, api_key="sk-x", max_retries=0)
    messages = [{"role": "user", "content": "hello there"}]
    first = client.chat.completions.create(model="m1", messages=messages)
    assert first.choices[0].message.content == "ok" and first.model == "m1"
    assert first.usage is not None and first.usage.total_tokens > 0
    server.enqueue_chat("Scripted answer")
    second = client.chat.completions.create(model="m1", messages=messages)
    assert second.choices[0].message.content == "Scripted answer"
    assert server.requests[0].json["messages"] == messages
    assert server.requests[0].headers["authorization"] == "Bearer sk-x"
    client.close()


def test_chat_streaming_with_openai_client(server) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=server.url, api_key="sk-x", max_retries=0)
    messages = [{"role": "user", "content": "hi"}]
    stream = client.chat.completions.create(model="m", messages=messages, stream=True)
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "ok"
    assert chunks[-1].choices[0].finish_reason == "stop"
    server.enqueue_chat("one two three")
    stream = client.chat.completions.create(
        model="m", messages=messages, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "one two three"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 3
    client.close()


def test_chat_streaming_raw_sse_over_httpx(server) -> None:
    payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with (
        httpx.Client() as client,
        client.stream("POST", server.url + "/chat/completions", json=payload) as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in response.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(line.removeprefix("data: ")) for line in lines[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == "ok"


def test_scripted_sse_and_unknown_route(server) -> None:
    server.enqueue(sse=[{"choices": []}, "not json"])  # truncated: no [DONE]
    with httpx.Client() as client:
        text = client.post(server.url + "/chat/completions", json={"stream": True}).text
        assert text == 'data: {"choices": []}\n\ndata: not json\n\n'
        missing = client.get(server.url + "/models")
        assert missing.status_code == 404 and "no route" in missing.json()["error"]["message"]
