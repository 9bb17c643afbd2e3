"""The default embedder's own vectors of the probe texts have not moved since the learned stage
was fitted on them (scripts/reference_vectors.py wrote them with the model).

The learned stage's drift test (tests/retrieval/test_learned_stage.py) runs the pipeline with
the hashing embedder, whose vectors are the same on every CPU; this one holds the int8
embedder itself. Its bound is set between what CPUs do and what a change of recipe does: the
same recipe on an AVX2 and an AVX-512 CPU gives cosines of .998 and more; the recipe before
this one gave .98 to .998 of these vectors. When it fails, the vectors changed: refit the
learned stage (bench/ranker.py --write), then write this file again.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.onnx_models import DEFAULT_MODEL

STORED = Path(__file__).parent / "data" / "default_vectors.json"
MIN_COSINE = 0.996


def test_the_default_model_gives_the_vectors_the_learned_stage_was_fitted_on(
    tmp_path: Path,
) -> None:
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    assert stored["model"] == DEFAULT_MODEL
    flat = np.frombuffer(base64.b64decode(stored["float16"]), dtype="<f2").astype(np.float32)
    want = flat.reshape(len(stored["texts"]), -1)
    emb = OnnxEmbedder(DEFAULT_MODEL, threads=1, cache_dir=str(tmp_path))
    got = np.vstack([emb.embed([t]) for t in stored["texts"]])
    cos = (got * want).sum(axis=1) / np.linalg.norm(want, axis=1)
    assert float(cos.min()) >= MIN_COSINE, np.round(cos, 5)
