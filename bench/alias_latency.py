"""Search latency with and without learned speaker aliases, one user of N named turns.

The user holds ``bench/corpus.py``'s synthetic turns with two named speakers, ``jdoe84`` (user
turns) and ``mkt_sam`` (assistant turns); one assistant turn in 20 opens with "Hey Jess!" and
one user turn in 30 with "Thanks, Sam.". Two ``Memory`` objects open the same file, one with
``speaker_aliases`` on and one off; their first searches (index load, and for "on" the reading
of every named turn) are timed alone, then the queries (one in four naming Jess) run
interleaved query by query.

    OMP_NUM_THREADS=1 .venv/bin/python bench/alias_latency.py [--turns 10000] [--queries 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import common
import corpus
from mnemo import Memory


def build(path: Path, n: int) -> None:
    """Write the user's ``n`` turns, session by session, unless ``path`` exists."""
    if path.exists():
        return
    sessions: dict[str, list[dict[str, object]]] = {}
    for i, turn in enumerate(corpus.synthetic_turns(n)):
        turn["name"] = "jdoe84" if turn["role"] == "user" else "mkt_sam"
        if turn["role"] == "assistant" and i % 40 == 1:
            turn["content"] = "Hey Jess! " + str(turn["content"])
        if turn["role"] == "user" and i % 60 == 2:
            turn["content"] = "Thanks, Sam. " + str(turn["content"])
        sessions.setdefault(str(turn.pop("session_id")), []).append(turn)
    mem = Memory(str(path))
    for session, turns in sessions.items():
        mem.add_messages(turns, user_id="u", session_id=session)
    mem.close()


def main() -> None:
    """Build (once) and time; prints p50/p95 per side and the first searches."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    path = common.CACHE_DIR / f"alias-latency-{args.turns}-v{corpus.CORPUS_VERSION}.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    build(path, args.turns)
    queries = [
        q if i % 4 else q.rstrip("?") + ", Jess?"
        for i, q in enumerate(corpus.synthetic_queries(args.queries + 1))
    ]
    sides = {"on": Memory(str(path), speaker_aliases=True)}
    sides["off"] = Memory(str(path), speaker_aliases=False)
    for name in ("off", "on"):
        t0 = time.perf_counter()
        sides[name].search(queries[0], user_id="u")
        print(f"first search {name}: {1e3 * (time.perf_counter() - t0):.0f} ms")
    times: dict[str, list[float]] = {"on": [], "off": []}
    for i, query in enumerate(queries[1:]):
        for name in ("on", "off") if i % 2 else ("off", "on"):
            t0 = time.perf_counter()
            sides[name].search(query, user_id="u")
            times[name].append(time.perf_counter() - t0)
    for name, values in times.items():
        values.sort()
        p50, p95 = statistics.median(values), values[int(0.95 * len(values))]
        print(f"{name}: p50 {1e3 * p50:.2f} ms, p95 {1e3 * p95:.2f} ms")
    common.announce_machine(sides["on"].embedder)
    for mem in sides.values():
        mem.close()


if __name__ == "__main__":
    main()
