"""A scripted OpenAI-compatible HTTP server for tests, on 127.0.0.1 in a daemon thread.

Every request is recorded in ``server.requests``. Each request takes the oldest scripted
response from a FIFO queue; when the queue is empty a default handler answers:

* ``POST /v1/embeddings``: a deterministic (unnormalised) vector per input, seeded by a hash
  of the text; ``embedding_dim`` long, or the request's ``dimensions``.
* ``POST /v1/chat/completions``: an assistant message "ok"; with ``"stream": true`` as
  server-sent ``chat.completion.chunk`` events ending with ``data: [DONE]``.
* anything else: 404 with an OpenAI-style error body.

Rules added with :meth:`ScriptedServer.when` answer every request they match (before the
queue), e.g. a server that rejects ``response_format``::

    server.when(lambda r: "response_format" in (r.json or {}), status=400,
                json={"error": {"message": "response_format is not supported"}})

Usage::

    with ScriptedServer() as server:
        server.enqueue(status=429, headers={"Retry-After": "1"})  # then the default answer
        server.enqueue_chat("Hello there")  # honours "stream": true too
        client = OpenAI(base_url=server.url, api_key="x")
        ...
        assert server.requests[0].json["model"] == "gpt-4o-mini"
"""

from __future__ import annotations

import hashlib
import json as jsonlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


@dataclass
class RecordedRequest:
    """One request the server received; ``json`` is None when the body is not JSON."""

    method: str
    path: str
    headers: dict[str, str]  # keys lower-cased
    body: bytes
    json: Any


@dataclass
class Scripted:
    """One scripted reply; see :meth:`ScriptedServer.enqueue` for the fields."""

    status: int = 200
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    delay: float = 0.0
    drop: bool = False
    sse: list[Any] | None = None
    chat: str | None = None
    gate: threading.Event | None = None

    @property
    def has_body(self) -> bool:
        """True when the reply says what to send (else the default handler decides)."""
        return any(x is not None for x in (self.json, self.raw, self.sse, self.chat))


def fake_embedding(text: str, dim: int = 8) -> list[float]:
    """The default handler's vector for ``text``: deterministic, unnormalised."""
    seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")
    return [float(x) for x in np.random.default_rng(seed).standard_normal(dim)]


def embeddings_body(vectors: list[list[float]], model: str = "scripted-embed") -> dict[str, Any]:
    """A valid ``/v1/embeddings`` response body holding ``vectors`` in order."""
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
    n = len(vectors)
    usage = {"prompt_tokens": n, "total_tokens": n}
    return {"object": "list", "data": data, "model": model, "usage": usage}


def _words(value: Any) -> int:
    return len(jsonlib.dumps(value).split()) if value is not None else 0


