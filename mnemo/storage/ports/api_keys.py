"""The API-keys port: key hashes at rest, each mapped to a tenant."""

from __future__ import annotations

from typing import Any, Protocol


class ApiKeys(Protocol):
    """The ``api_keys`` table of a store."""

    def add(self, key_id: str, tenant: str, name: str | None, key_hash: str) -> dict[str, Any]:
        """Insert a key (its hash only) and return its public record."""
        ...

    def tenant_of(self, key_hash: str) -> str | None:
        """The tenant of a live (not revoked) key with this hash, or None."""
        ...

    def any_live(self) -> bool:
        """True when at least one key is not revoked."""
        ...

    def list(self) -> list[dict[str, Any]]:
        """Every key's public record (never the hash), oldest first."""
        ...

    def revoke(self, key_id: str) -> bool:
        """Revoke a key; False when no live key has this id."""
        ...


class KeyHolder(Protocol):
    """A store that keeps API keys."""

    @property
    def api_keys(self) -> ApiKeys:
        """The store's key table."""
        ...


__all__ = ["ApiKeys", "KeyHolder"]
