"""Crash safety of writes: SIGKILL `mnemo serve` under concurrent writers that retry.

`python -m mnemo serve` runs as a child process on a free 127.0.0.1 port (hashing embedder,
the job worker on, polling every 0.2 s) over a fresh store: a SQLite file in a temporary
directory, or with ``--database-url`` a schema of its own on that PostgreSQL server, dropped
afterwards (bench/scratch_store.py). ``--writers`` threads write back to back, alternately
``POST /v1/messages`` (two turns) and ``POST /v1/memories``, every body unique, each write with
a fresh ``Idempotency-Key`` that every retry of it sends again. A write is retried, 0.1-0.3 s
later, after a cut connection or a 5xx, until it gets its 201. Meanwhile the server is
SIGKILLed ``--kills`` times, ``--gap`` seconds apart (+-25 %, seeded), and restarted at once.
Then the writers finish their current write, the server stops (SIGTERM), and the store is read
back with plain SQL:

* lost = acknowledged rows (ids in a 201) that are not in the store;
* duplicates = contents stored more than once (bodies are unique: a write applied twice);
* unacknowledged = the benchmark's rows in the store whose ids no 201 named;
* integrity_check = SQLite's ``PRAGMA integrity_check`` (``ok``).

With the key all three counts should be 0. ``--no-key`` sends no key: the control, where a
retry of a write that committed before its answer was cut writes it a second time. The exit
status is 1 when a keyed run loses, duplicates or leaves unacknowledged rows, or the check fails.

    .venv/bin/python bench/crash_writes.py --json out/crash.json
    .venv/bin/python bench/crash_writes.py --database-url postgresql://postgres@127.0.0.1:55432/postgres
    .venv/bin/python bench/crash_writes.py --no-key       # the control
"""

from __future__ import annotations

import argparse
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from common import announce_machine, console, write_json
from scratch_store import ScratchStore, check_url, child_env, end, exit_on_sigterm, scratch_store