def chat_body(text: str, request: Any = None, finish_reason: str = "stop") -> dict[str, Any]:
    """A valid non-streaming ``chat.completion`` body answering ``text``, with usage."""
    request = request if isinstance(request, dict) else {}
    prompt, completion = _words(request.get("messages")), len(text.split())
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted-chat"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def chat_chunks(text: str, request: Any = None) -> list[Any]:
    """SSE payloads streaming ``text`` word by word, OpenAI chunk format, ending "[DONE]"."""
    full = chat_body(text, request)
    base = {k: full[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return base | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    pieces = [w if i == 0 else " " + w for i, w in enumerate(text.split(" "))] if text else []
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": p}) for p in pieces]
    events.append(chunk({}, "stop"))
    options = request.get("stream_options") if isinstance(request, dict) else None
    if isinstance(options, dict) and options.get("include_usage"):
        events.append(base | {"choices": [], "usage": full["usage"]})
    return [*events, "[DONE]"]


class ScriptedServer:
    """The server. ``start()``/``stop()`` or use it as a context manager."""

    def __init__(self, embedding_dim: int = 8) -> None:
        self.embedding_dim = embedding_dim
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Scripted] = deque()
        self._rules: list[tuple[Callable[[RecordedRequest], bool], Scripted]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL including ``/v1``, e.g. ``http://127.0.0.1:50123/v1``."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def pending(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._queue)

    def enqueue(
        self,
        status: int = 200,
        json: Any = None,
        *,
        headers: dict[str, str] | None = None,
        raw: bytes | str | None = None,
        delay: float = 0.0,
        drop: bool = False,
        sse: list[Any] | None = None,
    ) -> None:
        """Script the next reply.

        ``json`` or ``raw`` (bytes sent verbatim) is the body; ``sse`` is a list of event
        payloads, dicts sent as JSON and strings verbatim (no ``[DONE]`` is added). With no
        body the default handler answers, or an OpenAI-style error for ``status >= 400``.
        ``delay`` waits that many seconds first; ``drop`` closes the connection unanswered.
        """
        body = raw.encode("utf-8") if isinstance(raw, str) else raw
        item = Scripted(status, json, dict(headers or {}), body, delay, drop, sse)
        with self._lock:
            self._queue.append(item)

    def enqueue_chat(
        self,
        text: str,
        *,
        status: int = 200,
        delay: float = 0.0,
        gate: threading.Event | None = None,
    ) -> None:
        """Script a chat completion answering ``text``, streamed if the request asks.

        With ``gate`` the reply waits until the event is set (or the server stops), so a test
        can act while a client is known to be waiting on this request.
        """
        with self._lock:
            self._queue.append(Scripted(status=status, delay=delay, chat=text, gate=gate))

    def when(
        self,
        match: Callable[[RecordedRequest], bool],
        status: int = 200,
        json: Any = None,
        *,
        headers: dict[str, str] | None = None,
        raw: bytes | str | None = None,
        chat: str | None = None,
    ) -> None:
        """Answer every request for which ``match(request)`` is true with this reply.

        Rules are checked in the order added, before the scripted queue; ``chat`` answers a
        chat completion with that text. The fields are those of :meth:`enqueue`.
        """
        body = raw.encode("utf-8") if isinstance(raw, str) else raw
        item = Scripted(status, json, dict(headers or {}), body, chat=chat)
        with self._lock:
            self._rules.append((match, item))

    def reset(self) -> None:
        """Forget recorded requests, rules and unused scripted replies."""
        with self._lock:
            self._queue.clear()
            self._rules.clear()
            self.requests.clear()

    def start(self) -> ScriptedServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        self._stopping.clear()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; replies still waiting out a ``delay`` are released."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, request: RecordedRequest) -> Scripted | None:
        with self._lock:
            self.requests.append(request)
            for match, reply in self._rules:
                if match(request):
                    return replace(reply)
            return self._queue.popleft() if self._queue else None

    def default_reply(self, req: RecordedRequest) -> Scripted:
        """What the server answers when nothing is scripted."""
        body = req.json if isinstance(req.json, dict) else {}
        path = req.path.split("?")[0].rstrip("/")
        if req.method == "POST" and path == "/v1/embeddings":
            texts = body.get("input", [])
            texts = [texts] if isinstance(texts, str) else texts
            dim = body.get("dimensions") or self.embedding_dim
            vectors = [fake_embedding(t if isinstance(t, str) else str(t), dim) for t in texts]
            return Scripted(json=embeddings_body(vectors, body.get("model", "scripted-embed")))
        if req.method == "POST" and path == "/v1/chat/completions":
            return Scripted(chat="ok")
        return Scripted(status=404, json=_error(f"no route for {req.method} {req.path}", 404))


def _error(message: str, status: int) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _make_handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                parsed = jsonlib.loads(raw) if raw else None
            except ValueError:
                parsed = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            req = RecordedRequest(self.command, self.path, headers, raw, parsed)
            reply = server._next(req) or server.default_reply(req)
            if reply.status < 400 and not reply.has_body:
                default = server.default_reply(req)
                reply = replace(
                    default,
                    headers=default.headers | reply.headers,
                    delay=reply.delay,
                    drop=reply.drop,
                )
            if reply.delay and server._stopping.wait(reply.delay):
                reply.drop = True
            while reply.gate is not None and not reply.gate.wait(0.05):
                if server._stopping.is_set():
                    reply.drop = True
                    break
            if reply.drop:
                self.close_connection = True
                return
            try:
                self._send(reply, req)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                self.close_connection = True

        def _send(self, reply: Scripted, req: RecordedRequest) -> None:
            sse = reply.sse
            body, ctype = reply.raw, "application/json"
            if reply.chat is not None:
                wants_stream = isinstance(req.json, dict) and req.json.get("stream") is True
                if wants_stream:
                    sse = chat_chunks(reply.chat, req.json)
                else:
                    body = jsonlib.dumps(chat_body(reply.chat, req.json)).encode()
            elif body is None and sse is None:
                payload = reply.json
                if payload is None:
                    payload = _error(f"scripted HTTP {reply.status}", reply.status)
                body = jsonlib.dumps(payload).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "text/event-stream" if sse is not None else ctype)
            if sse is None:
                self.send_header("Content-Length", str(len(body or b"")))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            if sse is None:
                self.wfile.write(body or b"")
                return
            for event in sse:
                data = event if isinstance(event, str) else jsonlib.dumps(event)
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True

    return Handler
