"""Regenerate mnemo/embedders/data/reference_vectors.json: the float32 vectors of the probe
texts for every bundled model whose weights are installed (the start-up check holds each model
to them, see mnemo/embedders/self_check.py).

    .venv/bin/python scripts/reference_vectors.py            # every installed model
    .venv/bin/python scripts/reference_vectors.py --check    # print each model's agreement

A model's reference is computed by its float32 arm (its ``fallback``, else the model itself),
one text at a time, on one thread. Models whose weights are not installed keep the entry they
had. The nomic and e5 float32 arms are built on first use (about a minute, a few GB).
"""

from __future__ import annotations

import argparse
import base64
import json
import platform
import sys
from pathlib import Path

import numpy as np

from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.onnx_models import DEFAULT_MODEL, MODELS, OnnxModel
from mnemo.embedders.self_check import Reference, agreement
from mnemo.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "mnemo/embedders/data/reference_vectors.json"
#: The default model's own vectors of the probe texts, which the drift test holds it to
#: (tests/embedders/test_vector_drift.py): a change of recipe moves them, and then the learned
#: stage is refitted (bench/ranker.py --write) and this file written again.
DEFAULT_TARGET = ROOT / "tests/embedders/data/default_vectors.json"
#: Short and long, a question, a name with an accent, a sentence in German.
TEXTS = (
    "I adopted a beagle called Biscuit last spring.",
    "What did Caroline say about the camping trip to the lake?",
    "My sister Inês moved from Leeds to Bristol and now works at a bakery near the harbour, "
    "which she loves even though she has to get up at four every morning.",
    "ok",
    "Wir fahren im Sommer mit den Kindern an die Ostsee.",
)


def float32_vectors(model: OnnxModel) -> np.ndarray:
    """The probe texts embedded one at a time by ``model``'s float32 arm."""
    arm = model.fallback or model
    emb = OnnxEmbedder(model, threads=1)
    return np.vstack([emb.run(emb.tokenize([t]), arm) for t in TEXTS])


def main(argv: list[str] | None = None) -> int:
    """Write the references (or with --check, print each model's agreement with them)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="print agreement; write nothing")
    args = ap.parse_args(argv)
    stored = json.loads(TARGET.read_text()) if TARGET.exists() else {"models": {}}
    if stored.get("texts") not in (None, list(TEXTS)):
        stored["models"] = {}  # other probe texts: every entry is recomputed
    for name, model in MODELS.items():
        try:
            if args.check:
                emb = OnnxEmbedder(model, threads=1)
                ref = stored["models"][name]
                flat = np.frombuffer(base64.b64decode(ref["float16"]), dtype="<f2")
                want = Reference(TEXTS, flat.reshape(len(TEXTS), -1).astype(np.float32), "")
                got = np.vstack([emb.run(emb.tokenize([t]), model) for t in TEXTS])
                print(name, np.round(agreement(got, want), 5).tolist(), model.min_agreement)
                continue
            vectors = float32_vectors(model)
        except ConfigError as exc:
            print(f"{name}: skipped ({exc})", file=sys.stderr)
            continue
        arm = model.fallback or model
        stored["models"][name] = {
            "source": f"{arm.name}, float32, onnxruntime, {platform.machine()}",
            "float16": base64.b64encode(vectors.astype("<f2").tobytes()).decode(),
        }
        print(name, "written")
    if not args.check:
        stored["texts"] = list(TEXTS)
        TARGET.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        write_default_vectors()
    return 0


def write_default_vectors() -> None:
    """Write :data:`DEFAULT_TARGET`: the default model's vectors, one text at a time."""
    model = MODELS[DEFAULT_MODEL]
    emb = OnnxEmbedder(model, threads=1)
    vectors = np.vstack([emb.run(emb.tokenize([t]), model) for t in TEXTS])
    DEFAULT_TARGET.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "model": model.name,
        "texts": list(TEXTS),
        "float16": base64.b64encode(vectors.astype("<f2").tobytes()).decode(),
    }
    DEFAULT_TARGET.write_text(json.dumps(body, indent=1) + "\n")
    print(f"wrote {DEFAULT_TARGET}")


if __name__ == "__main__":
    raise SystemExit(main())
