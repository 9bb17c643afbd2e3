"""Who a UI request is, and whether a form it posts may be trusted.

Credentials are read as the REST API reads them (``X-API-Key`` or ``Authorization: Bearer``),
plus, for the UI only, the key a person typed into the login form, kept in an HttpOnly,
``SameSite=Strict`` cookie scoped to the UI's path. :data:`Authenticate` (the REST API's own
key-to-tenant rule, wired in by ``mnemo.cli``) turns them into an :class:`Identity`.

Forms are protected against cross-site request forgery three ways: the cookie is never sent
on a cross-site request (``SameSite=Strict``); every form carries a token,
``hex(HMAC-SHA256(secret, identity))``, that only a page of this server shows; and a POST whose
``Origin`` is another site (or whose ``Sec-Fetch-Site`` is ``cross-site``) is refused. An open
server (no API keys, loopback only) answers only to a loopback ``Host``, so a page of another
site that a DNS rebinding pointed at 127.0.0.1 cannot read a token.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import Request

from mnemo.errors import MnemoError
from mnemo.memory.facade import Memory

COOKIE = "mnemo_ui_key"
CSRF_FIELD = "csrf"


@dataclass(frozen=True)
class Identity:
    """An authenticated caller: its tenant, and whether a mnemo API key proved it."""

    tenant: str
    by_key: bool


#: ``(X-API-Key or cookie, bearer token) -> Identity``; raises MnemoError when refused.
Authenticate = Callable[[str | None, str | None], Identity]
#: The Memory of a tenant.
MemoryFor = Callable[[str], Memory]


class LoginRequired(Exception):
    """The request carries no credential the server accepts (the login page follows)."""


class Forbidden(Exception):
    """A request the UI refuses: a forged or stale form, or an open server reached by a
    name that is not loopback (HTTP 403)."""


@dataclass
class Viewer:
    """The authenticated side of a UI request: the tenant's Memory and the form token."""

    tenant: str
    memory: Memory
    csrf: str
    by_key: bool
    by_cookie: bool


def credentials(request: Request) -> tuple[str | None, str | None, bool]:
    """``(api key, bearer token, from the cookie)``: headers first, then the login cookie."""
    api_key = request.headers.get("x-api-key") or None
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    if api_key is None and bearer is None:
        cookie = request.cookies.get(COOKIE)
        if cookie:
            return cookie, None, True
    return api_key, bearer, False


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback addresses, with or without a port."""
    name = urlsplit(f"//{host}").hostname or ""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def same_origin(request: Request) -> bool:
    """False when the browser says the request comes from another site: an ``Origin`` header
    naming another scheme, host or port than this request's, or ``Sec-Fetch-Site:
    cross-site``. Clients that send neither (curl, scripts) pass."""
    if request.headers.get("sec-fetch-site") == "cross-site":
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    return origin.lower() == own.lower()


class Gate:
    """Authentication and form tokens of one UI app (its ``secret`` lives as long as it)."""

    def __init__(self, authenticate: Authenticate, memory_for: MemoryFor, secret: bytes) -> None:
        self.authenticate = authenticate
        self.memory_for = memory_for
        self.secret = secret

    def token(self, identity: str) -> str:
        """The form token of ``identity``: ``hex(HMAC-SHA256(secret, identity))``."""
        return hmac.new(self.secret, identity.encode("utf-8"), hashlib.sha256).hexdigest()

    def viewer(self, request: Request) -> Viewer:
        """The caller of ``request``; LoginRequired without an accepted credential, Forbidden
        for an open server reached by a name that is not loopback."""
        api_key, bearer, by_cookie = credentials(request)
        try:
            who = self.authenticate(api_key, bearer)
        except MnemoError as exc:
            raise LoginRequired(str(exc)) from None
        if not who.by_key and not is_loopback_host(request.headers.get("host", "")):
            raise Forbidden("this server has no API keys, so it answers only on a loopback name")
        secret = api_key or bearer
        identity = (
            f"key:{hashlib.sha256(secret.encode()).hexdigest()}"
            if who.by_key and secret
            else f"open:{who.tenant}"
        )
        return Viewer(
            tenant=who.tenant,
            memory=self.memory_for(who.tenant),
            csrf=self.token(identity),
            by_key=who.by_key,
            by_cookie=by_cookie,
        )

    def check_form(self, request: Request, fields: dict[str, str], expected: str) -> None:
        """Forbidden unless the form came from this site with the token ``expected``."""
        if not same_origin(request):
            raise Forbidden("this form was sent from another site")
        given = fields.get(CSRF_FIELD, "")
        if not hmac.compare_digest(given.encode(), expected.encode()):
            raise Forbidden("this form has expired or was not made by this server; reload it")


__all__ = [
    "COOKIE",
    "CSRF_FIELD",
    "Authenticate",
    "Forbidden",
    "Gate",
    "Identity",
    "LoginRequired",
    "MemoryFor",
    "Viewer",
    "credentials",
    "is_loopback_host",
    "same_origin",
]
