"""Hand labels of the clause reader's facts on LongMemEval user turns (a set of everyday turns).

LoCoMo's dev turns that give facts were all used up by the earlier labelled sets and the
looks taken while tuning, so the fresh set of facts labelled after the reader was frozen is
drawn from the user turns of ``longmemeval-s-dev.json``: chats with an assistant, each turn
read with its session's date. A turn is named by ``sample`` (the session id) and ``dia_id``
(its index in the session); sessions shared by several questions count once. Labels are
those of ``bench/rules_extraction.py`` (correct, vague, wrong, garbled).

    python bench/parsed_labels_lme.py --sample 150 --seed 39     # facts to label, with turns
    python bench/parsed_labels_lme.py --sample 150 --seed 43 \
        --skip bench/data/fact_labels_parsed_lme39.jsonl        # other turns than that set
                                                                # (--by-text: and other texts)
    python bench/parsed_labels_lme.py --labels bench/data/fact_labels_parsed_lme39.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import common  # noqa: E402
from mnemo.config.settings import Settings  # noqa: E402
from mnemo.text import parsed_facts  # noqa: E402
from mnemo.tiers.facts.rule_facts import limits  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval-s-dev.json"
Turn = tuple[str, str, str, datetime | None]  # session id, turn index, text, date


def user_turns(data: list[dict[str, object]]) -> list[Turn]:
    """Every user turn of every distinct session, in file order."""
    seen: set[str] = set()
    out: list[Turn] = []
    for q in data:
        sessions = q["haystack_sessions"]
        ids, dates = q["haystack_session_ids"], q["haystack_dates"]
        assert isinstance(sessions, list) and isinstance(ids, list) and isinstance(dates, list)
        for sid, when, turns in zip(ids, dates, sessions, strict=True):
            if sid in seen:
                continue
            seen.add(sid)
            date = datetime.strptime(when[:10] + when[-6:], "%Y/%m/%d %H:%M")
            for n, t in enumerate(turns):
                if t["role"] == "user":
                    out.append((sid, str(n), t["content"], date))
    return out


def facts_of(turns: list[Turn]) -> list[list[str]]:
    """The clause reader's facts of each turn, with the fact job's limits."""
    said = [parsed_facts.Said(text, when) for _, _, text, when in turns]
    return parsed_facts.extract_many(said, limits(Settings()))


def sample(
    turns: list[Turn], n: int, seed: int, skip: set[tuple[str, str]], by_text: bool = False
) -> None:
    """Print ``n`` facts of seeded random turns that give one, each turn with its facts; a
    turn in ``skip`` is left out. ``by_text`` (the draws from seed 48 on) also leaves out any
    turn with the same text as a skipped one (the same turn can sit in several sessions) and
    every repeat of a text after its first; without it, the earlier draws stay reproducible."""
    order = [t for t in turns if (t[0], t[1]) not in skip]
    if by_text:
        skipped = {t[2] for t in turns if (t[0], t[1]) in skip}
        order = [t for t in order if t[2] not in skipped]
        order = list({t[2]: t for t in reversed(order)}.values())[::-1]  # first of each text
    random.Random(seed).shuffle(order)
    shown = 0
    for start in range(0, len(order), 200):
        chunk = order[start : start + 200]
        for (sid, dia, text, _), found in zip(chunk, facts_of(chunk), strict=True):
            if shown >= n:
                return
            if found:
                print(f"## {sid} {dia}: {text[:1200]}")
                for f in found:
                    print(json.dumps({"sample": sid, "dia_id": dia, "fact": f}))
                shown += len(found)


def measure(turns: list[Turn], path: str) -> dict[str, object]:
    """Labelled precision: every fact the reader writes on the labelled turns must be labelled."""
    rows = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x]
    labels = {(r["sample"], r["dia_id"], r["fact"]): r["label"] for r in rows}
    wanted = {(s, d) for s, d, _ in labels}
    chosen = [t for t in turns if (t[0], t[1]) in wanted]
    by_label: Counter[str] = Counter()
    unlabelled = []
    for (sid, dia, _, _), found in zip(chosen, facts_of(chosen), strict=True):
        for f in found:
            label = labels.get((sid, dia, f))
            by_label[label or "unlabelled"] += 1
            if label is None:
                unlabelled.append({"sample": sid, "dia_id": dia, "fact": f})
    total = sum(by_label.values())
    return {
        "facts": total,
        "turns": len(chosen),
        "precision": by_label["correct"] / total if total else 0.0,
        "by_label": dict(by_label),
        "unlabelled": unlabelled,
    }


def main(argv: list[str] | None = None) -> int:
    """Print facts to label, or the labelled precision of a label file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="a LongMemEval JSON file")
    ap.add_argument("--sample", type=int, default=0, help="print this many facts to label")
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--labels", help="hand labels (JSONL) to measure")
    ap.add_argument("--skip", nargs="*", default=[], help="label files whose turns to leave out")
    ap.add_argument(
        "--by-text", action="store_true", help="also leave out turns with a skipped turn's text"
    )
    args = ap.parse_args(argv)
    turns = user_turns(json.loads(Path(args.data).read_text(encoding="utf-8")))
    if args.sample:
        skip = {
            (r["sample"], r["dia_id"])
            for path in args.skip
            for r in map(json.loads, Path(path).read_text(encoding="utf-8").splitlines())
        }
        sample(turns, args.sample, args.seed, skip, args.by_text)
    if args.labels:
        out = measure(turns, args.labels)
        out["machine"] = common.announce_machine(stderr=True)
        print(json.dumps({k: v for k, v in out.items() if k != "unlabelled"}))
        for row in out["unlabelled"]:  # type: ignore[attr-defined]
            print("UNLABELLED", json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
