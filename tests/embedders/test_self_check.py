"""The start-up check: each bundled model is held to stored float32 vectors of probe texts;
a model that disagrees is replaced by its float32 fallback, or refused."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.onnx_models import MINILM_L6_INT8, MINILM_L6_Q8, MODELS
from mnemo.embedders.self_check import Reference, stored_references, verified_model
from mnemo.errors import ConfigError


def test_every_bundled_model_has_reference_vectors_of_its_size() -> None:
    refs = stored_references()
    assert set(refs) == set(MODELS)
    for name, ref in refs.items():
        assert ref.vectors.shape == (len(ref.texts), MODELS[name].dim), name
        np.testing.assert_allclose(np.linalg.norm(ref.vectors, axis=1), 1.0, atol=1e-3)
        assert "float32" in ref.source


def test_the_default_model_agrees_with_its_reference_here(tmp_path: Path) -> None:
    emb = OnnxEmbedder(MINILM_L6_Q8.name, cache_dir=str(tmp_path))
    assert emb.served() is MINILM_L6_Q8
    assert MINILM_L6_Q8.fallback is MINILM_L6_INT8


def shuffled(name: str) -> dict[str, Reference]:
    """``name``'s stored reference with its vectors paired to the wrong texts."""
    ref = stored_references()[name]
    return {name: Reference(ref.texts, np.roll(ref.vectors, 1, axis=0), ref.source)}


def test_a_model_that_disagrees_is_replaced_by_its_float32_arm(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    emb = OnnxEmbedder(MINILM_L6_Q8.name, cache_dir=str(tmp_path))
    ref = stored_references()[MINILM_L6_Q8.name]
    # held to .9999 of the float32 vectors, the int8 arm fails and its float32 arm passes
    own = emb.probe(MINILM_L6_INT8, ref.texts)
    strict = {MINILM_L6_Q8.name: Reference(ref.texts, own, "float32 here")}
    strict_q8 = replace(MINILM_L6_Q8, min_agreement=0.9999)
    with caplog.at_level(logging.WARNING, logger="mnemo.embedders"):
        chosen = verified_model(strict_q8, emb.probe, references=strict)
    assert chosen is MINILM_L6_INT8
    assert "running all-MiniLM-L6-v2-int8" in caplog.text and "disagrees" in caplog.text


def test_a_model_without_a_fallback_that_disagrees_is_refused(tmp_path: Path) -> None:
    emb = OnnxEmbedder(MINILM_L6_INT8.name, cache_dir=str(tmp_path))
    with pytest.raises(ConfigError, match=r"disagrees with its stored reference.*cosines"):
        verified_model(MINILM_L6_INT8, emb.probe, references=shuffled(MINILM_L6_INT8.name))


def test_when_the_fallback_disagrees_too_both_are_named(tmp_path: Path) -> None:
    emb = OnnxEmbedder(MINILM_L6_Q8.name, cache_dir=str(tmp_path))
    with pytest.raises(ConfigError, match=r"all-MiniLM-L6-v2-q8 .* and its fallback .*int8"):
        verified_model(MINILM_L6_Q8, emb.probe, references=shuffled(MINILM_L6_Q8.name))


def test_a_model_outside_the_bundle_is_not_checked(tmp_path: Path) -> None:
    other = replace(MINILM_L6_INT8, name="my-own-model")

    def never(model: object, texts: object) -> np.ndarray:
        raise AssertionError("a model without a stored reference is not embedded")

    assert verified_model(other, never, references={}) is other
