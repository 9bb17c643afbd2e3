"""Background-job settings: leases, retries and the worker's polling.

Names in this group: ``job_lease_s``, ``job_max_attempts``, ``worker_poll_s``. Whether
``mnemo serve`` runs a worker thread is ``serve_worker`` in :mod:`mnemo.config.server`.
"""

from __future__ import annotations

from pydantic import Field

from mnemo.config.bounds import positive
from mnemo.config.group import SettingsGroup


class JobSettings(SettingsGroup):
    """The job queue: how long a lease lasts, how often a job is tried, how a worker polls."""

    job_lease_s: float = positive(
        300.0,
        "A running job whose worker stops renewing it for this long (killed) is claimed again.",
    )
    job_max_attempts: int = Field(
        5, ge=1, le=100, description="Tries of a failing job before it is marked dead."
    )
    worker_poll_s: float = positive(1.0, "How often an idle worker looks for ready jobs, seconds.")


__all__ = ["JobSettings"]
