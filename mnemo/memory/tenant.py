"""The base of a Memory's services over stored rows: one tenant's rows in a store, new
contents embedded on the way in."""

from __future__ import annotations

from mnemo.config.settings import Settings
from mnemo.index.embed import Embedding
from mnemo.storage.ports.store import Store


class TenantService:
    """One tenant's rows in ``store`` (the tenant is ``settings.tenant``); new contents are
    embedded by ``embed``."""

    def __init__(self, store: Store, settings: Settings, embed: Embedding) -> None:
        self.store = store
        self.settings = settings
        self.tenant = settings.tenant
        self.embed = embed


__all__ = ["TenantService"]
