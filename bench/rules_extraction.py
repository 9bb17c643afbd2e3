"""Rule-based extraction measured against LoCoMo's LLM-extracted observations.

Every turn of every conversation in a LoCoMo file is read by the fallback used when no LLM is
configured: ``--extractor profile`` (default) runs ``mnemo.text.profile_rules`` (structured profile
facts), ``--extractor facts`` runs ``mnemo.text.fact_rules`` (free-text facts such as "User
lives in Lyon"; the words user/they/their/them are not counted as content words of a fact), and
``--extractor parsed`` the clause reader of the fact job, ``mnemo.text.parsed_facts`` (spaCy;
each turn with its session's date, so relative dates resolve; the resolved date in brackets
is not counted as content words, since observations carry no dates).
A rule candidate *matches* an observation when

* the observation cites the candidate's turn (same ``dia_id``) and the same speaker, and
* at least ``--min-overlap`` (default 0.5) of the candidate value's content words (lower
  case, stop words dropped, a trailing "s" stripped) occur in the observation's text.

Precision = matched candidates / candidates; recall = observations matched by at least one
candidate / observations. Each observation names the speaker it is true of and the turns it
comes from; a fact can only match an observation of its own speaker's turn (in mnemo each
speaker is the user of their own turns), so recall is the share of what is true of the
speakers, as the annotators wrote it down turn by turn, that the rules find. Both are
reported overall, per pattern, and for candidates that pass
the profile's validation (confidence >= 0.4, importance >= 0.2). Observations are not
exhaustive, so precision is a lower bound of how often a candidate is right.

    python bench/rules_extraction.py --data ../shared/data/locomo-dev.json [--extractor facts]

Hand labels (``--labels bench/data/fact_labels.jsonl``): each line names a turn (``sample``,
``dia_id``), a fact the rules wrote from it (``fact``) and a label: ``correct`` (true of the
speaker, readable without the turn, grammatical), ``vague`` (true but its point is an
unresolved "it"/"them"/"this ..." or says nothing on its own), ``wrong`` (not a fact about the
speaker: about the person addressed, a courtesy, advice, a leave-taking, or false) or
``garbled`` (broken grammar or text run together). The rules are run again over the labelled
turns; labelled precision = correct facts / facts written, where every fact written must be
labelled (the unlabelled ones are listed, to be labelled). ``--sample N`` prints N more rule
facts of random turns (seeded) with their turn, to label.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mnemo.config.settings import Settings  # noqa: E402
from mnemo.eval.locomo import parse_locomo_date  # noqa: E402
from mnemo.text import parsed_facts  # noqa: E402
from mnemo.text.fact_rules import extract_facts  # noqa: E402
from mnemo.text.profile_rules import Candidate, extract_profile  # noqa: E402
from mnemo.tiers.conversation.profile import valid  # noqa: E402

STOP = set(
    re.findall(
        r"\w+",
        "a an the of to in on at for and or but is are was were be been my i me you your it its "
        "this that with from by as so very really just some",
    )
)
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"


def words(text: str) -> set[str]:
    """Content words of ``text``: lower case, no stop words, trailing "s" stripped."""
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w not in STOP:
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return out


def overlap(value: str, observation: str) -> float:
    """Share of the value's content words found in the observation (0 when it has none)."""
    v = words(value)
    return len(v & words(observation)) / len(v) if v else 0.0


@dataclass
class Hit:
    """One rule candidate from one turn and whether it matched an observation."""

    sample: str
    dia_id: str
    speaker: str
    candidate: Candidate
    matched: bool
    valid: bool


