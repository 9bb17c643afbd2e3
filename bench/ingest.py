"""Ingest throughput of ``Memory.add_messages``: bulk batches beside one call per turn.

Four arms over the same distinct conversation-like turns, each into its own fresh SQLite
database, interleaved chunk by chunk (a chunk = one bulk batch) with the arm order rotating, so
that a noisy neighbour slows every arm alike:

* **bulk**: ``add_messages(batch)`` with ``--batch`` turns per call (100, as ``mnemo import``);
* **single** (the baseline): one ``add_messages([turn])`` call per turn;
* **embed only**: ``embedder.embed(texts)`` of the same batch, no storage (the model's ceiling);
* **storage only**: ``add_messages(batch)`` with an embedder that returns the vectors the
  *embed only* arm just computed (same embedder id), i.e. validation + SQLite + FTS5 only.

Reported: turns/s of each arm and the ratio bulk / single. ``--single-turns`` caps the single
arm (it is the slow one); it then takes an evenly spread subset of each chunk.

``--prefill 100k`` starts every arm from a copy of the cached ``search_latency`` database of
that size (built first when missing) instead of an empty file, and ingests turns that are not in
it, to show how ingest cost grows with the size of the store.

    .venv/bin/python bench/ingest.py                         # local embedder, 2000 turns
    .venv/bin/python bench/ingest.py --embedder hashing --turns 5000
    .venv/bin/python bench/ingest.py --prefill 100k --turns 1000 --single-turns 200
    .venv/bin/python bench/ingest.py --json bench/results/ingest.json
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import common
import corpus
from common import console, fmt, now
from mnemo import Memory
from mnemo.embedders import Embedder
from mnemo.memory.turns import embed_text

USER = "bench-user"
TARGET_TURNS_PER_S = 250.0


class ReplayEmbedder(Embedder):
    """Returns precomputed vectors under another embedder's id (the storage-only arm).

    Texts it was not given (a turn's extra index keys, see ``mnemo.index.keys``) are embedded
    by the real embedder, so that arm still pays for the keys.
    """

    def __init__(self, real: Embedder) -> None:
        self.id, self.dim, self.batch_size = real.id, real.dim, 1 << 20
        self.real = real
        self.vectors: dict[str, np.ndarray] = {}

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.real.embed(missing), strict=True))
        return np.stack([self.vectors[t] for t in texts])


def chunks(turns: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    """Consecutive batches of at most ``size`` turns."""
    return [turns[i : i + size] for i in range(0, len(turns), size)]


def spread(chunk: list[Any], share: float) -> list[Any]:
    """An evenly spread subset of ``chunk`` holding about ``share`` of it."""
    if share >= 1:
        return chunk
    k = max(1, round(len(chunk) * share))
    idx = np.linspace(0, len(chunk) - 1, k).round().astype(int)
    return [chunk[i] for i in sorted(set(idx.tolist()))]


def ingest_turns(args: argparse.Namespace) -> list[dict[str, Any]]:
    """``--turns`` distinct turns, none of them already in the prefilled database."""
    if not args.prefill:
        picked = corpus.turns(args.corpus, args.turns)
    else:
        taken = {t["content"] for t in corpus.turns(args.corpus, args.prefill)}
        fresh = corpus.synthetic_turns(2 * args.turns + 1000, seed=1)
        picked = [t for t in fresh if t["content"] not in taken][: args.turns]
    return [{k: v for k, v in t.items() if k != "session_id"} for t in picked]


def prepare(args: argparse.Namespace, embedder: Embedder, workdir: Path) -> dict[str, Any]:
    """Copy the prefill database to each arm's file; returns its build record ({} if none)."""
    if not args.prefill:
        return {}
    import search_latency

    src, record = search_latency.ensure_db(
        common.CACHE_DIR, args.corpus, args.prefill, embedder, rebuild=False
    )
    for name in ("bulk", "single", "storage"):
        shutil.copyfile(src, workdir / f"{name}.db")
    return record


def run(args: argparse.Namespace, embedder: Embedder, workdir: Path) -> dict[str, Any]:
    """Time the four arms; returns seconds and turn counts per arm."""
    turns = ingest_turns(args)
    if len({t["content"] for t in turns}) != len(turns) or len(turns) < args.turns:
        raise SystemExit("could not make enough distinct turns")
    share = min(1.0, args.single_turns / len(turns))
    replay = ReplayEmbedder(embedder)
    mems = {
        name: Memory(str(workdir / f"{name}.db"), embedder=emb)
        for name, emb in (("bulk", embedder), ("single", embedder), ("storage", replay))
    }
    seconds: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    per_call: dict[str, list[float]] = defaultdict(list)

    def arm_bulk(batch: list[dict[str, Any]], session: str) -> None:
        t0 = now()
        mems["bulk"].add_messages(batch, user_id=USER, session_id=session)
        seconds["bulk"] += now() - t0
        counts["bulk"] += len(batch)

    def arm_single(batch: list[dict[str, Any]], session: str) -> None:
        for turn in spread(batch, share):
            t0 = now()
            mems["single"].add_messages([turn], user_id=USER, session_id=session)
            dt = now() - t0
            seconds["single"] += dt
            per_call["single"].append(dt)
            counts["single"] += 1

    def arm_embed_then_storage(batch: list[dict[str, Any]], session: str) -> None:
        texts = [embed_text(t["content"], t.get("name")) for t in batch]
        t0 = now()
        vectors = embedder.embed(texts)
        seconds["embed"] += now() - t0
        counts["embed"] += len(batch)
        replay.vectors.update(zip(texts, vectors, strict=True))
        t0 = now()
        mems["storage"].add_messages(batch, user_id=USER, session_id=session)
        seconds["storage"] += now() - t0
        counts["storage"] += len(batch)

    arms: list[Callable[[list[dict[str, Any]], str], None]] = [
        arm_bulk,
        arm_single,
        arm_embed_then_storage,
    ]
    columns = (
        TextColumn("[bold]ingesting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("chunks"),
        TimeElapsedColumn(),
    )
    try:
        with Progress(*columns, console=console) as bar:
            batches = chunks(turns, args.batch)
            task = bar.add_task("", total=len(batches))
            for i, batch in enumerate(batches):
                session = f"ingest-{i:05d}"
                for arm in arms[i % 3 :] + arms[: i % 3]:
                    arm(batch, session)
                bar.advance(task)
    finally:
        for mem in mems.values():
            mem.close()
    return {
        "seconds": dict(seconds),
        "turns": dict(counts),
        "single_call_ms": common.stats_ms(per_call["single"]),
    }


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    """turns/s per arm and the ratios."""
    rate = {arm: raw["turns"][arm] / raw["seconds"][arm] for arm in raw["seconds"]}
    return {
        "turns_per_s": rate,
        "ms_per_turn": {arm: 1000 / r for arm, r in rate.items()},
        "ratio_bulk_over_single": rate["bulk"] / rate["single"],
        "ratio_bulk_over_embed": rate["bulk"] / rate["embed"],
        "storage_share_of_bulk": (1 / rate["storage"]) / (1 / rate["bulk"]),
    }


def print_results(
    raw: dict[str, Any], summary: dict[str, Any], info: dict[str, Any], args: argparse.Namespace
) -> None:
    """The rich table of a run."""
    t = Table(
        title=f"Ingest throughput ({info['embedder']}, {info['cpus_usable']} CPUs, {info['date']})"
        + (f", into a store already holding {args.prefill:,} turns" if args.prefill else "")
    )
    for col in ("arm", "turns", "seconds", "turns/s", "ms/turn", "vs single"):
        t.add_column(col, justify="right")
    names = {
        "bulk": f"bulk add_messages ({args.batch}/call)",
        "single": "single add_messages (1/call) [baseline]",
        "embed": "embedder.embed only",
        "storage": f"storage only ({args.batch}/call)",
    }
    rate = summary["turns_per_s"]
    for arm in ("bulk", "single", "embed", "storage"):
        t.add_row(
            names[arm],
            f"{raw['turns'][arm]:,}",
            fmt(raw["seconds"][arm], 2),
            fmt(rate[arm], 1),
            fmt(1000 / rate[arm], 2),
            f"{rate[arm] / rate['single']:.2f}x",
        )
    console.print(t)
    ok = rate["bulk"] >= TARGET_TURNS_PER_S
    console.print(
        f"bulk / single = {summary['ratio_bulk_over_single']:.2f}x; "
        f"bulk reaches {summary['ratio_bulk_over_embed']:.0%} of the bare embedder; "
        f"storage-only is {summary['storage_share_of_bulk']:.0%} of bulk time"
    )
    if info["embedder"].startswith(("local:", "onnx:")):
        console.print(
            f"target: bulk >= {TARGET_TURNS_PER_S:.0f} turns/s -> {rate['bulk']:.1f} "
            f"[{'green' if ok else 'red'}]{'PASS' if ok else 'FAIL'}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embedder", default="local", help="local (default) or hashing")
    ap.add_argument("--turns", type=int, default=2000, help="distinct turns (default 2000)")
    ap.add_argument(
        "--single-turns",
        type=int,
        default=None,
        help="turns of the one-per-call baseline (default: all --turns)",
    )
    ap.add_argument("--batch", type=int, default=100, help="turns per bulk call (default 100)")
    ap.add_argument("--corpus", choices=["synthetic", "locomo"], default="synthetic")
    ap.add_argument(
        "--prefill",
        type=common.parse_size,
        default=0,
        help="start from a copy of the cached search database of this size (e.g. 100k)",
    )
    ap.add_argument(
        "--dir",
        default=None,
        help="where the fresh databases go (default: a temp dir in bench/.cache)",
    )
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)
    if args.single_turns is None:
        args.single_turns = args.turns
    embedder = common.make_embedder(args.embedder)
    console.print(f"loading {embedder.id} ...")
    load_s = common.warm_up(embedder)
    info = common.announce_machine(embedder)
    base = Path(args.dir) if args.dir else common.CACHE_DIR
    base.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="ingest-", dir=base))
    try:
        prefill = prepare(args, embedder, workdir)
        raw = run(args, embedder, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    raw["prefill"] = prefill
    summary = summarise(raw)
    print_results(raw, summary, info, args)
    common.write_json(
        args.json,
        {
            "benchmark": "ingest",
            "machine": info,
            "config": {k: v for k, v in vars(args).items() if k != "json"},
            "embedder_load_s": load_s,
            **raw,
            **summary,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
