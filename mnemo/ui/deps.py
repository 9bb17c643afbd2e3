"""Per-request dependencies of the UI's routes: the viewer, and a posted form that passed the
cross-site checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query, Request

from mnemo.memory.cursors import MAX_CHARS
from mnemo.ui.access import Gate, Viewer
from mnemo.ui.forms import read_form


def gate(request: Request) -> Gate:
    """The authentication and form tokens of the app serving ``request``."""
    found: Gate = request.app.state.gate
    return found


def viewer(request: Request) -> Viewer:
    """The authenticated caller (the login page follows when there is none)."""
    return gate(request).viewer(request)


ViewerDep = Annotated[Viewer, Depends(viewer)]
#: A listing page's ``cursor`` query parameter (the pager's next link carries it).
Cursor = Annotated[str | None, Query(max_length=MAX_CHARS)]
FormFields = Annotated[dict[str, str], Depends(read_form)]


@dataclass
class Posted:
    """A form posted by an authenticated caller, from this site, with a valid token."""

    viewer: Viewer
    fields: dict[str, str]


def posted(request: Request, who: ViewerDep, fields: FormFields) -> Posted:
    """The posted form of an authenticated caller; Forbidden when forged or stale."""
    gate(request).check_form(request, fields, who.csrf)
    return Posted(who, fields)


PostedDep = Annotated[Posted, Depends(posted)]

__all__ = ["Cursor", "FormFields", "Posted", "PostedDep", "ViewerDep", "gate", "posted", "viewer"]