def observations(sample: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(speaker, dia_id, text) of every observation of a sample (list dia_ids flattened)."""
    out = []
    for per_session in sample["observation"].values():
        for spk, items in per_session.items():
            for text, dia in items:
                for d in [dia] if isinstance(dia, str) else dia:
                    out.append((spk, str(d).strip(), text))
    return out


def turns(sample: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(speaker, dia_id, text) of every turn; an image turn's caption is part of its text."""
    return [(spk, dia, text) for spk, dia, text, _ in dated_turns(sample)]


def dated_turns(sample: dict[str, Any]) -> list[tuple[str, str, str, datetime | None]]:
    """(speaker, dia_id, text, session date) of every turn (see :func:`turns`)."""
    conv, out = sample["conversation"], []
    for key, value in conv.items():
        if re.fullmatch(r"session_\d+", key) and isinstance(value, list):
            stamp = conv.get(f"{key}_date_time")
            when = parse_locomo_date(stamp) if isinstance(stamp, str) else None
            for t in value:
                text = t["text"] + (
                    f" [image: {t['blip_caption']}]" if t.get("blip_caption") else ""
                )
                out.append((t["speaker"], t["dia_id"], text, when))
    return out


_FACT_SUBJECT = re.compile(r"\b(?:user|they|their|them|themselves)\b", re.IGNORECASE)
#: A date the clause reader resolved, in brackets after its phrase.
_RESOLVED = re.compile(r"\s*\([^)]*\d{4}[^)]*\)")


def candidates(facts: list[str]) -> list[Candidate]:
    """Facts as candidates of pattern ``fact``, subject words and resolved dates left out."""
    return [
        Candidate("fact", "fact", _FACT_SUBJECT.sub(" ", _RESOLVED.sub("", f)), 1.0, 0.5, "fact", f)
        for f in facts
    ]


def limits(settings: Settings) -> parsed_facts.FactLimits:
    """The fact tier's bounds, as the clause reader takes them."""
    return parsed_facts.FactLimits(
        settings.fact_max_per_turn, settings.fact_min_chars, settings.fact_max_chars
    )


def all_facts(data: list[dict[str, Any]], extractor: str) -> dict[tuple[str, str], list[str]]:
    """The facts of every turn by (sample, dia_id): the regex rules or the clause reader."""
    settings = Settings(embedder="hashing")
    rows = [
        (s["sample_id"], dia, text, when) for s in data for _, dia, text, when in dated_turns(s)
    ]
    if extractor == "parsed":
        said = [parsed_facts.Said(text, when) for _, _, text, when in rows]
        found = parsed_facts.extract_many(said, limits(settings))
    else:
        bounds = (settings.fact_max_per_turn, settings.fact_min_chars, settings.fact_max_chars)
        found = [extract_facts(text, *bounds) for _, _, text, _ in rows]
    return {(sid, dia): f for (sid, dia, _, _), f in zip(rows, found, strict=True)}


def fact_candidates(text: str, settings: Settings) -> list[Candidate]:
    """The fact tier's rule extraction of one turn, as candidates of pattern ``fact``."""
    found = extract_facts(
        text, settings.fact_max_per_turn, settings.fact_min_chars, settings.fact_max_chars
    )
    return [
        Candidate("fact", "fact", _FACT_SUBJECT.sub(" ", f), 1.0, 0.5, "fact", f) for f in found
    ]


def measure(
    data: list[dict[str, Any]], min_overlap: float, extractor: str = "profile"
) -> tuple[list[Hit], int, int]:
    """Rule hits over all samples, observations count, observations matched."""
    settings = Settings(embedder="hashing")
    hits: list[Hit] = []
    n_obs = n_obs_matched = 0
    facts = all_facts(data, extractor) if extractor in ("facts", "parsed") else {}
    for sample in data:
        obs_by_turn: dict[tuple[str, str], list[int]] = defaultdict(list)
        obs = observations(sample)
        for i, (spk, dia, _) in enumerate(obs):
            obs_by_turn[(spk, dia)].append(i)
        matched_obs: set[int] = set()
        for spk, dia, text in turns(sample):
            if extractor in ("facts", "parsed"):
                cands = candidates(facts[(sample["sample_id"], dia)])
                ok = {(c.category, c.key) for c in cands}
            else:
                cands = extract_profile(text)
                ok = {(c.category, c.key) for c in valid(cands, settings)}
            for c in cands:
                found = [
                    i for i in obs_by_turn[(spk, dia)] if overlap(c.value, obs[i][2]) >= min_overlap
                ]
                matched_obs.update(found)
                hits.append(
                    Hit(sample["sample_id"], dia, spk, c, bool(found), (c.category, c.key) in ok)
                )
        n_obs += len(obs)
        n_obs_matched += len(matched_obs)
    return hits, n_obs, n_obs_matched


def load_labels(path: str) -> dict[tuple[str, str, str], dict[str, str]]:
    """Labels by (sample, dia_id, fact)."""
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[(row["sample"], row["dia_id"], row["fact"])] = row
    return out


def labelled_precision(
    data: list[dict[str, Any]],
    labels: dict[tuple[str, str, str], dict[str, str]],
    extractor: str = "facts",
) -> dict[str, Any]:
    """The rules run again over the labelled turns: counts per label of the facts written,
    the labelled facts no longer written, and the facts written that have no label."""
    wanted = {(s, d) for s, d, _ in labels}
    facts = all_facts(data, "parsed" if extractor == "parsed" else "facts")
    written: Counter[str] = Counter()
    unlabelled: list[dict[str, str]] = []
    produced: set[tuple[str, str, str]] = set()
    for sample in data:
        for _spk, dia, _text in turns(sample):
            if (sample["sample_id"], dia) not in wanted:
                continue
            for f in facts[(sample["sample_id"], dia)]:
                key = (sample["sample_id"], dia, f)
                produced.add(key)
                if key in labels:
                    written[labels[key]["label"]] += 1
                else:
                    unlabelled.append({"sample": key[0], "dia_id": dia, "fact": f})
    dropped = Counter(row["label"] for key, row in labels.items() if key not in produced)
    n = sum(written.values()) + len(unlabelled)
    return {
        "labelled_turns": len(wanted),
        "facts": n,
        "by_label": dict(written),
        "unlabelled": unlabelled,
        "precision": written["correct"] / n if n else 0.0,
        "wrong_or_garbled": (written["wrong"] + written["garbled"]) / n if n else 0.0,
        "no_longer_written": dict(dropped),
    }


def print_sample(
    data: list[dict[str, Any]],
    n: int,
    seed: int,
    skip: set[tuple[str, str]],
    extractor: str = "facts",
) -> None:
    """``n`` rule facts of random turns not in ``skip``, each with its turn, to label."""
    facts = all_facts(data, "parsed" if extractor == "parsed" else "facts")
    rows = []
    for sample in data:
        for spk, dia, text in turns(sample):
            if (sample["sample_id"], dia) in skip:
                continue
            found = facts[(sample["sample_id"], dia)]
            if found:
                rows.append((sample["sample_id"], dia, spk, text, found))
    random.Random(seed).shuffle(rows)
    shown = 0
    for sid, dia, spk, text, found in rows:
        if shown >= n:
            break
        print(f"## {sid} {dia} {spk}: {text}")
        for f in found:
            print(json.dumps({"sample": sid, "dia_id": dia, "fact": f}))
        shown += len(found)


def report(hits: list[Hit], n_obs: int, n_obs_matched: int, n_turns: int) -> dict[str, Any]:
    """Overall and per-pattern numbers as a dict (printed as a table by ``main``)."""
    per: dict[str, Counter[str]] = defaultdict(Counter)
    for h in hits:
        per[h.candidate.pattern]["n"] += 1
        per[h.candidate.pattern]["matched"] += h.matched
    valid_hits = [h for h in hits if h.valid]
    return {
        "turns": n_turns,
        "candidates": len(hits),
        "matched_candidates": sum(h.matched for h in hits),
        "precision": sum(h.matched for h in hits) / max(len(hits), 1),
        "valid_candidates": len(valid_hits),
        "valid_precision": sum(h.matched for h in valid_hits) / max(len(valid_hits), 1),
        "observations": n_obs,
        "observations_matched": n_obs_matched,
        "recall": n_obs_matched / max(n_obs, 1),
        "per_pattern": {
            p: {"n": c["n"], "matched": c["matched"], "precision": c["matched"] / c["n"]}
            for p, c in sorted(per.items(), key=lambda x: -x[1]["n"])
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print it (and write JSON with ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="a LoCoMo JSON file")
    ap.add_argument("--min-overlap", type=float, default=0.5)
    ap.add_argument("--extractor", choices=("profile", "facts", "parsed"), default="profile")
    ap.add_argument("--json", help="write the numbers to this file")
    ap.add_argument("--examples", type=int, default=0, help="print this many hits per outcome")
    ap.add_argument("--labels", help="hand labels of fact rule output (JSONL), see above")
    ap.add_argument("--sample", type=int, default=0, help="print this many new facts to label")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    labels = load_labels(args.labels) if args.labels else {}
    if args.sample:
        print_sample(data, args.sample, args.seed, {(s, d) for s, d, _ in labels}, args.extractor)
        return 0
    hits, n_obs, n_matched = measure(data, args.min_overlap, args.extractor)
    n_turns = sum(len(turns(s)) for s in data)
    out = report(hits, n_obs, n_matched, n_turns)
    out["min_overlap"], out["extractor"] = args.min_overlap, args.extractor
    if labels:
        out["labelled"] = lab = labelled_precision(data, labels, args.extractor)
        print(
            f"labelled: {lab['facts']} facts on {lab['labelled_turns']} turns, "
            f"precision {lab['precision']:.3f}, wrong or garbled {lab['wrong_or_garbled']:.3f}, "
            f"by label {lab['by_label']}, unlabelled {len(lab['unlabelled'])}, "
            f"labelled facts no longer written {lab['no_longer_written']}"
        )
        for row in lab["unlabelled"]:
            print("UNLABELLED", json.dumps(row))
    print(f"{len(data)} conversations, {n_turns} turns, {n_obs} observations")
    print(
        f"candidates {out['candidates']}, matched {out['matched_candidates']}: "
        f"precision {out['precision']:.3f}; valid {out['valid_candidates']}: "
        f"precision {out['valid_precision']:.3f}"
    )
    print(f"observations matched {n_matched}: recall {out['recall']:.3f}")
    print(f"{'pattern':<16}{'n':>6}{'matched':>9}{'precision':>11}")
    for p, c in out["per_pattern"].items():
        print(f"{p:<16}{c['n']:>6}{c['matched']:>9}{c['precision']:>11.2f}")
    for outcome in (True, False):
        for h in [h for h in hits if h.matched == outcome][: args.examples]:
            c = h.candidate
            print(
                f"{'MATCH' if outcome else 'MISS '} {h.dia_id} {h.speaker}: "
                f"{c.category}/{c.key}={c.value!r} <- {c.sentence[:90]!r}"
            )
    import common  # a sibling when run as a script (tests load this file without bench/)

    out["machine"] = common.announce_machine()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
