"""The ``echo`` upstream: a built-in stand-in for a chat model, for trying the proxy without one.

``mnemo serve --upstream echo`` (setting ``upstream_base_url = "echo"``) answers the proxy's
requests inside the server, through an httpx transport: no model, no network. Each reply is
marked as a demo and quotes what mnemo sent upstream, the system messages (where the recalled
memory is injected, unless the preset puts it in the user message) and the last user message,
so a newcomer sees recall at work. ``POST chat/completions`` answers a chat completion, or with
``"stream": true`` the same text as ``chat.completion.chunk`` events ending with ``[DONE]``;
``GET models`` lists the one model, :data:`MODEL`. The proxy stores the user turn of each
exchange but not these replies: a reply quoting the recalled memory would itself be recalled
next time, quoting it again.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx

from mnemo.context.render import last_user_text, message_text

#: The ``upstream_base_url`` value that selects this upstream.
ECHO = "echo"
#: The model name the echo upstream answers as.
MODEL = "mnemo-echo"
#: The first line of every reply.
BANNER = "[mnemo echo upstream: a demo reply, no model was asked. What mnemo sent me:]"


def reply_text(messages: Any) -> str:
    """The demo reply to chat ``messages``: :data:`BANNER`, each system message's text, and the
    last user message's."""
    talk = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    system = [message_text(m.get("content")) for m in talk if m.get("role") == "system"]
    lines = [BANNER, *(f"system: {text}" for text in system if text.strip())]
    if len(lines) == 1:
        lines.append("system: (none: no memory was injected there)")
    lines.append(f"user: {last_user_text(talk) or '(no user message)'}")
    return "\n".join(lines)


def completion(text: str) -> dict[str, Any]:
    """A non-streaming chat completion whose message is ``text``."""
    return {
        "id": f"chatcmpl-echo-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


async def events(text: str) -> AsyncIterator[bytes]:
    """``text`` as server-sent ``chat.completion.chunk`` events, a line at a time, then
    ``[DONE]``."""
    head = {"id": f"chatcmpl-echo-{uuid.uuid4().hex[:12]}", "created": int(time.time())}
    head |= {"object": "chat.completion.chunk", "model": MODEL}
    pieces = [{"role": "assistant", "content": ""}]
    pieces += [{"content": line} for line in text.splitlines(keepends=True)]
    for delta in pieces:
        choice = {"index": 0, "delta": delta, "finish_reason": None}
        yield _event({**head, "choices": [choice]})
    yield _event({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    yield b"data: [DONE]\n\n"


def _event(chunk: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _error(status: int, message: str) -> httpx.Response:
    body = {"error": {"type": "invalid_request_error", "message": f"echo upstream: {message}"}}
    return httpx.Response(status, json=body)


class EchoTransport(httpx.AsyncBaseTransport):
    """An httpx transport answering as an OpenAI-compatible chat server, with no model."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """A chat completion (or its event stream) for ``POST .../chat/completions``, the model
        list for ``GET .../models``, else an OpenAI-style 404."""
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "mnemo"}
            return httpx.Response(200, json={"object": "list", "data": [model]})
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return _error(404, f"no route {request.method} {path}")
        try:
            body = json.loads(await request.aread())
        except ValueError:
            return _error(400, "the request body is not JSON")
        if not isinstance(body, dict):
            return _error(400, "the request body is not a JSON object")
        text = reply_text(body.get("messages"))
        if body.get("stream"):
            sse = {"content-type": "text/event-stream"}
            return httpx.Response(200, headers=sse, content=events(text))
        return httpx.Response(200, json=completion(text))


def make_client(timeout: httpx.Timeout) -> httpx.AsyncClient:
    """The proxy's upstream client when ``upstream_base_url`` is ``echo``."""
    return httpx.AsyncClient(
        base_url="http://echo.upstream.invalid/v1/", transport=EchoTransport(), timeout=timeout
    )


__all__ = [
    "BANNER",
    "ECHO",
    "MODEL",
    "EchoTransport",
    "completion",
    "events",
    "make_client",
    "reply_text",
]
