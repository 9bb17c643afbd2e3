"""The int8-computing MiniLM: built once from the bundled file into the model cache, reused
after, close to its source model, and a clear error when the cache cannot be written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.onnx_derive import (
    RECIPE_VERSION,
    cache_dir,
    derived_model_file,
    derived_path,
)
from mnemo.embedders.onnx_models import MINILM_L6_INT8, MINILM_L6_Q8
from mnemo.errors import ConfigError

TEXTS = [
    "I really love eating pizza.",
    "Pizza is my absolute favourite food.",
    "The stock market fell sharply on Tuesday.",
    "My beagle Biscuit turned three last week and we threw him a party in the garden.",
    "When did Caroline go to the LGBTQ support group?",
    "ok",
    "naïve café 東京",
]


def test_the_cache_is_explicit_else_xdg_else_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cache_dir(tmp_path / "c") == tmp_path / "c"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "mnemo" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "mnemo" / "models"


def test_built_once_then_reused_and_named_by_source_and_recipe(tmp_path: Path) -> None:
    source = MINILM_L6_Q8.path()
    first = derived_model_file(MINILM_L6_Q8.name, source, tmp_path)
    assert first == derived_path(MINILM_L6_Q8.name, source, tmp_path) and first.is_file()
    assert first.name.startswith("all-MiniLM-L6-v2-q8-") and RECIPE_VERSION.startswith("int8-rows")
    stamp = first.stat().st_mtime_ns
    assert derived_model_file(MINILM_L6_Q8.name, source, tmp_path) == first
    assert first.stat().st_mtime_ns == stamp  # reused, not rebuilt
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # no build leftovers
    # another source file (an upgraded weights package) gets another name
    other = tmp_path / "other.onnx"
    other.write_bytes(source.read_bytes()[:-1] + b"\0")
    assert derived_path(MINILM_L6_Q8.name, other, tmp_path) != first


def test_int8_arithmetic_stays_close_to_the_source_model(tmp_path: Path) -> None:
    q8 = OnnxEmbedder(MINILM_L6_Q8.name, cache_dir=str(tmp_path)).embed(TEXTS)
    source = OnnxEmbedder(MINILM_L6_INT8.name).embed(TEXTS)
    cos = (q8 * source).sum(axis=1)
    assert float(cos.mean()) > 0.99 and float(cos.min()) > 0.97, cos
    np.testing.assert_allclose(np.linalg.norm(q8, axis=1), 1.0, rtol=1e-5)
    assert float(q8[0] @ q8[1]) > float(q8[0] @ q8[2]) + 0.3  # still knows paraphrases


def test_an_unwritable_cache_is_a_config_error_naming_the_setting(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ConfigError, match="MNEMO_EMBED_CACHE_DIR"):
        derived_model_file(MINILM_L6_Q8.name, MINILM_L6_Q8.path(), blocker / "models")


def test_a_text_has_the_same_vector_alone_and_in_any_batch(tmp_path: Path) -> None:
    """Activations are quantised per row (one scale per token), so neither the other texts of
    a batch nor its padding move a text's vector: alone vs in one batch padded to its longest
    text ("ok" beside a 20-word text), and in the reverse order, cosine >= .999999."""
    emb = OnnxEmbedder(MINILM_L6_Q8.name, cache_dir=str(tmp_path), batch_tokens=10**6)
    together = emb.embed(TEXTS)
    reverse = emb.embed(TEXTS[::-1])[::-1]
    alone = np.vstack([emb.embed([t]) for t in TEXTS])
    assert float((together * alone).sum(axis=1).min()) > 0.999999
    assert float((reverse * alone).sum(axis=1).min()) > 0.999999
