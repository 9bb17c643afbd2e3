"""`llmplatform`'s ``POST /query``: intent, memory bundle, answer (LLM or rules), stored turns."""

from __future__ import annotations

import logging
from typing import Any

import httpx
from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from mnemo.api import intent as intents
from mnemo.api import upstream
from mnemo.api.deps import AppState, MemoryDep, StateDep
from mnemo.api.models import ErrorBody, QueryRequest, QueryResponse
from mnemo.context.render import memory_context
from mnemo.schemas import ContextBundle, ContextItem

log = logging.getLogger("mnemo.api")
router = APIRouter(tags=["query"], responses={c: {"model": ErrorBody} for c in (401, 422)})

SYSTEM = "You are a helpful assistant. Use the user's memory below when it is relevant."


def rule_answer(query: str, intent: str, items: list[ContextItem]) -> str:
    """An answer from memory alone: the recalled facts and turns, or a plain reply."""
    if intent == "greeting":
        return "Hello! How can I help you today?"
    facts = [i for i in items if i.kind in ("profile", "fact", "note")]
    turns = [i for i in items if i.kind not in ("profile", "fact", "note", "query")]
    lines = [f"- {i.content}" for i in (facts + turns)[:5]]
    if not lines:
        return "I don't have anything in memory about that yet."
    return "Here is what I remember that may help:\n" + "\n".join(lines)


async def llm_answer(state: AppState, query: str, bundle: ContextBundle | None) -> str | None:
    """The upstream's answer, or None when it failed transiently (timeouts, 429, 5xx)."""
    if state.upstream is None:
        return None
    system = SYSTEM + ("\n\n" + bundle.render() if bundle and bundle.text else "")
    body = {
        "model": state.settings.llm_model,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": query}],
    }
    headers = upstream.auth_headers(state.settings, None)
    try:
        resp = await state.upstream.post("chat/completions", json=body, headers=headers)
    except httpx.HTTPError as exc:
        log.warning("/query: upstream unreachable, answering by rules: %r", exc)
        return None
    if resp.status_code == 429 or resp.status_code >= 500:
        log.warning("/query: upstream HTTP %s, answering by rules", resp.status_code)
        return None
    if resp.status_code != 200:
        raise upstream.UpstreamError(f"upstream refused /query: HTTP {resp.status_code}")
    try:
        return str(resp.json()["choices"][0]["message"]["content"] or "")
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise upstream.UpstreamError(f"upstream reply is not a chat completion: {exc!r}") from exc


@router.post("/query", response_model=QueryResponse)
async def query(body: QueryRequest, mem: MemoryDep, state: StateDep) -> QueryResponse:
    """Answer a query with the user's memory (`llmplatform`), and store the exchange."""
    found = await run_in_threadpool(intents.detect, body.query, mem.embedder, body.use_memory)
    bundle = None
    if body.use_memory:  # the seed's flow: memory whenever asked; the intent is only reported
        bundle = await run_in_threadpool(
            lambda: mem.context(
                body.query,
                body.user_id,
                body.session_id,
                mem.settings.context_budget_tokens,
                location=body.location,
                top_k=body.top_k,
            )
        )
    items = bundle.hits() if bundle else []
    answer = await llm_answer(state, body.query, bundle)
    by = "llm" if answer is not None else "rules"
    text = answer if answer is not None else rule_answer(body.query, found.name, items)
    turns: list[dict[str, Any]] = [
        {"role": "user", "content": body.query, "metadata": {"source": "query"}},
        {"role": "assistant", "content": text, "metadata": {"source": "query", "by": by}},
    ]
    await run_in_threadpool(mem.add_messages, turns, body.user_id, body.session_id)
    state.metrics.turns.inc(2)
    agents = ["coordinator", *(["memory"] if bundle is not None else []), "writer"]
    return QueryResponse(
        response=text,
        citations=[
            {"id": i.id, "kind": i.kind, "content": i.content, "score": i.score}
            for i in items
            if i.score is not None
        ],
        memory_context=memory_context(bundle) if bundle else {},
        intent=found.name,
        agents_used=agents,
        need_memory=found.need_memory,
        memory_reason=found.reason,
        answered_by=by,
    )
