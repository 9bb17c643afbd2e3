"""Subprocess side of tests/test_postgres_jobs.py: a job worker on a PostgreSQL store.

Not a test module. Run as ``python tests/pg_worker.py MODE URL LEASE_S``; every line on stdout
is one JSON object, flushed at once.

Modes:

``drain``
    Run ready ``work`` jobs until none is left; each handler run prints ``{"ran": n}`` (the
    payload's ``n``) and sleeps 5 ms so workers overlap. Finally prints ``{"done": count}``.

``hang``
    Claim one job, print ``{"claimed": n, "attempts": a}`` and hang (the parent kills it).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

# The editable install is not reliable from outside the repository root: import this checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemo.jobs.runner import RunOptions, run_ready
from mnemo.storage.postgres.store import PostgresStore


def emit(obj: dict) -> None:
    """Print one JSON line and flush it."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    """Entry point: see the module docstring."""
    mode, url, lease = sys.argv[1], sys.argv[2], float(sys.argv[3])
    store = PostgresStore(url, pool_size=2)
    if mode == "drain":

        def work(payload: dict) -> None:
            emit({"ran": payload["n"]})
            time.sleep(0.005)

        emit({"done": run_ready(store.jobs, {"work": work}, options=RunOptions(lease_s=lease))})
    elif mode == "hang":
        job = store.jobs.claim_job(lease_s=lease, owner="hanging worker")
        assert job is not None
        emit({"claimed": job.payload["n"], "attempts": job.attempts})
        time.sleep(600)
    store.close()


if __name__ == "__main__":
    main()
