"""What extra keys of long user turns cost at ingest: ``add_messages`` with keys on and off.

Real chat turns from the LongMemEval dev split (read at run time, never copied): the sessions of
the first ``--questions`` haystacks, deduplicated by session id, user and assistant turns as
given. Two arms, each into its own fresh SQLite database, interleaved session by session with
the order alternating, so a noisy neighbour slows both alike:

* **chunk + fact keys** (the default): ``key_chunk_words`` 64, ``fact_keys`` on;
* **chunk keys**: ``key_chunk_words`` 64, ``fact_keys`` off;
* **no keys** (the baseline): ``key_chunk_words`` 0, ``fact_keys`` off.

Reported: turns/s of each arm, the ratio, how many turns got keys and how many keys.

    .venv/bin/python bench/key_cost.py --data ../shared/data/longmemeval-s-dev.json
    .venv/bin/python bench/key_cost.py --data ... --questions 2 --json bench/results/keys.json
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.table import Table

import common
from common import console, fmt
from mnemo import Memory

QUIET: dict[str, Any] = {
    "fact_extraction": "off",
    "profile_enabled": False,
    "episodes_enabled": False,
}


def sessions(path: str, questions: int) -> list[list[dict[str, str]]]:
    """Distinct haystack sessions of the first ``questions`` questions, as turn lists."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    seen: set[str] = set()
    out = []
    for q in data[:questions]:
        for sid, turns in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True):
            if sid in seen:
                continue
            seen.add(sid)
            kept = [{"role": t["role"], "content": t["content"]} for t in turns if t["content"]]
            if kept:
                out.append(kept)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="longmemeval-s-dev.json")
    ap.add_argument("--questions", type=int, default=1, help="haystacks to ingest (~50 sessions)")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    work = sessions(args.data, args.questions)
    embedder = common.make_embedder(args.embedder)
    common.warm_up(embedder)
    arms = {
        "chunk + fact keys": {"key_chunk_words": 64, "fact_keys": True},
        "chunk keys": {"key_chunk_words": 64, "fact_keys": False},
        "no keys": {"key_chunk_words": 0, "fact_keys": False},
    }
    elapsed = dict.fromkeys(arms, 0.0)
    with tempfile.TemporaryDirectory() as tmp:
        mems = {
            name: Memory(str(Path(tmp) / f"{i}.db"), embedder=embedder, **QUIET, **keys)
            for i, (name, keys) in enumerate(arms.items())
        }
        for i, turns in enumerate(work):
            order = list(arms)[i % 3 :] + list(arms)[: i % 3]  # rotate the order
            for name in order:
                start = time.perf_counter()
                mems[name].add_messages(turns, user_id="u", session_id=f"s{i}")
                elapsed[name] += time.perf_counter() - start
        counted = {}
        for i, name in enumerate(arms):
            db = sqlite3.connect(str(Path(tmp) / f"{i}.db"))
            counted[name] = db.execute(
                "SELECT count(*), coalesce(sum(length(key_vectors)), 0) / (4 * ?) FROM messages"
                " WHERE length(key_vectors) > 0",
                (embedder.dim,),
            ).fetchone()
            db.close()
        for m in mems.values():
            m.close()
    turns_total = sum(len(t) for t in work)
    rate = {name: turns_total / elapsed[name] for name in arms}
    table = Table(title=f"add_messages, {turns_total} LongMemEval turns, {embedder.id}")
    for col in ("arm", "seconds", "turns/s", "vs no keys", "keyed turns", "keys"):
        table.add_column(col, justify="right")
    for name in arms:
        table.add_row(
            name,
            fmt(elapsed[name]),
            fmt(rate[name], 1),
            fmt(elapsed[name] / elapsed["no keys"]) + "x",
            str(counted[name][0]),
            str(counted[name][1]),
        )
    console.print(table)
    info = common.announce_machine(embedder)
    common.write_json(
        args.json,
        {
            "benchmark": "key_cost",
            "machine": info,
            "turns": turns_total,
            "sessions": len(work),
            "keyed_turns": {name: c[0] for name, c in counted.items()},
            "keys": {name: c[1] for name, c in counted.items()},
            "seconds": elapsed,
            "turns_per_s": rate,
            "ratio": {name: elapsed[name] / elapsed["no keys"] for name in arms},
        },
    )


if __name__ == "__main__":
    main()
