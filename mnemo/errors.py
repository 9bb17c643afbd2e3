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
:attr:`MnemoError.error_type`), so the REST API, the MCP endpoint and the web UI map an error
to a status in one way; a subclass that says nothing inherits its parent's.

Input errors are raised before anything is written, so a rejected call changes nothing.
"""

from __future__ import annotations

from typing import ClassVar


class MnemoError(Exception):
    """Base class of every error mnemo raises on purpose."""

    #: The HTTP status a server answers this error with (500 unless a subclass says more).
    http_status: ClassVar[int] = 500
    #: The ``error.type`` of the REST API's JSON error body.
    error_type: ClassVar[str] = "internal_error"


class ConfigError(MnemoError):
    """A setting is unknown, missing or has a value of the wrong form."""

    http_status = 400
    error_type = "config_error"


class ValidationError(MnemoError, ValueError):
    """Caller input was rejected; nothing was written."""

    http_status = 422
    error_type = "invalid_request"


class NotFoundError(MnemoError, KeyError):
    """An id names no live memory or message."""

    http_status = 404
    error_type = "not_found"

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable.
        return str(self.args[0]) if self.args else "not found"


class StorageError(MnemoError):
    """The storage backend failed or returned something unexpected."""

    http_status = 503
    error_type = "storage_error"


class SchemaError(StorageError):
    """The database schema is newer than this mnemo, or incompatible with its settings."""

    http_status = 409
    error_type = "schema_error"


class TransientError(MnemoError):
    """A retryable network failure: timeout, connection error, HTTP 429 or 5xx."""

    http_status = 503
    error_type = "unavailable"


class EmbeddingError(MnemoError):
    """An embedder could not embed the given texts."""

    http_status = 502
    error_type = "embedding_error"


class EmbeddingTransientError(EmbeddingError, TransientError):
    """An embedding request failed on a timeout, connection error, 429 or 5xx after its
    retries."""

    http_status = TransientError.http_status
    error_type = TransientError.error_type


class LLMError(MnemoError):
    """The chat model could not be reached usefully or rejected the request."""


class LLMTransientError(LLMError, TransientError):
    """A chat request failed on a timeout, connection error, 429 or 5xx after its retries."""

    http_status = TransientError.http_status
    error_type = TransientError.error_type


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
