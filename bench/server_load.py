"""Server load: N concurrent clients against `mnemo serve` on loopback for a fixed time.

The server runs in its own process (uvicorn, SQLite file, the embedder given); the proxy's
upstream is the scripted OpenAI-compatible server of the tests, in this process. Each client
loops over a mix of requests: store turns (``POST /v1/messages``), search, context, and a chat
completion through the proxy (which stores the user turn and the reply). Reported: requests
per second, latency p50/p95/p99 per route and overall, errors; afterwards every acknowledged
turn is looked up in the database file.

    python bench/server_load.py --clients 50 --duration 60 --embedder hashing
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from common import ROOT, announce_machine, console, write_json

sys.path.insert(0, str(ROOT / "tests"))
from scripted_server import ScriptedServer

OPS = ("messages", "search", "context", "chat")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    db: str, port: int, embedder: str, upstream: str, synchronous: str
) -> subprocess.Popen[bytes]:
    """`mnemo serve` in a child process; returns once /health answers."""
    env = {**os.environ, "MNEMO_UPSTREAM_BASE_URL": upstream, "PYTHONPATH": str(ROOT)}
    env["MNEMO_SYNCHRONOUS"] = synchronous
    cmd = [sys.executable, "-c", "from mnemo.cli.main import app; app()", "serve"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--db", db, "--embedder", embedder]
    log = open(Path(db).with_suffix(".log"), "wb")  # noqa: SIM115 - the child writes to it
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


class Tally:
    """Latencies per route, errors, and the turns the server acknowledged."""

    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.acked: list[str] = []


async def one(http: httpx.AsyncClient, op: str, cid: int, i: int, tally: Tally) -> None:
    """Send one request of kind ``op``; record its latency, or the error."""
    user, text = f"user{cid % 10}", f"client {cid} turn {i}: I walked my dog Rex to the park"
    t0 = time.perf_counter()
    try:
        if op == "messages":
            turns = [{"role": "user", "content": text}, {"role": "assistant", "content": "Nice!"}]
            body = {"user_id": user, "session_id": f"s{cid}", "messages": turns}
            r = await http.post("/v1/messages", json=body)
        elif op == "search":
            r = await http.post("/v1/search", json={"user_id": user, "query": "dog park Rex"})
        elif op == "context":
            r = await http.post("/v1/context", json={"user_id": user, "query": "where did I walk?"})
        else:
            body = {"model": "m", "user": user, "memory_id": f"c{cid}",
                    "messages": [{"role": "user", "content": text}]}  # fmt: skip
            r = await http.post("/v1/chat/completions", json=body)
    except httpx.HTTPError as exc:
        tally.errors.append(f"{op}: {exc!r}")
        return
    tally.latency[op].append(time.perf_counter() - t0)
    if r.status_code >= 400:
        tally.errors.append(f"{op}: HTTP {r.status_code} {r.text[:200]}")
    elif op in ("messages", "chat"):
        tally.acked.append(text)


async def client(base: str, cid: int, stop_at: float, tally: Tally) -> None:
    """One client: requests back to back, cycling through the mix, until ``stop_at``."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        i = 0
        while time.monotonic() < stop_at:
            await one(http, OPS[(cid + i) % len(OPS)], cid, i, tally)
            i += 1


def percentiles(samples: list[float]) -> dict[str, float]:
    """Count, p50/p95/p99 and mean in milliseconds."""
    a = np.asarray(samples) * 1000
    if a.size == 0:
        return {"n": 0}
    p50, p95, p99 = (float(np.percentile(a, q)) for q in (50, 95, 99))
    return {"n": int(a.size), "p50": p50, "p95": p95, "p99": p99, "mean": float(a.mean())}


def missing_turns(db: str, acked: list[str]) -> int:
    """How many acknowledged user turns are not in the database."""
    with sqlite3.connect(db) as conn:
        stored = {r[0] for r in conn.execute("SELECT content FROM messages WHERE role='user'")}
    return sum(1 for text in acked if text not in stored)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start everything, drive the load, check durability; returns the results."""
    tmp = tempfile.mkdtemp(prefix="mnemo-load-")
    db, port = str(Path(tmp) / "load.db"), free_port()
    tally = Tally()
    with ScriptedServer() as upstream:
        proc = start_server(db, port, args.embedder, upstream.url, args.synchronous)
        try:
            stop_at = time.monotonic() + args.duration
            t0 = time.perf_counter()

            async def main() -> None:
                base = f"http://127.0.0.1:{port}"
                await asyncio.gather(
                    *(client(base, c, stop_at, tally) for c in range(args.clients))
                )

            asyncio.run(main())
            elapsed = time.perf_counter() - t0
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    total = [x for v in tally.latency.values() for x in v]
    return {
        "clients": args.clients,
        "duration_s": round(elapsed, 1),
        "embedder": args.embedder,
        "synchronous": args.synchronous,
        "requests": len(total),
        "throughput_rps": round(len(total) / elapsed, 1),
        "latency_ms": percentiles(total),
        "by_route": {op: percentiles(tally.latency[op]) for op in OPS},
        "errors": len(tally.errors),
        "error_samples": tally.errors[:5],
        "acknowledged_turns": len(tally.acked),
        "missing_turns": missing_turns(db, tally.acked),
        "machine": announce_machine(),
    }


def report(res: dict[str, Any]) -> None:
    """Print the results."""
    lat = res["latency_ms"]
    console.print(
        f"{res['clients']} clients x {res['duration_s']} s, embedder {res['embedder']}: "
        f"{res['requests']} requests, {res['throughput_rps']} req/s, "
        f"p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms, p99 {lat['p99']:.1f} ms, "
        f"errors {res['errors']}"
    )
    for op, s in res["by_route"].items():
        if s.get("n"):
            console.print(
                f"  {op:9s} n={s['n']:6d} p50 {s['p50']:7.1f}  p95 {s['p95']:7.1f}  "
                f"p99 {s['p99']:7.1f} ms"
            )
    console.print(
        f"acknowledged turns {res['acknowledged_turns']}, missing after the run "
        f"{res['missing_turns']}"
    )


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--synchronous", default="FULL", help="SQLite synchronous of the server.")
    parser.add_argument("--json", help="Write the results to this file.")
    args = parser.parse_args()
    res = run(args)
    report(res)
    write_json(args.json, res)
    if res["errors"] or res["missing_turns"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
