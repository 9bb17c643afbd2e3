"""The job worker inside the server: one thread for every tenant's jobs.

Jobs are claimed from the shared store in order, whatever their tenant; each runs with the
handler of its own tenant's Memory (``payload["tenant"]``, written by ``add_messages``), so a
job never touches another tenant's rows.
"""

from __future__ import annotations

from typing import Any

from mnemo.api.auth import Tenants
from mnemo.jobs.runner import Handler, Worker


def dispatcher(tenants: Tenants, kind: str) -> Handler:
    """A handler that runs ``kind`` with the handler of the job's own tenant."""

    def run(payload: dict[str, Any]) -> Any:
        tenant = payload.get("tenant") or tenants.settings.tenant
        return tenants.get(str(tenant)).handlers[kind](payload)

    return run


def tenant_worker(tenants: Tenants) -> Worker:
    """A Worker over the shared store whose handlers dispatch by tenant (not started)."""
    base = tenants.get(tenants.settings.tenant)
    handlers = {kind: dispatcher(tenants, kind) for kind in base.handlers}
    return Worker(base.store.jobs, handlers, base.settings, tenant=None)
