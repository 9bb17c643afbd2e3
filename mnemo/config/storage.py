"""Storage settings: where data lives and how the store behaves.

Names in this group: ``path``, ``database_url``, ``database_pool_size``, ``tenant``,
``busy_timeout_ms``, ``synchronous``, ``max_content_chars``, ``reembed_on_open``,
``repair_on_open``, ``max_metadata_bytes``, ``max_tags``, ``max_tag_chars``,
``idempotency_ttl_s``, ``default_ttl_seconds``, ``refresh_on_read``, ``sweep_interval_s``.
There is no common prefix: the names predate the grouping and are kept.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mnemo.config.bounds import count, positive, size
from mnemo.config.group import SettingsGroup
from mnemo.validation import MAX_METADATA_BYTES, MAX_TAG_CHARS, MAX_TAGS, MAX_TTL_SECONDS


class StorageSettings(SettingsGroup):
    """The store: SQLite file or PostgreSQL URL, tenant, limits and repair on open."""

    path: str = Field(
        "mnemo.db",
        description="SQLite database file of the embedded store; a `sqlite:///abs/path.db` or "
        "`file:` URL names that file, a `postgresql://` URL selects PostgreSQL.",
    )
    database_url: str | None = Field(
        None,
        description="postgresql://... URL; when set, PostgreSQL is used instead of SQLite "
        "(a `sqlite:///path` URL selects that SQLite file; any other scheme is refused).",
    )
    database_pool_size: int = Field(
        10, ge=1, le=1000, description="Most PostgreSQL connections one process keeps open."
    )
    tenant: str = Field("default", description="Tenant every row is written under locally.")
    reembed_on_open: bool = Field(
        False,
        description="When the store holds vectors of another embedder, re-embed them as the "
        "Memory opens (`llm-managed`) instead of raising SchemaError. Resumable if interrupted.",
    )
    repair_on_open: bool = Field(
        False,
        description="Run `llm-managed`'s sync-on-startup repair as the Memory opens: re-sync "
        "full-text rows, embed rows without a vector, restore missing users rows.",
    )
    busy_timeout_ms: int = count(
        30_000, "How long a writer waits for SQLite's lock before retrying."
    )
    synchronous: Literal["OFF", "NORMAL", "FULL", "EXTRA"] = Field(
        "FULL", description="SQLite PRAGMA synchronous; FULL survives power loss, not just kills."
    )
    max_content_chars: int = size(100_000, "Longest message or memory accepted, in characters.")
    max_metadata_bytes: int = Field(
        MAX_METADATA_BYTES,
        ge=2,
        description="Largest `metadata` object of a turn, memory or document accepted, in "
        "bytes of its UTF-8 JSON.",
    )
    max_tags: int = count(MAX_TAGS, "Most tags one memory may carry.")
    max_tag_chars: int = size(MAX_TAG_CHARS, "Longest tag accepted, in characters.")
    idempotency_ttl_s: float = positive(
        86_400,
        "How long an idempotency key (HTTP `Idempotency-Key`) is remembered, in "
        "seconds: a retry within it returns the first result and writes nothing.",
    )
    default_ttl_seconds: int | None = Field(
        None,
        gt=0,
        le=MAX_TTL_SECONDS,
        description="Time to live, in seconds, of a turn or memory written without "
        "`expires_at` or `ttl_seconds`; None: such rows never expire.",
    )
    refresh_on_read: bool = Field(
        False,
        description="A read (a search hit, `get`, `list`) of a turn or memory written with a "
        "ttl moves its expiry to now + that ttl.",
    )
    sweep_interval_s: float | None = positive(
        3600,
        "How often a worker removes expired turns and memories for good "
        "(`mnemo sweep` does it once), in seconds; None: never in the background.",
    )


__all__ = ["StorageSettings"]
