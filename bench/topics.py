"""Topic memory (`topics`) on real conversations: compression ratio and latencies.

Two measurements over the LoCoMo dev conversations (``../shared/data/locomo-dev.json``; turns of
``speaker_a`` are the user, ``speaker_b`` the assistant, each at its own time):

* **histories**: consecutive windows of 10, 20 and 50 turns stored as the seed stores a
  compacted history (JSON -> gzip -> base64): uncompressed JSON bytes, stored characters, the
  size reduction ``1 - stored/json`` (the seed claims 70-90%), and the time to compress and to
  decompress one history.
* **replay**: every conversation replayed through the seed API (``add_user_message`` /
  ``add_assistant_message``, the ``topics`` preset unless ``--preset``) into a fresh SQLite
  file: topics opened, compactions, restores, evictions, the reduction of every compressed
  history left at the end, and the latency of the calls that matched only, compacted, or
  restored a history.

    .venv/bin/python bench/topics.py                                  # hashing embedder
    .venv/bin/python bench/topics.py --embedder local --json bench/results/topics-local.json
    .venv/bin/python bench/topics.py --scope session                  # one session = one chat
    .venv/bin/python bench/topics.py --inline          # cost of the inline topic apply per turn
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import ROOT, announce_machine, console, make_embedder, now, stats_ms, write_json
from mnemo import Memory
from mnemo.eval.locomo import LocomoConversation, load_locomo
from mnemo.eval.longmemeval import load_longmemeval
from mnemo.storage.topic_records import TopicEntry
from mnemo.tiers.topics import compaction

#: Only the topic tier runs in the replay (the default preset also enqueues fact, profile and
#: episode jobs with every turn).
TOPICS_ONLY = {"fact_extraction": "off", "profile_enabled": False, "episodes_enabled": False}
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
DEFAULT_LME = ROOT.parent / "shared" / "data" / "longmemeval-s-dev.json"


def entries_of(conv: LocomoConversation) -> list[TopicEntry]:
    """Every turn of a conversation as a topic message, in order."""
    return [
        TopicEntry(t.role, t.content, t.created_at.timestamp(), t.dia_id, i)
        for i, t in enumerate(t for s in conv.sessions for t in s.turns)
    ]


def lme_sequences(path: str) -> list[list[TopicEntry]]:
    """LongMemEval haystack sessions (each once), one turn sequence per question's haystack."""
    seen: set[str] = set()
    out = []
    for q in load_longmemeval(path).questions:
        seq = []
        for s in q.sessions:
            if s.id in seen:
                continue
            seen.add(s.id)
            t0 = s.date.timestamp()
            seq += [TopicEntry(t.role, t.content, t0 + t.index, "", t.index) for t in s.turns]
        if seq:
            out.append(seq)
    return out


def measure_histories(seqs: list[list[TopicEntry]], sizes: list[int], reps: int) -> list[dict]:
    """Compression of consecutive N-turn windows of every turn sequence."""
    rows = []
    for n in sizes:
        raw_total = stored_total = gzip_total = 0
        ratios, comp_s, decomp_s = [], [], []
        for turns in seqs:
            for start in range(0, len(turns) - n + 1, n):
                window = turns[start : start + n]
                raw = len(compaction.history_json(window))
                t0 = now()
                for _ in range(reps):
                    text = compaction.compress(window)
                t1 = now()
                for _ in range(reps):
                    compaction.decompress(text)
                t2 = now()
                comp_s.append((t1 - t0) / reps)
                decomp_s.append((t2 - t1) / reps)
                raw_total += raw
                stored_total += len(text)
                gzip_total += len(base64.b64decode(text))
                ratios.append(compaction.compression_ratio(raw, len(text)))
        if not ratios:
            continue
        rows.append(
            {
                "messages": n,
                "histories": len(ratios),
                "json_kb_mean": raw_total / len(ratios) / 1000,
                "stored_kb_mean": stored_total / len(ratios) / 1000,
                "reduction_pooled": compaction.compression_ratio(raw_total, stored_total),
                "reduction_gzip_only": compaction.compression_ratio(raw_total, gzip_total),
                "reduction_median": statistics.median(ratios),
                "reduction_min": min(ratios),
                "reduction_max": max(ratios),
                "compress_ms": stats_ms(comp_s),
                "decompress_ms": stats_ms(decomp_s),
            }
        )
    return rows


