"""The LLM fact extractor against a real OpenAI-compatible server, beside the rules, on the same
LoCoMo turns.

A seeded sample of ``--turns`` LoCoMo turns (every speaker is the user of their own turns) is
read by the regex rules (``mnemo.text.fact_rules``, what ran with no LLM before issue 35), by
the clause reader (``mnemo.text.parsed_facts``, what runs with no LLM today) and by the fact
tier's LLM extraction (the atomic prompt, ``facts_atomic.md``,
sent with its JSON Schema and token budget through :class:`mnemo.llm.LLMClient`). Four fact
lists are compared: ``rules``; ``raw``, the model's facts as it answered them; ``llm``, those
grounded in their turn (``mnemo.tiers.facts.llm.kept_fact``, what the tier keeps); and
``llm+fallback``, what the tier stores (the rules' facts where the model's answer stayed
invalid, ``LLMOutputError``, or held no grounded fact).

Coverage of the LoCoMo observations uses ``bench/rules_extraction.py``'s matching: a fact
matches an observation of its own turn and speaker when at least ``--min-overlap`` of its
content words occur in it; recall = observations of the sampled turns matched, precision =
facts that match one. ``--out`` writes one JSON row per turn (its text, the rules' facts, the
model's facts, the dropped ones, the failure, the seconds); the model's facts are labelled by
hand like ``bench/data/fact_labels.jsonl`` (``correct``, ``vague``, ``wrong``, ``garbled``) in
``bench/data/fact_labels_llm.jsonl``, and ``--labels`` prints the labelled precision (correct /
facts) of each list, listing any fact without a label.

    python bench/llm_facts.py --base-url http://127.0.0.1:8089/v1 \
        --model qwen2.5-coder-0.5b-instruct --turns 30 --out /tmp/llm_facts.jsonl
    python bench/llm_facts.py --from bench/data/llm_facts_qwen05.jsonl \
        --labels bench/data/fact_labels_llm.jsonl

``--from FILE`` re-reads an earlier run's ``--out`` instead of asking the model (the numbers
without the wait). The model is slow on a shared CPU: 30 turns of a 0.5B model on one core,
with five other jobs on the machine, took about half an hour (docs/llm.md).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import common
from mnemo.config.settings import Settings
from mnemo.errors import LLMOutputError, LLMTransientError
from mnemo.eval.locomo import parse_locomo_date
from mnemo.llm import LLMClient, render_prompt
from mnemo.text import parsed_facts
from mnemo.tiers.facts import llm as fact_llm
from mnemo.tiers.facts.rule_facts import limits as rule_limits
from rules_extraction import DEFAULT_DATA, fact_candidates, observations, overlap, turns

#: The fact lists compared: the regex rules' (main before the clause reader), the model's as it
#: answered, the grounded ones, what the tier stored then (the regex rules' where the model
#: failed), the clause reader's (the rules today, read again from each row's text and date),
#: and what the tier stores today (the reader's where the model failed).
KINDS = ("rules", "raw", "llm", "llm+fallback", "reader", "llm+reader")
_SUBJECT = re.compile(r"\b(?:user|they|their|them|themselves)\b", re.IGNORECASE)


class Tally(logging.Handler):
    """Counts the LLM client's log lines about repair requests and answers cut at max_tokens,
    and keeps the facts dropped as ungrounded (``dropped``, cleared by the caller)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.counts: Counter[str] = Counter()
        self.dropped: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if "not grounded in its message" in msg:
            self.counts["ungrounded_dropped"] += 1
            self.dropped.append(str(record.args[0]) if record.args else msg)
        elif "invalid JSON; asking once more" in msg:
            self.counts["repair_requests"] += 1
        elif "stopped at max_tokens" in msg:
            self.counts["cut_at_max_tokens"] += 1
        elif "rejects response_format" in msg:
            self.counts["format_rejected"] += 1


def sample_turns(data: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, str]]:
    """``n`` turns drawn with ``seed``: sample, dia_id, speaker, text and the session's date."""
    rows = []
    for sample in data:
        conv = sample["conversation"]
        for spk, dia, text in turns(sample):
            session = dia.split(":")[0].lstrip("D")
            when = str(conv.get(f"session_{session}_date_time", ""))
            rows.append({"sample": sample["sample_id"], "dia_id": dia, "speaker": spk,
                         "text": text, "when": when})  # fmt: skip
    return random.Random(seed).sample(rows, min(n, len(rows)))


def ask_llm(client: LLMClient, turn: dict[str, str], settings: Settings) -> dict[str, Any]:
    """The LLM's facts of one turn, or the failure, with its time."""
    limits = (settings.fact_min_chars, settings.fact_max_chars)
    t0 = time.perf_counter()
    out: dict[str, Any] = {"facts": [], "failure": None}
    try:
        facts, usage = fact_llm.extract_atomic(
            client, turn["text"], turn["when"], settings.fact_max_per_turn, limits
        )
        out["facts"], out["tokens"] = facts, usage.total_tokens
    except (LLMOutputError, LLMTransientError) as exc:
        out["failure"] = f"{type(exc).__name__}: {exc}"[:300]
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def coverage(
    data: list[dict[str, Any]], rows: list[dict[str, Any]], field: str, min_overlap: float
) -> dict[str, Any]:
    """Facts in ``row[field]`` against the observations of the sampled turns."""
    obs_by_turn: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for sample in data:
        for spk, dia, text in observations(sample):
            obs_by_turn[(sample["sample_id"], spk, dia)].append(text)
    n_obs = n_obs_matched = n_facts = n_matched = 0
    for row in rows:
        obs = obs_by_turn[(row["sample"], row["speaker"], row["dia_id"])]
        hit: set[int] = set()
        for fact in row[field]:
            value = _SUBJECT.sub(" ", fact)
            found = {i for i, o in enumerate(obs) if overlap(value, o) >= min_overlap}
            n_facts += 1
            n_matched += bool(found)
            hit |= found
        n_obs += len(obs)
        n_obs_matched += len(hit)
    return {
        "facts": n_facts,
        "precision": round(n_matched / n_facts, 3) if n_facts else 0.0,
        "observations": n_obs,
        "recall": round(n_obs_matched / n_obs, 3) if n_obs else 0.0,
    }