NOTE = "crash-bench note"  # prefix of the benchmark's own memories (the worker may add others)
GIVE_UP_S = 120.0  # a write still unanswered after this long is counted under gave_up


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`python -m mnemo serve` over ``store``, restartable on one port; logs to the store's
    temporary directory."""

    def __init__(self, store: ScratchStore) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = store.tmp / "server.log"
        self.cmd = [sys.executable, "-m", "mnemo", "serve", "--host", "127.0.0.1"]
        self.cmd += ["--port", str(self.port), "--db", store.db, "--embedder", "hashing"]
        self.env = child_env(MNEMO_SERVE_WORKER="1", MNEMO_WORKER_POLL_S="0.2", OMP_NUM_THREADS="1")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start the server; returns the seconds until ``/health`` answered 200."""
        t0 = time.perf_counter()
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                self.cmd, env=self.env, stdout=log, stderr=log, stdin=subprocess.DEVNULL
            )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return time.perf_counter() - t0
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        end(self.proc, signal.SIGKILL)
        tail = self.log.read_text(errors="replace").splitlines()[-15:]
        raise SystemExit("mnemo serve did not start:\n" + "\n".join(tail))

    def kill(self) -> None:
        """SIGKILL the server and reap it."""
        end(self.proc, signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM (a clean shutdown), SIGKILL after 30 s."""
        end(self.proc)


@dataclass
class Tally:
    """What the writers saw; guarded by ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    #: (route, acknowledged ids, attempts) per acknowledged write
    acked: list[tuple[str, list[str], int]] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    refused: list[str] = field(default_factory=list)  # 4xx answers (none expected)
    gave_up: int = 0


def write_once(http: httpx.Client, wid: int, i: int, use_key: bool, tally: Tally) -> None:
    """One write (a turn pair or a memory), retried with the same body and key until a 201."""
    tag = f"w{wid}-{i} {uuid.uuid4().hex}"
    if i % 2:
        route = "/v1/messages"
        turns = [
            {"role": "user", "content": f"crash-bench turn {tag}: the walk by the river"},
            {"role": "assistant", "content": f"crash-bench reply {tag}: sounds lovely"},
        ]
        body: dict[str, Any] = {"user_id": f"u{wid % 3}", "session_id": f"s{wid}"}
        body["messages"] = turns
    else:
        route = "/v1/memories"
        body = {"user_id": f"u{wid % 3}", "content": f"{NOTE} {tag}"}
    headers = {"Idempotency-Key": str(uuid.uuid4())} if use_key else {}
    attempts, deadline = 0, time.monotonic() + GIVE_UP_S
    while True:
        attempts += 1
        try:
            r = http.post(route, json=body, headers=headers)
        except httpx.HTTPError as exc:
            outcome = type(exc).__name__
        else:
            if r.status_code == 201:
                data = r.json()
                ids = data["ids"] if route == "/v1/messages" else [data["id"]]
                with tally.lock:
                    tally.acked.append((route, ids, attempts))
                return
            if r.status_code < 500:
                with tally.lock:
                    tally.refused.append(f"{r.status_code} {r.text[:200]}")
                return
            outcome = f"HTTP {r.status_code}"
        with tally.lock:
            tally.errors[outcome] += 1
        if time.monotonic() > deadline:
            with tally.lock:
                tally.gave_up += 1
            return
        time.sleep(0.1 + random.random() * 0.2)


def writer(url: str, wid: int, use_key: bool, stop: threading.Event, tally: Tally) -> None:
    """Writes back to back until ``stop`` is set (the write under way is finished first)."""
    with httpx.Client(base_url=url, timeout=10) as http:
        i = 0
        while not stop.is_set():
            write_once(http, wid, i, use_key, tally)
            i += 1


def duplicates(store: ScratchStore, table: str, where: str) -> int:
    """Contents of ``table`` (rows matching ``where``) stored more than once."""
    sql = (
        f"SELECT count(*) FROM (SELECT content FROM {table} WHERE {where}"
        " GROUP BY content HAVING count(*) > 1) d"
    )
    return int(store.query(sql)[0][0])


def verify(store: ScratchStore, tally: Tally) -> dict[str, Any]:
    """Read the store back and compare it with what was acknowledged."""
    mine = f"content LIKE '{NOTE} %' AND deleted_at IS NULL"
    stored = {
        "/v1/messages": {r[0] for r in store.query("SELECT id FROM messages")},
        "/v1/memories": {r[0] for r in store.query(f"SELECT id FROM memories WHERE {mine}")},
    }
    acked = {route: {i for r, ids, _ in tally.acked if r == route for i in ids} for route in stored}
    acked_rows = sum(len(ids) for _, ids, _ in tally.acked)
    lost = sum(len(acked[r] - stored[r]) for r in stored)
    dups = {"messages": duplicates(store, "messages", "TRUE")}
    dups["memories"] = duplicates(store, "memories", mine)
    unacked = {
        "messages": len(stored["/v1/messages"] - acked["/v1/messages"]),
        "memories": len(stored["/v1/memories"] - acked["/v1/memories"]),
    }
    return {
        "acknowledged_writes": len(tally.acked),
        "acknowledged_rows": acked_rows,
        "rows_in_store": {
            "messages": len(stored["/v1/messages"]),
            "memories": len(stored["/v1/memories"]),
        },
        "lost": lost,
        "lost_ratio": lost / acked_rows if acked_rows else 0.0,
        "duplicates": dups,
        "unacknowledged": unacked,
        "integrity_check": store.integrity(),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the server and the writers, kill and restart, verify; returns the results."""
    rng = random.Random(args.seed)
    tally, stop = Tally(), threading.Event()
    with scratch_store(args.database_url, "crash") as store:
        server = Server(store)
        threads: list[threading.Thread] = []
        try:
            first_start = server.start()
            restarts: list[float] = []
            t0 = time.perf_counter()
            for w in range(args.writers):
                th = threading.Thread(
                    target=writer, args=(server.url, w, not args.no_key, stop, tally)
                )
                th.start()
                threads.append(th)
            for k in range(args.kills):
                time.sleep(args.gap * rng.uniform(0.75, 1.25))
                server.kill()
                console.print(f"kill {k + 1}/{args.kills}: {len(tally.acked)} writes acknowledged")
                restarts.append(server.start())
            time.sleep(args.gap)
        finally:
            stop.set()
            for th in threads:
                th.join()
            server.stop()
        elapsed = time.perf_counter() - t0
        found = verify(store, tally)
        label = store.label
    retried = [a for _, _, a in tally.acked if a > 1]
    return {
        "store": label,
        "idempotency_key": not args.no_key,
        "kills": args.kills,
        "writers": args.writers,
        "gap_s": args.gap,
        "seed": args.seed,
        "embedder": "hashing",
        "worker": True,
        "duration_s": round(elapsed, 1),
        "first_start_s": round(first_start, 2),
        "restart_s": [round(s, 2) for s in restarts],
        **found,
        "writes_retried": len(retried),
        "retry_attempts": sum(a - 1 for a in retried),
        "errors_seen": dict(tally.errors),
        "refused_4xx": len(tally.refused),
        "refused_samples": tally.refused[:5],
        "gave_up": tally.gave_up,
        "machine": announce_machine(),
    }


def failed(res: dict[str, Any]) -> bool:
    """Whether the run shows a defect (a keyed run must neither lose, duplicate nor leave
    unacknowledged rows; every run must keep acknowledged rows and a sound SQLite file)."""
    bad = res["lost"] > 0 or res["refused_4xx"] > 0 or res["gave_up"] > 0
    bad |= res["integrity_check"] not in (None, "ok")
    if res["idempotency_key"]:
        bad |= sum(res["duplicates"].values()) > 0 or sum(res["unacknowledged"].values()) > 0
    return bad


def report(res: dict[str, Any]) -> None:
    """Print the results."""
    key = "with Idempotency-Key" if res["idempotency_key"] else "WITHOUT Idempotency-Key (control)"
    rows = res["rows_in_store"]
    console.print(
        f"{res['store']}, {res['writers']} writers {key}, {res['kills']} SIGKILLs "
        f"in {res['duration_s']} s (restarts {', '.join(f'{s:.1f}' for s in res['restart_s'])} s)"
    )
    console.print(
        f"acknowledged writes {res['acknowledged_writes']:,} ({res['acknowledged_rows']:,} rows); "
        f"in store: {rows['messages']:,} messages + {rows['memories']:,} memories"
    )
    console.print(
        f"retried after a cut connection: {res['writes_retried']} writes "
        f"({res['retry_attempts']} attempts; errors seen {res['errors_seen']})"
    )
    d, u = res["duplicates"], res["unacknowledged"]
    console.print(
        f"lost {res['lost']} ({res['lost_ratio']:.2%}), duplicates {d['messages']} messages + "
        f"{d['memories']} memories, unacknowledged-but-committed {u['messages']} messages + "
        f"{u['memories']} memories, integrity_check {res['integrity_check'] or 'n/a'}"
    )
    if res["refused_4xx"] or res["gave_up"]:
        console.print(f"refused {res['refused_samples']}, gave up {res['gave_up']}")


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        help="PostgreSQL server to use (a schema of its own, dropped after); default: SQLite "
        "in a temporary directory.",
    )
    parser.add_argument("--kills", type=int, default=5, help="SIGKILLs of the server.")
    parser.add_argument("--writers", type=int, default=8, help="Concurrent writer threads.")
    parser.add_argument("--gap", type=float, default=4.0, help="Seconds between kills (+-25 %%).")
    parser.add_argument("--seed", type=int, default=17, help="Seed of the kill timing.")
    parser.add_argument("--no-key", action="store_true", help="Send no Idempotency-Key.")
    parser.add_argument("--json", help="Write the results to this file.")
    args = parser.parse_args()
    try:
        args.database_url = check_url(args.database_url)
    except ValueError as exc:
        parser.error(str(exc))
    exit_on_sigterm()
    res = run(args)
    report(res)
    write_json(args.json, res)
    if failed(res):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
