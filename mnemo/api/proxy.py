"""The OpenAI-compatible memory proxy: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Per request (one :class:`~mnemo.memory.exchange.Exchange`, the path ``mnemo eval``'s chat
replay measures): validate what would be stored (ids, the last user message, the metadata) and
that the body is plain JSON, all before the upstream is called (and paid for); recall the
context of the last user message (the OpenAI ``user`` field is the user id, required unless
``proxy_default_user`` is set; `agent-cli`'s ``memory_id`` the session), leaving out the turns
the request already carries; inject it as the preset says, forward to the upstream, and store
the user turn with the reply in one call. A request with no user text (only a system message,
or an empty last user message) is forwarded as it came and stores nothing: no reply is kept
without the message it answers.
Non-streaming replies get ``memory_hits``. Streaming replies are passed through event by event,
and one last ``chat.completion.chunk`` with no choices carries ``memory_hits`` just before
``[DONE]``.

What is stored, streaming or not: **nothing, unless the upstream answered** (HTTP 200 with a
chat completion or an event stream). A refused request (its status, ``Retry-After`` and
rate-limit headers are passed through), an unreachable upstream or an unparseable reply store
nothing, so a client's retry never duplicates a turn. Once the upstream answered, the user turn
and the assistant reply are stored together in one transaction, so the exchange's fact job sees
the reply: when the reply is complete (before ``[DONE]`` is relayed), or, for a stream the
client left or the upstream broke or ended without ``[DONE]``, with what was said so far,
marked ``incomplete``. A reply longer than ``max_content_chars`` is stored cut to that length,
marked ``truncated`` with its ``original_chars``; the client still gets all of it. A NUL or
lone surrogate in the reply is stored as U+FFFD (``replaced_chars``), and the client gets the
reply as sent; a reply that is not strict JSON (``NaN``) is unparseable: 502, nothing stored.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

import httpx
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from mnemo import validation as check
from mnemo.api import echo_upstream, upstream
from mnemo.api.deps import AppState, CallerDep, MemoryDep, StateDep
from mnemo.api.errors import described
from mnemo.api.models import ErrorBody
from mnemo.context.render import inject as inject_context
from mnemo.context.render import message_text
from mnemo.errors import MnemoError, ValidationError
from mnemo.memory.exchange import Exchange
from mnemo.memory.facade import Memory
from mnemo.schemas import ContextBundle

log = logging.getLogger("mnemo.proxy")
router = APIRouter(tags=["proxy"], responses={c: {"model": ErrorBody} for c in (401, 422, 502)})

MEMORY_FIELDS = {"memory_id", "memory_top_k", "memory_recency_weight", "memory_score_threshold"}


#: How a message's content may look: what OpenAI's API accepts.
CONTENT_SHAPES = 'a string, null or a list of content parts such as {"type": "text", "text": "..."}'


def check_content(content: Any, where: str) -> None:
    """ValidationError (a 422) unless ``content`` is what OpenAI takes as a message's content:
    a string, null, or a list of content parts (objects with a string ``type``; a ``text``
    part's ``text`` a string). Anything else (``5``, an object, a list of strings) would be
    read as a message with no text and forwarded; OpenAI refuses it."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        got = json.dumps(content)
        raise ValidationError(f"{where} must be {CONTENT_SHAPES}, got {got:.80}")
    for j, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise ValidationError(f"{where}[{j}] must be a content part: {CONTENT_SHAPES}")
        if part["type"] == "text" and not isinstance(part.get("text"), str):
            raise ValidationError(f"{where}[{j}].text must be a string")


class ChatRequest(BaseModel):
    """An OpenAI chat request plus `agent-cli`'s memory options; other fields pass through.
    Each message's content and the booleans are checked as OpenAI checks them (a 422 before
    the upstream is called): ``"stream": "yes"`` is refused, not taken for true."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    messages: list[dict[str, Any]] = Field(min_length=1)
    stream: StrictBool = False
    logprobs: StrictBool | None = None
    parallel_tool_calls: StrictBool | None = None
    store: StrictBool | None = None
    user: str | None = Field(
        None,
        description="The user id memory is kept for; required unless the server sets "
        "`proxy_default_user`.",
    )
    memory_id: str | None = Field(None, description="Conversation (session) id.")
    memory_top_k: int | None = Field(
        None, ge=0, le=100, description="0 skips retrieval: the request goes upstream unchanged."
    )
    memory_recency_weight: float | None = Field(None, ge=0, le=1)
    memory_score_threshold: float | None = Field(None, ge=0, le=1)

    @field_validator("messages")
    @classmethod
    def _contents(cls, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for i, message in enumerate(messages):
            check_content(message.get("content"), f"messages[{i}].content")
        return messages


#: The 422 of a request without ``user`` when no ``proxy_default_user`` is set.
NO_USER = (
    "user is required: the proxy keeps memory per user, so say whose this is in the OpenAI "
    '`user` field, e.g. client.chat.completions.create(..., user="alice") (or '
    'extra_body={"user": "alice"}, or "user": "alice" in the JSON body); a server '
    "whose requests are all one person's can set a default instead: "
    "MNEMO_PROXY_DEFAULT_USER=alice (setting proxy_default_user)"
)


def user_of(body: ChatRequest, default_user: str | None) -> str:
    """The user id of a request: its ``user`` (an empty one is refused later, like a blank
    one), else ``default_user``; with neither, ValidationError :data:`NO_USER` (a 422): users
    who give no id must not share one memory."""
    if body.user is not None:
        return body.user
    if default_user is None:
        raise ValidationError(NO_USER)
    return default_user


class ProxiedTurn:
    """The turn being proxied: its :class:`~mnemo.memory.exchange.Exchange` and metrics.

    Built before the upstream is called: everything that will be stored is validated here
    (ValidationError, a 422, costs no upstream call).
    """

    def __init__(self, mem: Memory, body: ChatRequest, state: AppState) -> None:
        self.mem, self.body, self.state = mem, body, state
        check.json_value(body.model_dump(exclude_unset=True), "body")  # no NaN, no bad text
        self.exchange = Exchange(
            mem,
            body.messages,
            user_of(body, state.settings.proxy_default_user),
            "default" if body.memory_id is None else body.memory_id,
            top_k=body.memory_top_k,
            recency_weight=body.memory_recency_weight,
            score_threshold=body.memory_score_threshold,
        )
        self.user_id, self.session_id = self.exchange.user_id, self.exchange.session_id
        self.query = self.exchange.query
        self.meta = check.json_object(
            {"source": "proxy", "model": body.model}, "model", mem.settings.max_metadata_bytes
        )
        self.bundle: ContextBundle | None = None

    def recall(self) -> None:
        """Assemble the context of the last user message (nothing when it is empty, or when
        ``memory_top_k`` is 0: the request then goes upstream as it came)."""
        self.bundle = self.exchange.recall()

    def payload(self) -> dict[str, Any]:
        """The request sent upstream: memory fields removed, context injected."""
        data = self.body.model_dump(exclude_unset=True, exclude=MEMORY_FIELDS)
        data["model"], data["stream"] = self.body.model, self.body.stream
        if self.bundle is not None:
            data["messages"] = inject_context(self.bundle, self.body.messages)
        return data

    def store(self, assistant: str | None, *, incomplete: bool = False) -> None:
        """Store the user turn and the assistant reply (if any) in one transaction; a reply
        longer than ``max_content_chars`` is cut to it and marked ``truncated``. The demo
        upstream's reply (``echo``) is not kept: it quotes the recalled memory, which would
        then be recalled again inside it."""
        if self.state.settings.upstream_base_url == echo_upstream.ECHO:
            assistant = None
        stored = self.exchange.store(assistant, metadata=self.meta, incomplete=incomplete)
        if stored:
            self.state.metrics.turns.inc(len(stored))

    def hits(self) -> list[dict[str, Any]]:
        """``memory_hits``: what was recalled, in the `agent-cli` shape."""
        return self.exchange.hits()


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    return value[7:].strip() or None if value.lower().startswith("bearer ") else None


async def _send(state: AppState, request: httpx.Request, stream: bool = False) -> httpx.Response:
    client = upstream.require(state.upstream)
    try:
        return await client.send(request, stream=stream)
    except httpx.TimeoutException as exc:
        state.metrics.upstream_errors.labels("timeout").inc()
        raise upstream.UpstreamError(f"upstream timed out: {exc!r}") from exc
    except httpx.HTTPError as exc:
        state.metrics.upstream_errors.labels("connection").inc()
        raise upstream.UpstreamError(f"upstream unreachable: {exc!r}") from exc


#: Upstream response headers a refused request passes on (when to retry, and the quota).
PASSED_HEADERS = ("retry-after", "retry-after-ms")


def _passthrough(state: AppState, resp: httpx.Response, body: bytes) -> Response:
    """The upstream's own answer (a refusal, or ``/models``), with its retry and rate-limit
    headers; a 429 or 5xx is counted in ``mnemo_upstream_errors``."""
    if resp.status_code == 429:
        state.metrics.upstream_errors.labels("rate_limited").inc()
    elif resp.status_code >= 500:
        state.metrics.upstream_errors.labels("http_5xx").inc()
    ctype = resp.headers.get("content-type", "application/json")
    headers = {
        k: v
        for k, v in resp.headers.items()
        if k.lower() in PASSED_HEADERS or k.lower().startswith("x-ratelimit-")
    }
    return Response(content=body, status_code=resp.status_code, media_type=ctype, headers=headers)


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(
    body: ChatRequest, request: Request, who: CallerDep, mem: MemoryDep, state: StateDep
) -> Response:
    """Chat through the upstream with memory injected; the turn is stored."""
    client = upstream.require(state.upstream)
    turn = ProxiedTurn(mem, body, state)
    await run_in_threadpool(turn.recall)
    headers = upstream.auth_headers(state.settings, _bearer(request))
    up = client.build_request("POST", "chat/completions", json=turn.payload(), headers=headers)
    if body.stream:
        return await _stream(state, up, turn)
    resp = await _send(state, up)
    if resp.status_code != 200:
        return _passthrough(state, resp, resp.content)
    try:
        data = strict_json(resp.content)
        text = message_text(data["choices"][0]["message"].get("content"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as exc:
        state.metrics.upstream_errors.labels("bad_reply").inc()
        raise upstream.UpstreamError(f"upstream reply is not a chat completion: {exc!r}") from exc
    await run_in_threadpool(turn.store, text)
    data["memory_hits"] = turn.hits()
    return Response(content=ascii_json(data), media_type="application/json")


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def strict_json(body: bytes) -> Any:
    """The upstream's JSON reply; ValueError for ``NaN``/``Infinity``, which Python's parser
    would take but no JSON response can carry back (RecursionError when nested too deeply)."""
    return json.loads(body, parse_constant=_not_json)


def ascii_json(data: Any) -> bytes:
    """``data`` as JSON with every non-ASCII character escaped, so a lone surrogate the
    upstream sent (as a ``\\udXXX`` escape) goes back as the same escape instead of failing
    to encode as UTF-8."""
    return json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()


async def _stream(state: AppState, up: httpx.Request, turn: ProxiedTurn) -> Response:
    resp = await _send(state, up, stream=True)
    if resp.status_code != 200:
        body = await resp.aread()
        await resp.aclose()
        return _passthrough(state, resp, body)
    events = with_hits(relay(resp, turn.store), turn.hits)
    return StreamingResponse(events, media_type="text/event-stream")


def delta_text(data: str) -> str:
    """The assistant text of one ``chat.completion.chunk`` payload ("" when none)."""
    try:
        choices = json.loads(data).get("choices") or []
        content = choices[0].get("delta", {}).get("content") if choices else None
    except (ValueError, AttributeError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


async def relay(resp: httpx.Response, store: Callable[..., None]) -> AsyncGenerator[str, None]:
    """Pass SSE lines through, collecting the text; store the exchange before relaying
    ``[DONE]`` (a stream that ends without one is stored ``incomplete``)."""
    parts: list[str] = []
    stored = False
    try:
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data == "[DONE]" and not stored:
                    stored = True  # tried once: a failure is not retried with the partial text
                    failure = await _store_at_done(store, "".join(parts))
                    if failure is not None:
                        yield failure
                elif data != "[DONE]":
                    parts.append(delta_text(data))
            yield line + "\n"
        if not stored:  # the upstream ended the stream without [DONE]: it may be cut short
            await run_in_threadpool(store, "".join(parts), incomplete=True)
            stored = True
    except httpx.HTTPError as exc:
        log.warning("upstream stream broke: %r", exc)
        error = {"error": {"type": "upstream_error", "message": f"upstream stream broke: {exc!r}"}}
        yield f"data: {json.dumps(error)}\n\n"
    finally:
        if not stored:  # client gone or upstream broke: keep what was said, off the event loop
            text = "".join(parts)
            threading.Thread(
                target=_store_partial, args=(store, text), name="mnemo-partial", daemon=False
            ).start()
        await resp.aclose()


async def _store_at_done(store: Callable[..., None], text: str) -> str | None:
    """Store a streamed exchange; None, or the SSE error event that tells the client its
    exchange was not stored (the reply itself was already relayed, so the stream goes on to
    ``[DONE]``). The event carries what :func:`~mnemo.api.errors.described` lets a client
    read of the error."""
    try:
        await run_in_threadpool(store, text)
    except MnemoError as exc:
        status, kind, message = described(exc, "storing a streamed exchange")
        error = {"error": {"type": kind, "code": status, "message": f"not stored: {message}"}}
        return f"data: {json.dumps(error)}\n\n"
    return None


async def with_hits(
    lines: AsyncGenerator[str, None], hits: Callable[[], list[dict[str, Any]]]
) -> AsyncIterator[str]:
    """The relayed lines with one more event just before ``data: [DONE]``: a
    ``chat.completion.chunk`` with no choices and ``memory_hits``, which OpenAI clients read
    like the usage chunk (``chunk.model_extra["memory_hits"]``). A stream that ends without
    ``[DONE]`` (cut short upstream) gets no such event."""
    head: dict[str, Any] = {}
    sent = False
    try:
        async for line in lines:
            data = line[5:].strip() if line.startswith("data:") else ""
            if data == "[DONE]" and not sent:
                yield hits_event(head, hits())
                sent = True
            elif data and not head:
                head = _chunk_head(data)
            yield line
    finally:
        await lines.aclose()  # a client that left: the relay stores what was said


def _chunk_head(data: str) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except ValueError:
        return {}
    if not isinstance(chunk, dict):
        return {}
    return {k: chunk[k] for k in ("id", "created", "model") if k in chunk}


def hits_event(head: dict[str, Any], hits: list[dict[str, Any]]) -> str:
    """The SSE event carrying ``memory_hits``, shaped like the stream's chunks (``head``:
    their ``id``, ``created`` and ``model``)."""
    chunk = {**head, "object": "chat.completion.chunk", "choices": [], "memory_hits": hits}
    return f"data: {json.dumps(chunk)}\n\n"


def _store_partial(store: Callable[..., None], text: str) -> None:
    try:
        store(text, incomplete=True)
    except Exception:  # a background write has no caller to raise to; record it
        log.exception("could not store a partial assistant turn")


@router.get("/v1/models", response_model=None)
async def models(request: Request, who: CallerDep, state: StateDep) -> Response:
    """The upstream's model list, passed through."""
    client = upstream.require(state.upstream)
    headers = upstream.auth_headers(state.settings, _bearer(request))
    resp = await _send(state, client.build_request("GET", "models", headers=headers))
    return _passthrough(state, resp, resp.content)
