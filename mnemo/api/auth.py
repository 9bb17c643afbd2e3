"""API keys and tenants: who a request is, and which tenant's data it may touch.

A key looks like ``mnemo_<id>_<secret>``; only ``sha256(key)`` is stored (keys are random
with 256 bits of entropy, so a fast hash is enough). Each key maps to one tenant, and every
route works on the :class:`~mnemo.Memory` of that tenant, so no query can reach another
tenant's rows. With no live key the server runs open, as ``Settings.tenant``, and
:func:`check_bind` refuses any address but loopback.
"""

from __future__ import annotations

import hashlib
import ipaddress
import secrets
import threading
from dataclasses import dataclass
from typing import Any

from mnemo.config.location import new_sqlite_file
from mnemo.config.settings import Settings
from mnemo.embedders import Embedder
from mnemo.errors import ConfigError, MnemoError, ValidationError
from mnemo.memory.facade import Memory
from mnemo.storage.ports.api_keys import ApiKeys, KeyHolder
from mnemo.storage.ports.store import Store
from mnemo.validation import identifier

KEY_PREFIX = "mnemo_"
#: Where API key hashes live (``store.api_keys``).
KeyStore = ApiKeys


class AuthError(MnemoError):
    """A request carried no valid API key (HTTP 401)."""

    http_status = 401
    error_type = "unauthorized"


def key_store(store: KeyHolder) -> KeyStore:
    """The key table of a store."""
    return store.api_keys


def hash_key(key: str) -> str:
    """The stored form of a key: hex SHA-256."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_key(keys: KeyStore, tenant: str, name: str | None = None) -> tuple[str, dict[str, Any]]:
    """A new key for ``tenant``: ``(key, record)``; the key is not stored and cannot be shown
    again."""
    tenant = identifier(tenant, "tenant")
    key_id = secrets.token_hex(6)
    key = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
    return key, keys.add(key_id, tenant, name, hash_key(key))


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, keys: KeyStore) -> None:
    """ConfigError unless ``host`` is loopback or at least one API key exists."""
    if not is_loopback(host) and not keys.any_live():
        raise _no_keys(host)


def check_bind_before_open(host: str, settings: Settings) -> None:
    """:func:`check_bind`'s refusal before the store of ``settings`` is opened: a SQLite file
    that does not exist yet holds no key, so a non-loopback ``host`` is refused before opening
    the store creates the file (a refused server leaves nothing behind). An existing store
    is checked by :func:`check_bind` once opened."""
    if not is_loopback(host) and new_sqlite_file(settings.path, settings.database_url):
        raise _no_keys(host)


def _no_keys(host: str) -> ConfigError:
    return ConfigError(
        f"refusing to listen on {host} without API keys: anyone could read every memory. "
        "Create one with `mnemo keys create --tenant NAME`, or bind 127.0.0.1"
    )


@dataclass
class Caller:
    """The authenticated side of a request: its tenant, and whether a mnemo key was used."""

    tenant: str
    by_key: bool


def authenticate(
    keys: KeyStore,
    default_tenant: str,
    api_key: str | None,
    bearer: str | None,
    require_keys: bool,
) -> Caller:
    """Resolve the caller from ``X-API-Key`` or the bearer token.

    When keys exist (or ``require_keys``), a valid key is mandatory. When none exists the
    server is open: the caller is ``default_tenant`` and a bearer token is left for upstream.
    """
    for candidate in (api_key, bearer):
        if candidate and candidate.startswith(KEY_PREFIX):
            tenant = keys.tenant_of(hash_key(candidate))
            if tenant is None:
                raise AuthError("invalid or revoked API key")
            return Caller(tenant, True)
    if api_key:
        raise AuthError("invalid API key")
    if require_keys or keys.any_live():
        raise AuthError("an API key is required: X-API-Key or Authorization: Bearer mnemo_...")
    return Caller(default_tenant, False)


class Tenants:
    """One :class:`Memory` per tenant, all sharing one store and one embedder."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder) -> None:
        self.settings, self.store, self.embedder = settings, store, embedder
        self._mems: dict[str, Memory] = {}
        self._lock = threading.Lock()

    def get(self, tenant: str) -> Memory:
        """The Memory scoped to ``tenant`` (created on first use)."""
        with self._lock:
            mem = self._mems.get(tenant)
            if mem is None:
                if not tenant:
                    raise ValidationError("empty tenant")
                settings = self.settings.replace(tenant=tenant)
                mem = Memory(settings=settings, store=self.store, embedder=self.embedder)
                self._mems[tenant] = mem
            return mem

    def close(self) -> None:
        """Close the shared store and embedder once."""
        self.store.close()
        self.embedder.close()


__all__ = [
    "AuthError",
    "Caller",
    "KeyStore",
    "Tenants",
    "authenticate",
    "check_bind",
    "check_bind_before_open",
    "create_key",
    "hash_key",
    "is_loopback",
    "key_store",
]
