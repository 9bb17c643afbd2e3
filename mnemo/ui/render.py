"""Rendering pages: the Jinja2 environment over the package's templates, and its helpers.

Every template extends ``base.html`` and is autoescaped. Links are built with ``href(path,
**query)`` under the UI's mount path, so an id with any character survives the round trip.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from mnemo.ui.access import CSRF_FIELD, Viewer

#: What a page says after a change, by the ``done`` query parameter a redirect sets.
NOTICES = {
    "updated": "The memory was updated.",
    "deleted": "The memory was deleted. Its history keeps what it said.",
    "logged-out": "You are logged out.",
}


def when(value: datetime | None) -> str:
    """A time as ``YYYY-MM-DD HH:MM UTC``; a dash for None."""
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


def score(value: float | None) -> str:
    """A score with three decimals; a dash for None."""
    return "—" if value is None else f"{value:.3f}"


def pretty_json(value: Any) -> str:
    """``value`` as indented JSON (for metadata and job payloads)."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("mnemo.ui", "templates"),
        autoescape=select_autoescape(default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(when=when, score=score, pretty_json=pretty_json)
    return env


ENV = _environment()


def base_path(request: Request) -> str:
    """Where the UI is mounted (``/ui`` under ``mnemo serve``)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def linker(request: Request) -> Any:
    """``href(path, **query)``: a link to a UI page; query values of None are left out."""
    root = base_path(request)

    def href(path: str, **query: Any) -> str:
        pairs = {k: v for k, v in query.items() if v is not None and v != ""}
        return root + path + ("?" + urlencode(pairs) if pairs else "")

    return href


def page(
    request: Request,
    template: str,
    viewer: Viewer | None,
    code: int = 200,
    **context: Any,
) -> HTMLResponse:
    """Render ``template`` with ``context``, the viewer, the form token and the links, with
    the HTTP status ``code``."""
    done = request.query_params.get("done", "")
    html = ENV.get_template(template).render(
        href=linker(request),
        ui=base_path(request),
        viewer=viewer,
        csrf_field=CSRF_FIELD,
        csrf=viewer.csrf if viewer else "",
        notice=NOTICES.get(done.split(":")[0], ""),
        path=request.url.path,
        **context,
    )
    return HTMLResponse(html, status_code=code)


__all__ = ["ENV", "NOTICES", "base_path", "linker", "page", "pretty_json", "score", "when"]
