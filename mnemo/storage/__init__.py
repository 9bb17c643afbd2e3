"""Storage backends behind the :class:`~mnemo.storage.ports.store.Store` protocol."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemo.errors import ConfigError
from mnemo.storage.base import MEMORY, MESSAGE, Ref
from mnemo.storage.ports.store import Store

if TYPE_CHECKING:
    from mnemo.config.settings import Settings


def open_store(settings: Settings) -> Store:
    """The store the settings select: PostgreSQL when ``database_url`` is set, else SQLite."""
    if settings.database_url:
        if not settings.database_url.startswith(("postgresql://", "postgres://")):
            raise ConfigError("database_url must start with postgresql://")
        try:
            from mnemo.storage.postgres.store import PostgresStore
        except ImportError as exc:
            raise ConfigError(
                'the PostgreSQL store needs psycopg and pgvector: pip install "mnemo-ltm[postgres]"'
            ) from exc
        return PostgresStore(settings.database_url, settings.database_pool_size)
    from mnemo.storage.sqlite.store import SQLiteStore

    return SQLiteStore(settings.path, settings.busy_timeout_ms, settings.synchronous)


__all__ = ["MEMORY", "MESSAGE", "Ref", "Store", "open_store"]
