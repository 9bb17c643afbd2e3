"""The web UI's mount in ``mnemo serve``: ``/ui`` behind the REST API's keys and tenants.

The wiring lives here because ``mnemo.ui`` and ``mnemo.api`` are independent of each other and
the CLI sits above both: the UI gets the REST API's key-to-tenant rule
(:func:`mnemo.api.auth.authenticate`) and its per-tenant Memory objects as two callables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from mnemo.api.auth import KeyStore
    from mnemo.ui.access import Authenticate

UI_PATH = "/ui"


def ui_authenticator(keys: KeyStore, default_tenant: str, require_keys: bool) -> Authenticate:
    """The REST API's key-to-tenant rule as the UI's authenticator."""
    from mnemo.api.auth import authenticate
    from mnemo.ui.access import Identity

    def identify(api_key: str | None, bearer: str | None) -> Identity:
        caller = authenticate(keys, default_tenant, api_key, bearer, require_keys)
        return Identity(caller.tenant, caller.by_key)

    return identify


def mount_ui(app: FastAPI) -> None:
    """Serve the web UI at ``/ui`` in the REST app ``app`` (made by
    :func:`mnemo.api.app.create_app`), over its tenants, keys and ``require_keys``."""
    from mnemo.ui.app import create_ui

    state = app.state.mnemo
    authenticate = ui_authenticator(state.keys, state.settings.tenant, state.require_keys)
    app.mount(UI_PATH, create_ui(authenticate, state.tenants.get), name="ui")


__all__ = ["UI_PATH", "mount_ui", "ui_authenticator"]
