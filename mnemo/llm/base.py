"""What a chat model returns and the protocol every chat model implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass
class Usage:
    """Token usage of one or more chat requests; ``Usage()`` is zero and ``a + b`` sums.

    >>> (Usage(3, 2, 5) + Usage(1, 1, 2)).as_dict()
    {'prompt_tokens': 4, 'completion_tokens': 3, 'total_tokens': 7}
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
        )

    def as_dict(self) -> dict[str, int]:
        """The three counts keyed by their OpenAI names."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }

    @classmethod
    def from_response(cls, usage: Any) -> Usage:
        """Usage from a response's ``usage`` object; missing or malformed counts are 0.

        ``total_tokens`` defaults to prompt + completion when the server leaves it out.
        """
        if not isinstance(usage, dict):
            return cls()

        def count(key: str) -> int:
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
            return 0

        prompt, completion = count("prompt_tokens"), count("completion_tokens")
        return cls(prompt, completion, count("total_tokens") or prompt + completion)


@dataclass
class ChatResult:
    """One answer: its text, the parsed JSON when JSON was asked for, usage and model."""

    text: str
    data: Any | None
    usage: Usage
    model: str


@dataclass(frozen=True)
class JsonSchema:
    """The JSON Schema an answer must follow, under a name (OpenAI's ``json_schema`` format).

    Servers that support structured output (OpenAI, llama.cpp's server, Ollama, vLLM) constrain
    the answer to ``schema``; the answer is validated by its caller all the same.

    >>> JsonSchema("facts", {"type": "object"}).response_format()["type"]
    'json_schema'
    """

    name: str
    schema: dict[str, Any]

    def response_format(self) -> dict[str, Any]:
        """The ``response_format`` value of a chat request that asks for this schema."""
        body = {"name": self.name, "schema": self.schema, "strict": True}
        return {"type": "json_schema", "json_schema": body}


class ChatModel(Protocol):
    """A chat model: OpenAI-style messages in, one assistant answer out."""

    model: str

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        json: bool = False,
        schema: JsonSchema | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Answer ``messages``; with ``json=True`` (or a ``schema``) the answer is parsed into
        ``data``."""
        ...


__all__ = ["ChatModel", "ChatResult", "JsonSchema", "Usage"]
