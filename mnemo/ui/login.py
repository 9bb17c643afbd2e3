"""Logging in and out: a form that checks an API key and keeps it in the UI's cookie.

The cookie is HttpOnly (no script reads it), ``SameSite=Strict`` (no other site's request
carries it), scoped to the UI's path, and ``Secure`` when the page came over HTTPS. Without API
keys the server is open and the login page only says so.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from mnemo.errors import MnemoError
from mnemo.ui.access import COOKIE, Forbidden, LoginRequired, same_origin
from mnemo.ui.deps import FormFields, gate
from mnemo.ui.render import base_path, page

router = APIRouter(include_in_schema=False)
#: The identity the login form's token is made for (nobody is logged in yet).
LOGIN_IDENTITY = "login"


def safe_next(request: Request, target: str | None) -> str:
    """Where to go after logging in: a path inside the UI, else the UI's home."""
    root = base_path(request)
    if target and target.startswith(root + "/") and not target.startswith("//"):
        return target
    return root + "/"


def _is_open(request: Request) -> bool:
    try:
        gate(request).authenticate(None, None)
    except MnemoError:
        return False
    return True


@router.get("/login")
def login_form(request: Request, next: str | None = None) -> Response:
    """The login form (or, on an open server, a note that no login is needed)."""
    token = gate(request).token(LOGIN_IDENTITY)
    return page(
        request,
        "login.html",
        None,
        login_token=token,
        next=safe_next(request, next),
        open=_is_open(request),
        error=None,
    )


@router.post("/login")
def login(request: Request, fields: FormFields) -> Response:
    """Check the key; on success keep it in the cookie and go on to ``next``."""
    g = gate(request)
    g.check_form(request, fields, g.token(LOGIN_IDENTITY))
    key = fields.get("api_key", "").strip()
    target = safe_next(request, fields.get("next"))
    try:
        if not key:
            raise LoginRequired("enter an API key")
        who = g.authenticate(key, None)
        if not who.by_key:
            raise LoginRequired("that is not a mnemo API key (mnemo_...)")
    except (MnemoError, LoginRequired) as exc:
        return page(
            request,
            "login.html",
            None,
            401,
            login_token=g.token(LOGIN_IDENTITY),
            next=target,
            open=False,
            error=str(exc),
        )
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        COOKIE,
        key,
        path=base_path(request) + "/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/logout")
def logout(request: Request) -> Response:
    """Forget the key kept in the cookie (a revoked key can log out too, so no token is
    asked; a cross-site form is still refused)."""
    if not same_origin(request):
        raise Forbidden("this form was sent from another site")
    response = RedirectResponse(base_path(request) + "/login?done=logged-out", status_code=303)
    response.delete_cookie(COOKIE, path=base_path(request) + "/", samesite="strict")
    return response


__all__ = ["LOGIN_IDENTITY", "login", "login_form", "logout", "router", "safe_next"]
