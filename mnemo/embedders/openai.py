"""Embeddings from any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

The base URL may be given with or without its version: if the URL's path does not end in
``/v1``, ``/v1`` is appended (``http://host:8080`` and ``http://host:8080/v1`` both give
``http://host:8080/v1/embeddings``). Timeouts, connection errors, HTTP 408, 429 and 5xx are
retried with exponential backoff and jitter (a numeric ``Retry-After`` header is honoured);
when retries run out :class:`~mnemo.errors.EmbeddingTransientError` (an EmbeddingError and a
TransientError) is raised. Any other failure, including a malformed response, raises
:class:`~mnemo.errors.EmbeddingError` at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from mnemo.embedders.base import Embedder
from mnemo.errors import EmbeddingError, EmbeddingTransientError
from mnemo.http_retry import (
    BACKOFF_CAP_S,
    RetryPolicy,
    endpoint_url,
    excerpt,
    post_with_retries,
    server_message,
)
from mnemo.redact import mask_credentials

__all__ = ["BACKOFF_CAP_S", "OpenAIEmbedder", "embeddings_url"]


def embeddings_url(base_url: str) -> str:
    """The embeddings endpoint of ``base_url``: ``/v1`` is appended unless the path ends in it."""
    return endpoint_url(base_url, "embeddings")


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


class OpenAIEmbedder(Embedder):
    """Client of an OpenAI-compatible embeddings API (OpenAI, vLLM, Ollama, LiteLLM, ...).

    ``dim`` is the expected vector size; when omitted it is learned from the first response.
    ``sleep`` waits between retries and exists so tests need not wait.
    """

    def __init__(
        self,
        base_url: str,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 30.0,
        max_retries: int = 3,
        dim: int | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = embeddings_url(base_url)
        #: The URL as messages show it (credentials masked).
        self.shown = mask_credentials(self.url)
        self.model = model
        self.id = f"openai:{model}"
        self.batch_size = batch_size
        self.max_retries = max_retries
        self._dim = dim
        self._sleep = sleep
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s), headers=headers, transport=transport
        )

    @property
    def dim(self) -> int:
        """Vector size: as given, else learned from the first response (probing if needed)."""
        if self._dim is None:
            self.embed_batch(["dim probe"])
        assert self._dim is not None
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        """Fix the expected vector size (responses of another size are then rejected)."""
        self._dim = value

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in one request; returns float32 rows in input order, unnormalised."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        body = self._post({"model": self.model, "input": list(texts), "encoding_format": "float"})
        vectors = self._parse(body, len(texts))
        if self._dim is None:
            self._dim = vectors.shape[1]
        elif vectors.shape[1] != self._dim:
            raise EmbeddingError(
                f"{self.shown} returned {vectors.shape[1]}-d vectors, expected {self._dim}"
            )
        return vectors

    def _post(self, payload: dict[str, Any]) -> Any:
        """POST ``payload``, retrying transient failures; returns the decoded JSON body."""
        policy = RetryPolicy(
            self.max_retries, EmbeddingTransientError, EmbeddingError, sleep=self._sleep
        )
        response = post_with_retries(self._client, self.url, payload, policy)
        status = response.status_code
        if not 200 <= status < 300:
            raise EmbeddingError(f"POST {self.shown} -> HTTP {status}: {server_message(response)}")
        try:
            return response.json()
        except ValueError:
            raise EmbeddingError(
                f"POST {self.shown} returned invalid JSON: {excerpt(response.text)!r}"
            ) from None

    def _parse(self, body: Any, expected: int) -> np.ndarray:
        """Validate an embeddings response and return its vectors sorted by ``index``."""
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise EmbeddingError(f"{self.shown} response has no 'data' list: {excerpt(str(body))}")
        if len(data) != expected:
            raise EmbeddingError(
                f"{self.shown} returned {len(data)} embeddings for {expected} texts"
            )
        rows: list[tuple[int, list[float]]] = []
        for pos, item in enumerate(data):
            emb = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(emb, list) or not emb or not all(_is_number(x) for x in emb):
                raise EmbeddingError(
                    f"{self.shown} item {pos}: 'embedding' is not a list of floats"
                )
            index = item.get("index", pos)
            if not isinstance(index, int) or isinstance(index, bool):
                raise EmbeddingError(f"{self.shown} item {pos}: 'index' is not an integer")
            rows.append((index, emb))
        rows.sort(key=lambda row: row[0])
        if [index for index, _ in rows] != list(range(expected)):
            raise EmbeddingError(f"{self.shown} returned indices that are not 0..{expected - 1}")
        if len({len(emb) for _, emb in rows}) != 1:
            raise EmbeddingError(f"{self.shown} returned vectors of different lengths")
        vectors = np.asarray([emb for _, emb in rows], dtype=np.float32)
        if not np.isfinite(vectors).all():
            raise EmbeddingError(f"{self.shown} returned non-finite values")
        return vectors

    def close(self) -> None:
        """Close the HTTP client and its connections."""
        self._client.close()
