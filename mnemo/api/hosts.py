"""Who may use the open server: local clients, through a ``Host`` that is ours.

A server without API keys listens on loopback only (:func:`mnemo.api.auth.check_bind`). Two
checks hold that line on every request while it runs open (with keys, the key is the
protection and neither applies):

* the client's address must be loopback (or a Unix socket): a server started some other way
  (``uvicorn --factory ... --host 0.0.0.0``) still serves no one else;
* DNS rebinding: a web page can reach a loopback server when its attacker-controlled name
  re-resolves to 127.0.0.1, and the browser then sends ``Host: attacker.example``. So the
  ``Host`` must be ``localhost`` or a loopback address (any port), or one of the names in
  ``allowed_hosts``.
"""

from __future__ import annotations

from mnemo.api.auth import is_loopback
from mnemo.errors import MnemoError


class HostRefused(MnemoError):
    """The open server was asked by a remote client, or for a ``Host`` it does not answer
    for (HTTP 403)."""

    http_status = 403
    error_type = "forbidden_host"


def parse_allowed(value: str) -> frozenset[str]:
    """``allowed_hosts`` (comma-separated names) as lower-case names without ports."""
    return frozenset(name for part in value.split(",") if (name := host_name(part)))


def host_name(header: str) -> str:
    """The name of a ``Host`` header without its port: ``[::1]:8000`` -> ``::1``,
    ``LocalHost:80`` -> ``localhost``; a trailing dot is dropped."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") == 1:
        value = value.partition(":")[0]
    return value.rstrip(".")


def check_client(address: str | None) -> None:
    """HostRefused unless the client's address is loopback (None: a Unix socket)."""
    if address is None or is_loopback(address):
        return
    raise HostRefused(
        f"this server has no API keys and serves only local clients, not {address}"
        " (create an API key to serve others)"
    )


def check_host(header: str | None, allowed: frozenset[str]) -> None:
    """HostRefused unless ``header`` names loopback or one of ``allowed``."""
    name = host_name(header or "")
    if name and (is_loopback(name) or name in allowed):
        return
    raise HostRefused(
        f"this server has no API keys and answers only for localhost, not Host {header!r:.80}"
        " (add the name to allowed_hosts, or create an API key)"
    )


__all__ = ["HostRefused", "check_client", "check_host", "host_name", "parse_allowed"]
