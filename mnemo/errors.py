"""The exceptions mnemo raises.

Every error mnemo raises on purpose is a :class:`MnemoError`, so callers can catch one type::

    MnemoError
    ├── ConfigError           a setting is missing, unknown or malformed
    ├── ValidationError       caller input is wrong (also a ValueError)
    ├── NotFoundError         an id names no live row (also a KeyError)
    ├── StorageError          the database failed or holds something unexpected
    │   └── SchemaError       the database was written by a newer mnemo, or its embedder changed
    ├── EmbeddingError        an embedder could not produce vectors
    │   └── TransientError    a network failure worth retrying (timeouts, 429, 5xx)
    └── LLMError              the chat model failed or answered unusably
        ├── LLMTransientError a network failure after retries (also a TransientError)
        └── LLMOutputError    JSON output still unparseable after one repair attempt

``except TransientError`` catches transient embedder and LLM failures alike.

Input errors are raised before anything is written, so a rejected call changes nothing.
"""

from __future__ import annotations


class MnemoError(Exception):
    """Base class of every error mnemo raises on purpose."""


class ConfigError(MnemoError):
    """A setting is unknown, missing or has a value of the wrong form."""


class ValidationError(MnemoError, ValueError):
    """Caller input was rejected; nothing was written."""


class NotFoundError(MnemoError, KeyError):
    """An id names no live memory or message."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable.
        return str(self.args[0]) if self.args else "not found"


class StorageError(MnemoError):
    """The storage backend failed or returned something unexpected."""


class SchemaError(StorageError):
    """The database schema is newer than this mnemo, or incompatible with its settings."""


class EmbeddingError(MnemoError):
    """An embedder could not embed the given texts."""


class TransientError(EmbeddingError):
    """A retryable network failure: timeout, connection error, HTTP 429 or 5xx."""


class LLMError(MnemoError):
    """The chat model could not be reached usefully or rejected the request."""


class LLMTransientError(LLMError, TransientError):
    """A chat request failed on a timeout, connection error, 429 or 5xx after its retries."""


class LLMOutputError(LLMError):
    """The chat model's JSON output was still unparseable after one repair attempt."""


__all__ = [
    "ConfigError",
    "EmbeddingError",
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
