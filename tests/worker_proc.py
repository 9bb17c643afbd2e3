"""Subprocess side of tests/test_worker.py: a job worker process with test handlers.

Not a test module. Run as ``python tests/worker_proc.py DB EFFECTS MODE``; settings such as
``MNEMO_JOB_LEASE_S`` come from the environment. It registers ``turns.effect`` (see
:func:`effect`), prints ``{"ready": true, "pid"}`` and runs a ``Worker`` in the foreground
until SIGINT/SIGTERM, then prints ``{"stopped": true, "jobs_run"}``. Every line on stdout is
one JSON object, flushed at once.

Modes: ``block``: after its effect the handler prints ``{"started": first message id}`` and
blocks forever (to be killed); ``slow``: it prints the same line, sleeps 1.5 s and returns
token usage.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemo import Memory
from mnemo.llm import Usage

# Only the jobs a test registers: the write-path tiers (on by default) stay off.
JOBS_ONLY: dict = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}


def emit(obj: dict[str, Any]) -> None:
    """Print one JSON line and flush it."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def effect(effects_db: str, payload: dict[str, Any]) -> None:
    """The idempotent part of the job: one ``effects`` row per message batch (INSERT OR
    IGNORE), plus one ``runs`` row per invocation so tests can count how often it ran."""
    conn = sqlite3.connect(effects_db, timeout=30, isolation_level=None)
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY)")
        conn.execute("CREATE TABLE IF NOT EXISTS runs (pid INTEGER, key TEXT)")
        key = payload["message_ids"][0]
        conn.execute("INSERT OR IGNORE INTO effects VALUES (?)", (key,))
        conn.execute("INSERT INTO runs VALUES (?, ?)", (os.getpid(), key))
    finally:
        conn.close()


def counts(effects_db: str) -> tuple[int, int]:
    """(effects rows, runs rows) of an effects file."""
    conn = sqlite3.connect(effects_db)
    try:
        effects = conn.execute("SELECT count(*) FROM effects").fetchone()[0]
        runs = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
        return effects, runs
    finally:
        conn.close()


def main(db: str, effects_db: str, mode: str) -> int:
    with Memory(db, embedder="hashing", **JOBS_ONLY) as mem:

        def handler(payload: dict[str, Any]) -> Usage:
            effect(effects_db, payload)
            emit({"started": payload["message_ids"][0]})
            if mode == "block":
                while True:
                    time.sleep(60)
            time.sleep(1.5)
            return Usage(5, 3, 8)

        mem.handlers["turns.effect"] = handler
        worker = mem.worker(poll_s=0.05)
        emit({"ready": True, "pid": os.getpid()})
        worker.run_until_signalled()
        emit({"stopped": True, "jobs_run": worker.jobs_run})
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
