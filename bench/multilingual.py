"""What each language gets: the es/de/en dialogues under each embedder, rules on and off.

``bench/data/multilingual/dialogues-{es,de,en}.json`` are two conversations written for this
project in Spanish, with German and English translations turn for turn (same dia_ids, same
questions and evidence), in LoCoMo's format. For each language and each ``--model`` (bundled
``local`` models), this runs ``mnemo eval locomo`` on a fresh store and, on the same store,
``--compare`` with the turn-kind rules off (``question_prior``, ``greeting_prior`` and
``non_answer_prior`` at 1, ``reply_weight`` 0); then it counts the facts and profile entries
the rules derive (``mnemo worker --once`` on a copy of the store). Threads are pinned to 1.

    OMP_NUM_THREADS=1 python bench/multilingual.py --json docs/results/multilingual-dialogues.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import common

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "multilingual"
RULES_OFF = "question_prior=1,greeting_prior=1,non_answer_prior=1,reply_weight=0"
METRICS = ("R@1", "R@5", "R@10", "All@10", "NDCG@10")


def mnemo(*args: str, env: dict[str, str]) -> None:
    """Run the CLI of this checkout; raise with its output when it fails."""
    cmd = [sys.executable, "-m", "mnemo", *args]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def derived(db: Path, env: dict[str, str]) -> dict[str, int]:
    """Facts and profile entries the rules derive from the store (on a copy)."""
    copy = db.with_name(db.stem + "-jobs.db")
    shutil.copy(db, copy)
    mnemo("worker", "--db", str(copy), "--once", env=env)
    with sqlite3.connect(copy) as con:
        facts = con.execute("select count(*) from memories where kind = 'fact'").fetchone()[0]
        profile = con.execute("select count(*) from profile_facts").fetchone()[0]
    return {"facts": int(facts), "profile": int(profile)}


def main(argv: list[str] | None = None) -> int:
    """Evaluate every language x model; print a table and write the summary."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", action="append", choices=("es", "de", "en"))
    ap.add_argument("--model", action="append", metavar="MODEL")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    langs = args.lang or ["es", "de", "en"]
    models = args.model or ["all-MiniLM-L6-v2-q8", "multilingual-e5-small"]
    env = dict(os.environ, OMP_NUM_THREADS="1", MNEMO_EMBED_THREADS="1")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            env_m = dict(env, MNEMO_EMBEDDER="local", MNEMO_EMBEDDER_MODEL=model)
            for lang in langs:
                db, out = Path(tmp) / f"{lang}-{model}.db", Path(tmp) / f"{lang}-{model}.json"
                data = str(DATA / f"dialogues-{lang}.json")
                base = ["eval", "locomo", "--data", data, "--db", str(db), "--json", str(out)]
                mnemo(*base, "--compare", RULES_OFF, env=env_m)
                runs = json.loads(out.read_text(encoding="utf-8"))
                on, off = runs[0]["report"], runs[1]["report"]
                row = {
                    "language": lang,
                    "model": model,
                    "questions": sum(on["counts"].values()),
                    "rules": {k: on["overall"][k] for k in METRICS},
                    "rules_off": {k: off["overall"][k] for k in METRICS},
                    "groups_R@10": {g: v.get("R@10") for g, v in on["groups"].items()},
                    "ingest_turns_per_s": on["ingest"]["turns_per_s"],
                    "search_p50_ms": on["search_p50_ms"],
                    **derived(db, env_m),
                }
                rows.append(row)
                common.console.print(
                    f"{lang} {model}: "
                    + " ".join(f"{k} {row['rules'][k]:.3f}" for k in METRICS)
                    + " | rules off: "
                    + " ".join(f"{k} {row['rules_off'][k]:.3f}" for k in ("R@5", "R@10"))
                    + f" | facts {row['facts']}, profile {row['profile']}"
                )
    common.write_json(
        args.json,
        {"benchmark": "multilingual", "machine": common.announce_machine(), "rows": rows},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
