"""Subprocess side of tests/test_reliability.py (and test_postgres_reliability.py): writes turns
into a shared SQLite file, or a PostgreSQL database when DB is a postgresql:// URL.

Not a test module. Run as ``python tests/reliability_worker.py MODE ...``; every line it prints
on stdout is one JSON object, flushed at once, so the parent can read progress live.

Modes:

``concurrent DB USER TAG CALLS SEED``
    Open a ``Memory`` on DB, print ``{"ready": true}``, wait for a line on stdin, then make
    CALLS ``add_messages`` calls of 1-5 turns each, into sessions s0..s2 of USER. After each
    call print ``{"session", "ids", "contents"}``; an exception is printed as ``{"error"}``
    and the worker carries on. Finally print ``{"done": true, "errors": n}``.

``bulk DB USER TAG BATCHES BATCH_SIZE``
    A bulk import: BATCHES calls of BATCH_SIZE turns each into session "bulk" of USER. After
    each call returns print ``{"batch", "ids", "contents"}``. Meant to be SIGKILLed midway.
"""

from __future__ import annotations

import json
import os
import random
import sys
import traceback
from pathlib import Path

# The editable install is not reliable from outside the repository root: import this checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mnemo import Memory

SESSIONS = ("s0", "s1", "s2")
FILLER = (
    "we talked about the garden, the weather in the hills, a recipe for lentil soup and "
    "the train timetable for next week; "
)


def emit(obj: dict) -> None:
    """Print one JSON line and flush it, so a reader sees it before the next write starts."""
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def marker(tag: str, call: int, turn: int) -> str:
    """A word that occurs in exactly one stored turn (FTS tokenises it as one token)."""
    return f"mk{tag}c{call}t{turn}z"


def open_memory(db: str) -> Memory:
    """A Memory on DB: a SQLite file, or a PostgreSQL database when DB is a postgresql:// URL."""
    if db.startswith("postgresql://"):
        return Memory(url=db, embedder="hashing")
    return Memory(db, embedder="hashing")


def concurrent(db: str, user: str, tag: str, calls: int, seed: int) -> int:
    rng = random.Random(seed)
    errors = 0
    with open_memory(db) as mem:
        emit({"ready": True, "pid": os.getpid()})
        sys.stdin.readline()  # the parent's go signal: start together with its threads
        for call in range(calls):
            session = rng.choice(SESSIONS)
            contents = [
                f"{tag} call {call} turn {turn} {marker(tag, call, turn)} about topic "
                f"{rng.randrange(1000)}"
                for turn in range(rng.randint(1, 5))
            ]
            turns = [
                {"role": ("user", "assistant")[i % 2], "content": c} for i, c in enumerate(contents)
            ]
            try:
                ids = mem.add_messages(turns, user_id=user, session_id=session)
            except Exception:  # reported to the parent, which fails the test
                errors += 1
                emit({"error": traceback.format_exc()})
                continue
            emit({"session": session, "ids": ids, "contents": contents})
    emit({"done": True, "errors": errors})
    return 1 if errors else 0


def bulk(db: str, user: str, tag: str, batches: int, batch_size: int) -> int:
    with open_memory(db) as mem:
        for batch in range(batches):
            contents = [
                f"bulk {tag} batch {batch} turn {turn} {marker(tag, batch, turn)} "
                + FILLER * (1 + turn % 4)
                for turn in range(batch_size)
            ]
            turns = [
                {"role": "user", "content": c, "metadata": {"batch": batch, "turn": turn}}
                for turn, c in enumerate(contents)
            ]
            ids = mem.add_messages(turns, user_id=user, session_id="bulk")
            emit({"batch": batch, "ids": ids, "contents": contents})
    emit({"done": True})
    return 0


def main(argv: list[str]) -> int:
    mode, db, user, tag, a, b = argv
    if mode == "concurrent":
        return concurrent(db, user, tag, int(a), int(b))
    if mode == "bulk":
        return bulk(db, user, tag, int(a), int(b))
    raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
