"""Crash safety of `mnemo import`: a JSONL import SIGKILLed part-way, then run again.

A JSONL turn file is generated in a temporary directory: ``--turns`` lines (2,000) dealt
round-robin over ``--users`` users x ``--sessions`` sessions each, alternating user and
assistant turns, every content distinct. Into a fresh store (a SQLite file in the same
directory, or with ``--database-url`` a schema of its own on that PostgreSQL server, dropped
afterwards; bench/scratch_store.py), the same command
``python -m mnemo import FILE --db DB --batch-size 100 --embedder E`` runs three times as a
child process (``OMP_NUM_THREADS=1``, ``MNEMO_EMBED_THREADS=--embed-threads`` (1), no
inherited ``MNEMO_*``):

1. **kill**: the store's row count is polled with plain SQL every 20 ms and the child is
   SIGKILLed once ``--kill-at`` (1/3) of the lines are in;
2. **re-run** to completion: it skips the turns already stored and writes the rest;
3. **third run**: it should write 0.

Reported after each step: rows in the store, distinct ids and contents, rows / lines, the
child's exit status, the "imported N turns" and "N turns were already stored" counts it printed,
and seconds. A sound import has exactly ``--turns`` rows (and as many distinct contents) after
steps 2 and 3; otherwise the exit status is 1.

    OMP_NUM_THREADS=1 .venv/bin/python bench/import_kill.py --json out/import-kill.json
    .venv/bin/python bench/import_kill.py --database-url postgresql://postgres@127.0.0.1:55432/postgres
    .venv/bin/python bench/import_kill.py --embedder hashing     # no model: seconds, not minutes
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import announce_machine, console, write_json
from scratch_store import ScratchStore, check_url, child_env, end, exit_on_sigterm, scratch_store

PLACES = ("lake", "market", "library", "harbour", "orchard", "station", "bakery", "museum")


def write_turns(path: Path, turns: int, users: int, sessions: int) -> None:
    """``turns`` JSONL lines over ``users`` x ``sessions`` conversations (round-robin)."""
    convs = users * sessions
    with path.open("w", encoding="utf-8") as fh:
        for i in range(turns):
            c = i % convs
            role = ("user", "assistant")[(i // convs) % 2]
            place = PLACES[i % len(PLACES)]
            line = {
                "role": role,
                "content": f"turn {i}: we talked about the {place} number {i % 97} "
                f"and the plan for day {i // convs}",
                "user_id": f"user{c % users}",
                "session_id": f"s{c // users}",
            }
            fh.write(json.dumps(line) + "\n")


def counts(store: ScratchStore) -> dict[str, int]:
    """Rows, distinct ids and distinct contents of the messages table."""
    if store.count("messages") == 0:
        return {"rows": 0, "distinct_ids": 0, "distinct_contents": 0}
    row = store.query("SELECT count(*), count(DISTINCT id), count(DISTINCT content) FROM messages")
    return {
        "rows": int(row[0][0]),
        "distinct_ids": int(row[0][1]),
        "distinct_contents": int(row[0][2]),
    }


def printed(out: str, err: str) -> dict[str, int | None]:
    """The counts the CLI printed: ``imported N turns`` and ``N turns were already stored``."""
    imported = re.search(r"imported (\d+) turns", out)
    skipped = re.search(r"(\d+) turns were already stored", err)
    return {
        "imported": int(imported.group(1)) if imported else None,
        "skipped": int(skipped.group(1)) if skipped else (0 if imported else None),
    }


class Importer:
    """The import command over ``store``; each run's output goes to the store's temp dir."""

    def __init__(self, store: ScratchStore, src: Path, args: argparse.Namespace) -> None:
        self.store, self.tmp = store, store.tmp
        self.cmd = [sys.executable, "-m", "mnemo", "import", str(src), "--db", store.db]
        self.cmd += ["--batch-size", str(args.batch_size), "--embedder", args.embedder]
        threads = str(args.embed_threads)
        self.env = child_env(OMP_NUM_THREADS="1", MNEMO_EMBED_THREADS=threads, COLUMNS="200")
        self.proc: subprocess.Popen[bytes] | None = None

    def step(self, name: str, kill_at: int | None, lines: int) -> dict[str, Any]:
        """Run the import (SIGKILLed once ``kill_at`` rows are in, if given); the step's facts."""
        out, err = self.tmp / f"{name}.out", self.tmp / f"{name}.err"
        t0 = time.perf_counter()
        with out.open("wb") as fo, err.open("wb") as fe:
            self.proc = subprocess.Popen(
                self.cmd, env=self.env, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL
            )
        killed_at = None
        if kill_at is None:
            self.proc.wait()
        else:
            while self.proc.poll() is None and self.store.count("messages") < kill_at:
                time.sleep(0.02)
            if self.proc.poll() is None:
                killed_at = self.store.count("messages")
                end(self.proc, signal.SIGKILL)
        seconds = time.perf_counter() - t0
        status = self.proc.returncode
        self.proc = None
        found = counts(self.store)
        text_out = out.read_text(errors="replace")
        text_err = err.read_text(errors="replace")
        if status not in (0, -signal.SIGKILL):
            tail = "\n".join(text_err.splitlines()[-10:])
            raise SystemExit(f"mnemo import failed (exit {status}):\n{tail}")
        return {
            "step": name,
            "exit": status,
            "killed_at_rows": killed_at,
            **found,
            "rows_per_line": found["rows"] / lines,
            **printed(text_out, text_err),
            "seconds": round(seconds, 1),
        }

    def close(self) -> None:
        """Kill a child left running (an interrupted run)."""
        end(self.proc, signal.SIGKILL)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Generate the file, kill, re-run, re-run; returns the results."""
    with scratch_store(args.database_url, "import") as store:
        src = store.tmp / "turns.jsonl"
        write_turns(src, args.turns, args.users, args.sessions)
        target = max(1, round(args.turns * args.kill_at))
        importer = Importer(store, src, args)
        steps = []
        try:
            for name, kill_at in (("kill", target), ("re-run", None), ("third run", None)):
                steps.append(importer.step(name, kill_at, args.turns))
                s = steps[-1]
                console.print(f"{name}: {s['rows']:,} rows, exit {s['exit']}, {s['seconds']} s")
        finally:
            importer.close()
        integrity = store.integrity()
        stored_by = sorted(str(r[0]) for r in store.query("SELECT DISTINCT embedder FROM messages"))
        label = store.label
    return {
        "store": label,
        "lines": args.turns,
        "users": args.users,
        "sessions_per_user": args.sessions,
        "batch_size": args.batch_size,
        "embedder": args.embedder,
        "embedder_ids_stored": stored_by,
        "embed_threads": args.embed_threads,
        "omp_num_threads": 1,
        "kill_target_rows": target,
        "steps": steps,
        "integrity_check": integrity,
        "machine": announce_machine(),
    }


def failed(res: dict[str, Any]) -> bool:
    """Whether the run shows a defect: the kill came too late, or steps 2 and 3 do not hold
    exactly one row per line, or the third run wrote something."""
    kill, rerun, third = res["steps"]
    n = res["lines"]
    bad = kill["exit"] != -signal.SIGKILL or res["integrity_check"] not in (None, "ok")
    for s in (rerun, third):
        bad |= s["rows"] != n or s["distinct_ids"] != n or s["distinct_contents"] != n
    return bad or third["imported"] != 0


def report(res: dict[str, Any]) -> None:
    """Print the results."""
    console.print(
        f"{res['store']}: {res['lines']:,} lines ({res['users']} users x "
        f"{res['sessions_per_user']} sessions), embedder {res['embedder']}, batch "
        f"{res['batch_size']} (stored as {', '.join(res['embedder_ids_stored'])}); "
        f"kill once {res['kill_target_rows']:,} rows are in"
    )
    for s in res["steps"]:
        status = "SIGKILL" if s["exit"] == -signal.SIGKILL else f"exit {s['exit']}"
        console.print(
            f"  {s['step']:9s} {status:8s} rows {s['rows']:6,} ({s['rows_per_line']:.3f} of the "
            f"lines; {s['distinct_contents']:,} distinct contents) imported {s['imported']} "
            f"skipped {s['skipped']} in {s['seconds']} s"
        )
    console.print(f"integrity_check {res['integrity_check'] or 'n/a'}")


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        help="PostgreSQL server to use (a schema of its own, dropped after); default: SQLite "
        "in a temporary directory.",
    )
    parser.add_argument("--turns", type=int, default=2000, help="Lines of the JSONL file.")
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=10, help="Sessions per user.")
    parser.add_argument("--batch-size", type=int, default=100, help="mnemo import --batch-size.")
    parser.add_argument(
        "--kill-at", type=float, default=1 / 3, help="Share of the lines in before the SIGKILL."
    )
    parser.add_argument("--embedder", default="local", help="mnemo import --embedder.")
    parser.add_argument(
        "--embed-threads", type=int, default=1, help="MNEMO_EMBED_THREADS of the import."
    )
    parser.add_argument("--json", help="Write the results to this file.")
    args = parser.parse_args()
    try:
        args.database_url = check_url(args.database_url)
    except ValueError as exc:
        parser.error(str(exc))
    if not 0 < args.kill_at < 1 or args.turns < 1 or args.users < 1 or args.sessions < 1:
        parser.error("--kill-at must be in (0, 1); --turns, --users, --sessions at least 1")
    exit_on_sigterm()
    res = run(args)
    report(res)
    write_json(args.json, res)
    if failed(res):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
