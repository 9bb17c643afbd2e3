"""A chat client for any OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint.

Works with OpenAI, Ollama, vLLM and llama.cpp. Transient failures (timeouts, connection
errors, 408, 429 honouring ``Retry-After``, 5xx) are retried with backoff; when the retries
run out :class:`~mnemo.errors.LLMTransientError` is raised. Any other HTTP error or a malformed
response body raises :class:`~mnemo.errors.LLMError`.

JSON output (``json=True``): the request carries ``response_format={"type": "json_object"}``;
with a ``schema`` (:class:`~mnemo.llm.base.JsonSchema`) it carries
``{"type": "json_schema", ...}`` instead, so a server with structured output (llama.cpp,
Ollama, vLLM, OpenAI) constrains the answer to it. A server that rejects the format (HTTP
400/422 naming ``response_format`` or ``json_schema``) gets the request again one step down,
schema -> ``json_object`` -> no format, and the client remembers the step. The answer is
parsed strictly, then leniently (code fences, prose around the object); if that fails too, one
follow-up request asks for only valid JSON, and a second failure raises
:class:`~mnemo.errors.LLMOutputError`. Usage of both requests is summed. An answer cut at
``max_tokens`` (``finish_reason`` "length") is logged as such.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from mnemo.config.settings import Settings
from mnemo.errors import LLMError, LLMOutputError, LLMTransientError, ValidationError
from mnemo.http_retry import RetryPolicy, endpoint_url, excerpt, post_with_retries, server_message
from mnemo.llm.base import ChatResult, JsonSchema, Usage
from mnemo.llm.json_output import parse_json_output
from mnemo.llm.prompts import load_prompt
from mnemo.redact import mask_credentials

log = logging.getLogger("mnemo.llm")

Messages = list[dict[str, str]]


def rejects_response_format(response: httpx.Response) -> bool:
    """True when a 400/422 answer complains about the ``response_format`` parameter (or the
    ``json_schema`` in it)."""
    if response.status_code not in (400, 422):
        return False
    text = response.text.lower()
    return any(w in text for w in ("response_format", "response format", "json_schema"))


def _check_messages(messages: Any) -> Messages:
    if not isinstance(messages, list) or not messages:
        raise ValidationError("messages must be a non-empty list of {role, content} dicts")
    for i, m in enumerate(messages):
        ok = isinstance(m, dict) and isinstance(m.get("role"), str)
        if not ok or not isinstance(m.get("content"), str):
            raise ValidationError(f"messages[{i}] must be a dict with string role and content")
    return messages


def _with_json_instruction(messages: Messages) -> Messages:
    """``messages``, with a short system line first unless one of them mentions JSON.

    OpenAI refuses ``json_object`` mode when no message contains the word "json".
    """
    if any("json" in m["content"].lower() for m in messages):
        return messages
    return [{"role": "system", "content": load_prompt("json_system").strip()}, *messages]


@dataclass(frozen=True)
class _Ask:
    """What one ``complete`` call asks for besides its messages."""

    json: bool
    schema: JsonSchema | None
    temperature: float
    max_tokens: int | None


class LLMClient:
    """Client of an OpenAI-compatible chat completions API; implements ``ChatModel``.

    ``json_mode`` is None until a JSON request was made, then whether the server accepted
    ``response_format``; ``schema_mode`` is the same for a ``json_schema`` format. ``sleep``
    waits between retries and exists so tests need not wait.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_cap_s: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = endpoint_url(base_url, "chat/completions")
        #: The URL as messages show it (credentials masked).
        self.shown = mask_credentials(self.url)
        self.model = model
        self.json_mode: bool | None = None
        self.schema_mode: bool | None = None
        self._policy = RetryPolicy(
            max_retries, LLMTransientError, LLMError, cap_s=backoff_cap_s, sleep=sleep
        )
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s), headers=headers, transport=transport
        )

    def complete(
        self,
        messages: Messages,
        *,
        json: bool = False,
        schema: JsonSchema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Answer ``messages``; with ``json=True`` or a ``schema`` the parsed object or array is
        in ``data``."""
        messages = _check_messages(messages)
        ask = _Ask(json or schema is not None, schema, temperature, max_tokens)
        if ask.json:
            messages = _with_json_instruction(messages)
        text, usage, model = self._chat(messages, ask)
        if not ask.json:
            return ChatResult(text, None, usage, model)
        try:
            return ChatResult(text, parse_json_output(text), usage, model)
        except ValueError:
            log.info("%s answered invalid JSON; asking once more: %r", self.shown, excerpt(text))
        repair = [
            *messages,
            {"role": "assistant", "content": text},
            {"role": "user", "content": load_prompt("json_repair").strip()},
        ]
        text, more, model = self._chat(repair, ask)
        usage += more
        try:
            return ChatResult(text, parse_json_output(text), usage, model)
        except ValueError:
            raise LLMOutputError(
                f"{self.shown} ({self.model}) answered invalid JSON twice: {excerpt(text)!r}"
            ) from None

    def _format(self, ask: _Ask) -> dict[str, Any] | None:
        """The ``response_format`` to send: the schema, else ``json_object``, else none, each
        skipped once the server rejected it."""
        if ask.schema is not None and self.schema_mode is not False:
            return ask.schema.response_format()
        if ask.json and self.json_mode is not False:
            return {"type": "json_object"}
        return None

    def _chat(self, messages: Messages, ask: _Ask) -> tuple[str, Usage, str]:
        """One chat request (retried when transient): answer text, usage and model."""
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": ask.temperature,
        }
        if ask.max_tokens is not None:
            payload["max_tokens"] = ask.max_tokens
        fmt = self._format(ask)
        while True:
            if fmt is not None:
                payload["response_format"] = fmt
            response = post_with_retries(self._client, self.url, payload, self._policy)
            if fmt is None or not rejects_response_format(response):
                break
            log.warning(
                "%s rejects response_format %s (%s); trying without it from now on",
                self.shown,
                fmt["type"],
                server_message(response),
            )
            if fmt["type"] == "json_schema":
                self.schema_mode = False
            else:
                self.json_mode = False
            payload.pop("response_format")
            fmt = self._format(ask)
        if fmt is not None and response.is_success:
            if fmt["type"] == "json_schema":
                self.schema_mode = True
            else:
                self.json_mode = True
        if not response.is_success:
            raise LLMError(
                f"POST {self.shown} -> HTTP {response.status_code}: {server_message(response)}"
            )
        return self._parse(response)

    def _parse(self, response: httpx.Response) -> tuple[str, Usage, str]:
        """Answer text, usage and model of a successful chat completion response."""
        try:
            body = response.json()
        except ValueError:
            raise LLMError(
                f"{self.shown} returned a body that is not JSON: {excerpt(response.text)!r}"
            ) from None
        choices = body.get("choices") if isinstance(body, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise LLMError(
                f"{self.shown} response has no choices[0].message.content: {excerpt(str(body))}"
            )
        if isinstance(first, dict) and first.get("finish_reason") == "length":
            log.info("%s stopped at max_tokens: %r", self.shown, excerpt(content))
        model = body.get("model")
        return content, Usage.from_response(body.get("usage")), model or self.model

    def close(self) -> None:
        """Close the HTTP client and its connections."""
        self._client.close()


def create_chat_model(settings: Settings) -> LLMClient | None:
    """The configured chat model, or None when ``llm_base_url`` is unset (rules only)."""
    if not settings.llm_base_url:
        return None
    return LLMClient(
        settings.llm_base_url,
        settings.llm_model,
        settings.llm_api_key,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        backoff_cap_s=settings.llm_backoff_cap_s,
    )


__all__ = ["LLMClient", "create_chat_model", "rejects_response_format"]
