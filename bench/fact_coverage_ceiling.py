"""How far screening can move coverage of LoCoMo's observations: the clause reader as it is,
with its screen switched off, and every sentence of every turn kept whole.

``bench/rules_extraction.py --extractor parsed`` measures the reader: the share of LoCoMo's
observations (written by an LLM, turn by turn) that a fact of the same turn matches, and the
share of facts that match one ("precision against observations"; same matching rule, see
that file). This asks what lies beyond the reader's screen (:func:`mnemo.text.clause_screen.
refused`), which drops questions, hedges, moods with no aim, vague objects and the like.
Three arms, on the same turns:

* ``reader``: the fact job's clause reader, unchanged;
* ``no screen``: the same clauses, none refused (a counterfactual: the module's ``refused``
  is replaced for this run, and every rendered clause about the speaker is kept);
* ``sentences``: every sentence of every turn, as it was said, is a "fact" (the ceiling of
  any extractor that copies words from the turn rather than infers).

If the ``no screen`` arm stays below a coverage goal, no choice of what to refuse reaches it;
if its precision is far below the reader's, relaxing the screen trades precision for
coverage at that rate.

    python bench/fact_coverage_ceiling.py --data ../shared/data/locomo-dev.json [--json F]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import common  # noqa: E402
import rules_extraction as R  # noqa: E402
from mnemo.text import parsed_facts  # noqa: E402
from mnemo.text.sentences import sentences  # noqa: E402

Facts = dict[tuple[str, str], list[str]]


def coverage(data: list[dict[str, Any]], facts: Facts, min_overlap: float) -> dict[str, Any]:
    """Observations matched / observations, and matching facts / facts (as the rules bench)."""
    n_obs = n_matched = n_facts = n_hits = 0
    for sample in data:
        obs = R.observations(sample)
        n_obs += len(obs)
        matched: set[int] = set()
        for spk, dia, _ in R.turns(sample):
            mine = [i for i, (s, d, _) in enumerate(obs) if (s, d) == (spk, dia)]
            for c in R.candidates(facts.get((sample["sample_id"], dia), [])):
                found = [i for i in mine if R.overlap(c.value, obs[i][2]) >= min_overlap]
                matched.update(found)
                n_facts += 1
                n_hits += bool(found)
        n_matched += len(matched)
    return {
        "facts": n_facts,
        "coverage": n_matched / max(n_obs, 1),
        "precision": n_hits / max(n_facts, 1),
    }


def reader_facts(data: list[dict[str, Any]], screen: bool) -> Facts:
    """The clause reader's facts of every turn, with its screen or with none."""
    if screen:
        return R.all_facts(data, "parsed")
    keep: Callable[..., bool] = lambda *_: False  # noqa: E731 - nothing is refused
    original = parsed_facts.refused
    parsed_facts.refused = keep
    try:
        return R.all_facts(data, "parsed")
    finally:
        parsed_facts.refused = original


def sentence_facts(data: list[dict[str, Any]]) -> Facts:
    """Every sentence of every turn, whole."""
    return {(s["sample_id"], dia): sentences(text) for s in data for _, dia, text in R.turns(s)}


def main(argv: list[str] | None = None) -> int:
    """Print the three arms (and write them as JSON with ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(R.DEFAULT_DATA), help="a LoCoMo JSON file")
    ap.add_argument("--min-overlap", type=float, default=0.5)
    ap.add_argument("--json", help="write the numbers to this file")
    args = ap.parse_args(argv)
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    arms = {
        "reader": lambda: reader_facts(data, screen=True),
        "no screen": lambda: reader_facts(data, screen=False),
        "sentences": lambda: sentence_facts(data),
    }
    out: dict[str, Any] = {}
    print(f"{'arm':<12}{'facts':>7}{'coverage':>10}{'precision':>11}", flush=True)
    for name, make in arms.items():
        out[name] = row = coverage(data, make(), args.min_overlap)
        print(f"{name:<12}{row['facts']:>7}{row['coverage']:>10.3f}{row['precision']:>11.3f}")
    out["machine"] = common.announce_machine()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