def _chats(conv: LocomoConversation, scope: str) -> list[tuple[str, list[Any]]]:
    if scope == "conversation":
        return [(conv.sample_id, [t for s in conv.sessions for t in s.turns])]
    return [(f"{conv.sample_id}-{s.id}", s.turns) for s in conv.sessions]


def replay(
    convs: list[LocomoConversation], embedder_name: str, preset: str, scope: str, **overrides: Any
) -> dict:
    """Replay every conversation through the seed API; counts, reductions and latencies."""
    lat: dict[str, list[float]] = {"match": [], "compaction": [], "restore": []}
    counts = {"turns": 0, "compactions": 0, "restores": 0}
    raw_total = stored_total = 0
    embedder = make_embedder(embedder_name)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "topics.db")
        mem = Memory(path, embedder=embedder, preset=preset, **{**TOPICS_ONLY, **overrides})
        compressed: dict[str, int] = {}
        for conv in convs:
            for session_id, turns in _chats(conv, scope):
                for t in turns:
                    add = mem.add_user_message if t.role == "user" else mem.add_assistant_message
                    t0 = now()
                    topic = add(conv.sample_id, t.content, session_id, now=t.created_at)
                    took = now() - t0
                    counts["turns"] += 1
                    if topic is None:
                        continue
                    before = compressed.get(topic.id, 0)
                    kind = "match"
                    if topic.compressed_messages > before:
                        kind, counts["compactions"] = "compaction", counts["compactions"] + 1
                    elif before and topic.compressed_messages == 0:
                        kind, counts["restores"] = "restore", counts["restores"] + 1
                    compressed[topic.id] = topic.compressed_messages
                    lat[kind].append(took)
        topics = [t for c in convs for t in mem.topics(c.sample_id, include_inactive=True)]
        for t in topics:
            row = mem.store.topics.get_topic(mem.tenant, t.id)
            if row is not None and row.compressed:
                raw_total += len(compaction.history_json(compaction.decompress(row.compressed)))
                stored_total += len(row.compressed)
        mem.close()
    sizes = [t.message_count for t in topics]
    return {
        "embedder": embedder.id,
        "preset": preset,
        "scope": scope,
        "overrides": overrides,
        **counts,
        "topics": len(topics),
        "evicted": sum(1 for t in topics if t.evicted_at is not None),
        "merged": sum(1 for t in topics if t.merged_into is not None),
        "messages_per_topic_mean": statistics.mean(sizes) if sizes else 0.0,
        "messages_per_topic_max": max(sizes, default=0),
        "topics_compacted": sum(1 for t in topics if t.compressed_messages),
        "final_histories_reduction": compaction.compression_ratio(raw_total, stored_total),
        "final_histories_json_kb": raw_total / 1000,
        "latency_ms": {k: stats_ms(v) for k, v in lat.items()},
    }


