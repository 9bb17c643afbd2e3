"""The OpenAI-compatible memory proxy: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Per request: validate what would be stored (ids, the last user message, the metadata) and that
the body is plain JSON, all before the upstream is called (and paid for); recall the context of
the last user message (the OpenAI ``user`` field is the user id, `agent-cli`'s ``memory_id``
the session), inject it as the preset says, forward to the upstream, and store the exchange.
Non-streaming replies get ``memory_hits``; streaming replies are passed through event by event.

What is stored, streaming or not: **nothing, unless the upstream answered** (HTTP 200 with a
chat completion or an event stream). A refused request (its status, ``Retry-After`` and
rate-limit headers are passed through), an unreachable upstream or an unparseable reply store
nothing, so a client's retry never duplicates a turn. Once the upstream answered, the user turn
and the assistant reply are stored together in one transaction: when the reply is complete
(before ``[DONE]`` is relayed), or, for a stream the client left or the upstream broke or ended
without ``[DONE]``, with what was said so far, marked ``incomplete``. A reply longer than
``max_content_chars`` is stored cut to that length, marked ``truncated`` with its
``original_chars``; the client still gets all of it.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from mnemo import validation as check
from mnemo.api import upstream
from mnemo.api.deps import AppState, CallerDep, MemoryDep, StateDep
from mnemo.api.models import ErrorBody
from mnemo.context.render import inject as inject_context
from mnemo.context.render import last_user_text
from mnemo.memory.facade import Memory
from mnemo.schemas import ContextBundle

log = logging.getLogger("mnemo.proxy")
router = APIRouter(tags=["proxy"], responses={c: {"model": ErrorBody} for c in (401, 422, 502)})

MEMORY_FIELDS = {"memory_id", "memory_top_k", "memory_recency_weight", "memory_score_threshold"}


class ChatRequest(BaseModel):
    """An OpenAI chat request plus `agent-cli`'s memory options; other fields pass through."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    messages: list[dict[str, Any]] = Field(min_length=1)
    stream: bool = False
    user: str | None = Field(None, description="The user id memory is kept for.")
    memory_id: str | None = Field(None, description="Conversation (session) id.")
    memory_top_k: int | None = Field(
        None, ge=0, le=100, description="0 skips retrieval: the request goes upstream unchanged."
    )
    memory_recency_weight: float | None = Field(None, ge=0, le=1)
    memory_score_threshold: float | None = Field(None, ge=0, le=1)


class Turn:
    """The turn being proxied: where it is stored and what was recalled for it.

    Built before the upstream is called: everything that will be stored is validated here
    (ValidationError, a 422, costs no upstream call).
    """

    def __init__(self, mem: Memory, body: ChatRequest, state: AppState) -> None:
        self.mem, self.body, self.state = mem, body, state
        s = mem.settings
        self.user_id = check.identifier(body.user or "default", "user")
        self.session_id = check.identifier(body.memory_id or "default", "memory_id")
        check.json_value(body.model_dump(exclude_unset=True), "body")  # no NaN, no bad text
        self.query = last_user_text(body.messages)
        if self.query.strip():
            check.content(self.query, s.max_content_chars, "the last user message")
        self.meta = check.json_object(
            {"source": "proxy", "model": body.model}, "model", s.max_metadata_bytes
        )
        self.bundle: ContextBundle | None = None

    def recall(self) -> None:
        """Assemble the context of the last user message (nothing when it is empty, or when
        ``memory_top_k`` is 0: the request then goes upstream as it came)."""
        if not self.query.strip() or self.body.memory_top_k == 0:
            return
        talk = [m for m in self.body.messages if m.get("role") != "system"]
        self.bundle = self.mem.context(
            self.query,
            self.user_id,
            self.session_id,
            self.mem.settings.context_budget_tokens,
            include_history=len(talk) <= 1,
            top_k=self.body.memory_top_k,
            recency_weight=self.body.memory_recency_weight,
            score_threshold=self.body.memory_score_threshold,
        )

    def payload(self) -> dict[str, Any]:
        """The request sent upstream: memory fields removed, context injected."""
        data = self.body.model_dump(exclude_unset=True, exclude=MEMORY_FIELDS)
        data["model"], data["stream"] = self.body.model, self.body.stream
        if self.bundle is not None:
            data["messages"] = inject_context(self.bundle, self.body.messages)
        return data

    def store(self, assistant: str | None, *, incomplete: bool = False) -> None:
        """Store the user turn and the assistant reply (if any) in one transaction; a reply
        longer than ``max_content_chars`` is cut to it and marked ``truncated``."""
        meta = self.meta
        turns: list[dict[str, Any]] = []
        if self.query.strip():
            turns.append({"role": "user", "content": self.query, "metadata": meta})
        if assistant and assistant.strip():
            extra: dict[str, Any] = {"incomplete": True} if incomplete else {}
            limit = self.mem.settings.max_content_chars
            if len(assistant) > limit:
                extra |= {"truncated": True, "original_chars": len(assistant)}
                assistant = assistant[:limit]
            turns.append({"role": "assistant", "content": assistant, "metadata": meta | extra})
        if turns:
            self.mem.add_messages(turns, user_id=self.user_id, session_id=self.session_id)
            self.state.metrics.turns.inc(len(turns))

    def hits(self) -> list[dict[str, Any]]:
        """``memory_hits``: what was recalled, in the `agent-cli` shape."""
        if self.bundle is None:
            return []
        return [
            {
                "id": i.id,
                "kind": i.kind,
                "role": i.role,
                "content": i.content,
                "created_at": i.created_at.isoformat() if i.created_at else None,
                "score": i.score,
            }
            for i in self.bundle.hits()
        ]


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
    turn = Turn(mem, body, state)
    await run_in_threadpool(turn.recall)
    headers = upstream.auth_headers(state.settings, _bearer(request))
    up = client.build_request("POST", "chat/completions", json=turn.payload(), headers=headers)
    if body.stream:
        return await _stream(state, up, turn)
    resp = await _send(state, up)
    if resp.status_code != 200:
        return _passthrough(state, resp, resp.content)
    try:
        data = resp.json()
        text = data["choices"][0]["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        state.metrics.upstream_errors.labels("bad_reply").inc()
        raise upstream.UpstreamError(f"upstream reply is not a chat completion: {exc!r}") from exc
    await run_in_threadpool(turn.store, text)
    data["memory_hits"] = turn.hits()
    return JSONResponse(data)


async def _stream(state: AppState, up: httpx.Request, turn: Turn) -> Response:
    resp = await _send(state, up, stream=True)
    if resp.status_code != 200:
        body = await resp.aread()
        await resp.aclose()
        return _passthrough(state, resp, body)
    return StreamingResponse(relay(resp, turn.store), media_type="text/event-stream")


def delta_text(data: str) -> str:
    """The assistant text of one ``chat.completion.chunk`` payload ("" when none)."""
    try:
        choices = json.loads(data).get("choices") or []
        content = choices[0].get("delta", {}).get("content") if choices else None
    except (ValueError, AttributeError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


async def relay(resp: httpx.Response, store: Callable[..., None]) -> AsyncIterator[str]:
    """Pass SSE lines through, collecting the text; store the exchange before relaying
    ``[DONE]`` (a stream that ends without one is stored ``incomplete``)."""
    parts: list[str] = []
    stored = False
    try:
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data == "[DONE]" and not stored:
                    await run_in_threadpool(store, "".join(parts))
                    stored = True
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
