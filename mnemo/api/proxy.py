"""The OpenAI-compatible memory proxy: ``POST /v1/chat/completions`` and ``GET /v1/models``.

Per request: recall the context of the last user message (the OpenAI ``user`` field is the
user id, `agent-cli`'s ``memory_id`` the session), inject it as the preset says, forward to the
upstream, and store the turn. Non-streaming replies get ``memory_hits``. Streaming replies are
passed through event by event; the user turn is stored before the first byte and the assistant
text when the stream ends (before ``[DONE]`` is relayed). A client that disconnects mid-stream
still gets its partial assistant text stored, marked ``incomplete``.
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
    memory_top_k: int | None = Field(None, ge=0, le=100, description="0 skips retrieval.")
    memory_recency_weight: float | None = Field(None, ge=0, le=1)
    memory_score_threshold: float | None = Field(None, ge=0, le=1)


class Turn:
    """The turn being proxied: where it is stored and what was recalled for it."""

    def __init__(self, mem: Memory, body: ChatRequest, state: AppState) -> None:
        self.mem, self.body, self.state = mem, body, state
        self.user_id = check.identifier(body.user or "default", "user")
        self.session_id = check.identifier(body.memory_id or "default", "memory_id")
        self.query = last_user_text(body.messages)
        self.bundle: ContextBundle | None = None

    def recall(self) -> None:
        """Assemble the context of the last user message (nothing when it is empty)."""
        if not self.query.strip():
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

    def store(self, assistant: str | None, *, with_user: bool, incomplete: bool = False) -> None:
        """Store the user turn and/or the assistant reply in one transaction."""
        meta: dict[str, Any] = {"source": "proxy", "model": self.body.model}
        turns = []
        if with_user and self.query.strip():
            turns.append({"role": "user", "content": self.query, "metadata": meta})
        if assistant:
            extra = {"incomplete": True} if incomplete else {}
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


def _passthrough(resp: httpx.Response, body: bytes) -> Response:
    ctype = resp.headers.get("content-type", "application/json")
    return Response(content=body, status_code=resp.status_code, media_type=ctype)


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
        return _passthrough(resp, resp.content)
    try:
        data = resp.json()
        text = data["choices"][0]["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        state.metrics.upstream_errors.labels("bad_reply").inc()
        raise upstream.UpstreamError(f"upstream reply is not a chat completion: {exc!r}") from exc
    await run_in_threadpool(turn.store, text, with_user=True)
    data["memory_hits"] = turn.hits()
    return JSONResponse(data)


async def _stream(state: AppState, up: httpx.Request, turn: Turn) -> Response:
    resp = await _send(state, up, stream=True)
    if resp.status_code != 200:
        body = await resp.aread()
        await resp.aclose()
        return _passthrough(resp, body)
    try:
        await run_in_threadpool(turn.store, None, with_user=True)
    except BaseException:
        await resp.aclose()
        raise
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
    """Pass SSE lines through, collecting the text; store it before relaying ``[DONE]``."""
    parts: list[str] = []
    stored = False
    try:
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data == "[DONE]" and not stored:
                    await run_in_threadpool(store, "".join(parts), with_user=False)
                    stored = True
                elif data != "[DONE]":
                    parts.append(delta_text(data))
            yield line + "\n"
        if not stored:
            await run_in_threadpool(store, "".join(parts), with_user=False)
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
        store(text, with_user=False, incomplete=True)
    except Exception:  # a background write has no caller to raise to; record it
        log.exception("could not store a partial assistant turn")


@router.get("/v1/models", response_model=None)
async def models(request: Request, who: CallerDep, state: StateDep) -> Response:
    """The upstream's model list, passed through."""
    client = upstream.require(state.upstream)
    headers = upstream.auth_headers(state.settings, _bearer(request))
    resp = await _send(state, client.build_request("GET", "models", headers=headers))
    return _passthrough(resp, resp.content)
