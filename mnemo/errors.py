"""The exceptions mnemo raises.

Every error mnemo raises on purpose is a :class:`MnemoError`, so callers can catch one type::

    MnemoError
    ├── ConfigError           a setting is missing, unknown or malformed
    ├── ValidationError       caller input is wrong (also a ValueError)
    ├── NotFoundError         an id names no live row (also a KeyError)
    ├── StorageError          the database failed or holds something unexpected
    │   └── SchemaError       the database was written by a newer mnemo, or its embedder changed
    ├── TransientError        a network failure worth retrying (timeouts, 429, 5xx)
    ├── EmbeddingError        an embedder could not produce vectors
    │   └── EmbeddingTransientError  an embedder's network failure (also a TransientError)
    └── LLMError              the chat model failed or answered unusably
        ├── LLMTransientError a network failure after retries (also a TransientError)
        └── LLMOutputError    JSON output still unparseable after one repair attempt

``except TransientError`` catches transient embedder and LLM failures alike;
``except EmbeddingError`` catches every embedder failure (its timeouts too) and no LLM failure.

Each class carries the HTTP answer the servers give it (:attr:`MnemoError.http_status` and
:attr:`MnemoError.error_type`, named in its header: ``class StorageError(MnemoError,
http_status=503, error_type="storage_error")``), so the REST API, the MCP endpoint and the web UI
map an error to a status in one way; a subclass that says nothing inherits its parent's. A
transient failure names :class:`TransientError` as its first parent, so it answers as one
(503 ``unavailable``) whichever component failed.

Input errors are raised before anything is written, so a rejected call changes nothing.
"""

from __future__ import annotations

from typing import Any, ClassVar


class MnemoError(Exception):
    """Base class of every error mnemo raises on purpose."""

    #: The HTTP status a server answers this error with (500 unless a subclass says more).
    http_status: ClassVar[int] = 500
    #: The ``error.type`` of the REST API's JSON error body.
    error_type: ClassVar[str] = "internal_error"

    def __init_subclass__(
        cls, *, http_status: int | None = None, error_type: str | None = None, **kwargs: Any
    ) -> None:
        """Give the subclass the HTTP answer its header names (``class X(MnemoError,
        http_status=404, error_type="not_found")``); what it leaves out it inherits."""
        super().__init_subclass__(**kwargs)
        if http_status is not None:
            cls.http_status = http_status
        if error_type is not None:
            cls.error_type = error_type


class ConfigError(MnemoError, http_status=400, error_type="config_error"):
    """A setting is unknown, missing or has a value of the wrong form."""


class ValidationError(MnemoError, ValueError, http_status=422, error_type="invalid_request"):
    """Caller input was rejected; nothing was written."""


class NotFoundError(MnemoError, KeyError, http_status=404, error_type="not_found"):
    """An id names no live memory or message."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable.
        return str(self.args[0]) if self.args else "not found"


class StorageError(MnemoError, http_status=503, error_type="storage_error"):
    """The storage backend failed or returned something unexpected."""


class SchemaError(StorageError, http_status=409, error_type="schema_error"):
    """The database schema is newer than this mnemo, or incompatible with its settings."""


class TransientError(MnemoError, http_status=503, error_type="unavailable"):
    """A retryable network failure: timeout, connection error, HTTP 429 or 5xx."""


class EmbeddingError(MnemoError, http_status=502, error_type="embedding_error"):
    """An embedder could not embed the given texts."""


class EmbeddingTransientError(TransientError, EmbeddingError):
    """An embedding request failed on a timeout, connection error, 429 or 5xx after its
    retries."""


class LLMError(MnemoError):
    """The chat model could not be reached usefully or rejected the request."""


class LLMTransientError(TransientError, LLMError):
    """A chat request failed on a timeout, connection error, 429 or 5xx after its retries."""


class LLMOutputError(LLMError):
    """The chat model's JSON output was still unparseable after one repair attempt."""


__all__ = [
    "ConfigError",
    "EmbeddingError",
    "EmbeddingTransientError",
    "LLMError",
    "LLMOutputError",
    "LLMTransientError",
    "MnemoError",
    "NotFoundError",
    "SchemaError",
    "StorageError",
    "TransientError",
    "ValidationError",
]