def labelled(rows: list[dict[str, Any]], path: str, field: str) -> dict[str, Any]:
    """Labelled precision of the facts in ``row[field]``: correct / facts, with the
    unlabelled listed."""
    labels = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            labels[(r["sample"], r["dia_id"], r["fact"])] = r["label"]
    counts: Counter[str] = Counter()
    unlabelled = []
    for row in rows:
        for fact in row[field]:
            label = labels.get((row["sample"], row["dia_id"], fact))
            if label is None:
                unlabelled.append({"sample": row["sample"], "dia_id": row["dia_id"], "fact": fact})
            else:
                counts[label] += 1
    n = sum(counts.values()) + len(unlabelled)
    return {
        "facts": n,
        "by_label": dict(counts),
        "precision": round(counts["correct"] / n, 3) if n else 0.0,
        "unlabelled": unlabelled,
    }


def run(args: argparse.Namespace, data: list[dict[str, Any]], tally: Tally) -> list[dict[str, Any]]:
    """Ask the model for every sampled turn; rows with the rules' and the LLM's facts (and the
    LLM's facts dropped as ungrounded)."""
    settings = Settings(embedder="hashing")
    client = LLMClient(args.base_url, args.model, timeout_s=args.timeout, max_retries=1)
    rows = []
    for i, turn in enumerate(sample_turns(data, args.turns, args.seed)):
        tally.dropped.clear()
        answer = ask_llm(client, turn, settings)
        answer["dropped"] = list(tally.dropped)
        rules = [c.sentence for c in fact_candidates(turn["text"], settings)]
        rows.append({**turn, "rules": rules, "llm": answer["facts"], **answer})
        failed = f" FAILED {answer['failure']}" if answer["failure"] else ""
        shown = f"{turn['text'][:70]!r} -> {answer['facts']}{failed}"
        print(f"{i + 1:>4} {answer['seconds']:>6.1f}s {shown}", flush=True)
    client.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run (or re-read) the comparison and print it; ``--json`` writes the numbers."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="a LoCoMo JSON file")
    ap.add_argument("--base-url", default="http://127.0.0.1:8089/v1")
    ap.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per request")
    ap.add_argument("--min-overlap", type=float, default=0.5)
    ap.add_argument("--out", help="write one JSON row per turn (facts, failure, time) here")
    ap.add_argument("--from", dest="source", help="re-read the rows of an earlier --out")
    ap.add_argument("--labels", help="hand labels of the LLM's facts (JSONL)")
    ap.add_argument("--json", help="write the numbers to this file")
    args = ap.parse_args(argv)
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    tally = Tally()
    logging.getLogger("mnemo.llm").addHandler(tally)
    logging.getLogger("mnemo.llm").setLevel(logging.INFO)
    if args.source:
        lines = Path(args.source).read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines if line.strip()]
    else:
        rows = run(args, data, tally)
    if args.out:
        text = "".join(json.dumps(r) + "\n" for r in rows)
        Path(args.out).write_text(text, encoding="utf-8")
    for r in rows:  # the model's facts, then the grounded ones (what the tier keeps today)
        r["raw"] = r["llm"] + [f for f in r.get("dropped", []) if f not in r["llm"]]
        prompt = render_prompt("facts_atomic", max_facts="3", message_time=r["when"])
        r["llm"] = [f for f in r["raw"] if fact_llm.kept_fact(f, r["text"], prompt)]
        r["llm+fallback"] = r["llm"] or r["rules"]  # rules: a failure, or no fact
    said = [parsed_facts.Said(r["text"], parse_locomo_date(r["when"])) for r in rows]
    limits = rule_limits(Settings(embedder="hashing"))
    for r, found in zip(rows, parsed_facts.extract_many(said, limits), strict=True):
        r["reader"] = found
        r["llm+reader"] = r["llm"] or found
    failed = [r for r in rows if r["failure"]]
    empty = [r for r in rows if not r["failure"] and not r["llm"]]
    out: dict[str, Any] = {
        "turns": len(rows),
        "seconds_per_turn": round(sum(r["seconds"] for r in rows) / max(len(rows), 1), 2),
        "llm_failed": len(failed),
        "llm_empty": len(empty),
        "llm_empty_where_rules_found_facts": sum(bool(r["rules"]) for r in empty),
        "client_log": dict(tally.counts),
        **{k: coverage(data, rows, k, args.min_overlap) for k in KINDS},
    }
    if not args.source:  # the rows' seconds were measured here (with --from, elsewhere)
        out["machine"] = common.announce_machine(stderr=True)
    if args.labels:
        out["labelled"] = {k: labelled(rows, args.labels, k) for k in KINDS}
    print(json.dumps({k: v for k, v in out.items() if k != "labelled"}, indent=1))
    for kind, lab in out.get("labelled", {}).items():
        print(f"labelled {kind}: {lab['facts']} facts, precision {lab['precision']:.3f}, "
              f"by label {lab['by_label']}, unlabelled {len(lab['unlabelled'])}")  # fmt: skip
    for row in out.get("labelled", {}).get("raw", {}).get("unlabelled", []):
        print("UNLABELLED", json.dumps(row))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