def inline_cost(turns: int = 200) -> dict[str, dict[str, dict[str, float]]]:
    """Per-turn cost of the topic apply: ``add_messages`` alone, ``add_user_message`` (write +
    inline apply) and an apply with nothing pending, at synchronous FULL and NORMAL."""
    out = {}
    for sync in ("FULL", "NORMAL"):
        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "m.db")
            mem = Memory(path, embedder="hashing", synchronous=sync, **TOPICS_ONLY)
            times: dict[str, list[float]] = {k: [] for k in ("add_messages", "add_user_message")}
            times["apply"] = []
            for k in range(turns):
                words = " ".join(f"w{k % 5}x{i}" for i in range(8))
                text = f"turn {k} about subject {k % 5}: {words}"
                t0 = now()
                mem.add_messages([{"role": "user", "content": text}], "u1", "plain")
                t1 = now()
                mem.add_user_message("u1", text, "topic")
                t2 = now()
                mem.topic_memory.apply("u1", "topic")
                t3 = now()
                times["add_messages"].append(t1 - t0)
                times["add_user_message"].append(t2 - t1)
                times["apply"].append(t3 - t2)
            mem.close()
        out[sync] = {k: stats_ms(v) for k, v in times.items()}
    return out


def print_histories(name: str, rows: list[dict]) -> None:
    """One Markdown table of history compression."""
    console.print(f"[bold]{name}: compressed histories (JSON -> gzip -> base64)[/bold]")
    console.print(
        "| messages | histories | JSON KB | stored KB | reduction (pooled, min-max) |"
        " gzip alone | compress p50 ms | decompress p50 ms |"
    )
    for r in rows:
        console.print(
            f"| {r['messages']} | {r['histories']} | {r['json_kb_mean']:.2f} |"
            f" {r['stored_kb_mean']:.2f} | {r['reduction_pooled']:.1%}"
            f" ({r['reduction_min']:.1%}-{r['reduction_max']:.1%}) |"
            f" {r['reduction_gzip_only']:.1%} |"
            f" {r['compress_ms']['p50']:.3f} | {r['decompress_ms']['p50']:.3f} |"
        )


def main(argv: list[str] | None = None) -> int:
    """Run both measurements and print them (and write JSON with ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo JSON file")
    ap.add_argument("--lme", default=str(DEFAULT_LME), help="LongMemEval JSON ('' to skip)")
    ap.add_argument("--embedder", default="hashing", help="hashing | local | openai")
    ap.add_argument("--preset", default="topics", help="settings preset of the replay")
    ap.add_argument("--scope", choices=["conversation", "session"], default="conversation")
    ap.add_argument("--threshold", type=float, help="topic_similarity_threshold override")
    ap.add_argument("--sizes", default="10,20,50", help="history sizes, in messages")
    ap.add_argument("--reps", type=int, default=20, help="repetitions per history timing")
    ap.add_argument("--inline", action="store_true", help="only measure the inline apply cost")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    if args.inline:
        cost = inline_cost()
        for sync, rows in cost.items():
            cells = ", ".join(f"{k} p50 {v['p50']:.2f} ms" for k, v in rows.items())
            console.print(f"synchronous={sync}: {cells}")
        write_json(args.json, {"machine": announce_machine(), "inline": cost})
        return 0
    convs = load_locomo(args.data).conversations
    sizes = [int(x) for x in args.sizes.split(",")]
    histories = {"locomo": measure_histories([entries_of(c) for c in convs], sizes, args.reps)}
    if args.lme:
        histories["longmemeval"] = measure_histories(lme_sequences(args.lme), sizes, args.reps)
    for name, rows in histories.items():
        print_histories(name, rows)
    overrides = {} if args.threshold is None else {"topic_similarity_threshold": args.threshold}
    result = replay(convs, args.embedder, args.preset, args.scope, **overrides)
    console.print("[bold]Replay through add_user_message / add_assistant_message[/bold]")
    for k, v in result.items():
        if k != "latency_ms":
            console.print(f"  {k}: {v:.3f}" if isinstance(v, float) else f"  {k}: {v}")
    for kind, s in result["latency_ms"].items():
        if s.get("n"):
            console.print(f"  {kind}: n={s['n']} p50={s['p50']:.2f} ms p95={s['p95']:.2f} ms")
    write_json(
        args.json,
        {
            "machine": announce_machine(),
            "data": args.data,
            "histories": histories,
            "replay": result,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
