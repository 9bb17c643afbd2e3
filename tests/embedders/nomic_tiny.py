"""Small synthetic nomic-bert models and split-zip weight packages for the GGUF tests.

A tiny nomic-bert GGUF (random weights, the real vocabulary in llama.cpp's spelling) and a zip
archive of it cut into parts installed as real distributions (``*.dist-info`` on ``sys.path``),
so the tests exercise the same code paths as the 274 MB model without its weights.
"""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mnemo.embedders.gguf_read import write_gguf
from mnemo.embedders.onnx_models import NOMIC_V15
from mnemo.embedders.weights_zip import SplitZipMember, installed_parts
from mnemo.embedders.wordpiece import vocab_path
from mnemo.errors import ConfigError

LAYERS, HIDDEN, HEADS, FFN = 2, 16, 2, 24


def nomic_weights_installed() -> bool:
    """Whether the real nomic-embed-text-v1.5 weight packages are installed (pinned)."""
    try:
        installed_parts(NOMIC_V15.gguf)  # type: ignore[arg-type]
    except ConfigError:
        return False
    return True


def llama_tokens() -> tuple[list[str], list[int]]:
    """The vendored vocabulary as llama.cpp writes it into a GGUF (``▁word``, ``piece``)."""
    tokens, kinds = [], []
    for tok in Path(vocab_path()).read_text(encoding="utf-8").splitlines():
        if tok.startswith("[") and tok.endswith("]"):
            tokens.append(tok)
            kinds.append(3 if tok in {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} else 1)
        else:
            tokens.append(tok[2:] if tok.startswith("##") else "\u2581" + tok)
            kinds.append(1)
    return tokens, kinds


def tiny_nomic_gguf(path: Path, seed: int = 0, tokens: list[str] | None = None) -> Path:
    """Write a 2-layer, 16-wide nomic-bert GGUF with random f16 weights to ``path``."""
    rng = np.random.default_rng(seed)
    vocab, kinds = llama_tokens()

    def mat(*shape: int, scale: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float16)

    def norm(prefix: str) -> dict[str, np.ndarray]:
        return {
            prefix + ".weight": (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32),
            prefix + ".bias": (0.1 * rng.standard_normal(HIDDEN)).astype(np.float32),
        }

    tensors = {
        "token_embd.weight": mat(len(vocab), HIDDEN, scale=1.0),
        "token_types.weight": mat(2, HIDDEN).astype(np.float32),
        **norm("token_embd_norm"),
    }
    for i in range(LAYERS):
        b = f"blk.{i}."
        tensors |= {
            b + "attn_qkv.weight": mat(3 * HIDDEN, HIDDEN),
            b + "attn_output.weight": mat(HIDDEN, HIDDEN),
            b + "ffn_up.weight": mat(FFN, HIDDEN),
            b + "ffn_gate.weight": mat(FFN, HIDDEN),
            b + "ffn_down.weight": mat(HIDDEN, FFN),
            **norm(b + "attn_output_norm"),
            **norm(b + "layer_output_norm"),
        }
    p = "nomic-bert."
    kv = {
        "general.architecture": "nomic-bert",
        "general.name": "tiny",
        p + "block_count": LAYERS,
        p + "context_length": 64,
        p + "embedding_length": HIDDEN,
        p + "feed_forward_length": FFN,
        p + "attention.head_count": HEADS,
        p + "attention.layer_norm_epsilon": 1e-12,
        p + "rope.freq_base": 1000.0,
        "tokenizer.ggml.tokens": tokens if tokens is not None else vocab,
        "tokenizer.ggml.token_type": kinds,
    }
    write_gguf(path, kv, tensors)
    return path


def install_split_zip(
    root: Path, member_file: Path, monkeypatch: pytest.MonkeyPatch, part_size: int = 1 << 18
) -> SplitZipMember:
    """Zip ``member_file`` (deflated, behind a filler member so it starts in a later part),
    cut the archive into ``part_size`` parts, install every part from the member's first on as
    distribution ``tiny-part-NNN`` 1.0 under ``root`` (on ``sys.path``), and return the spec
    with the member's real MD5."""
    root.mkdir(parents=True, exist_ok=True)
    archive = root / "bundle.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            "bundle/filler.bin",
            np.random.default_rng(1).bytes(part_size + 999),
            compress_type=zipfile.ZIP_STORED,
        )
        zf.write(member_file, "bundle/model.gguf")
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("bundle/model.gguf")
    data = archive.read_bytes()
    first = info.header_offset // part_size + 1
    parts = []
    site = root / "site"
    for n in range(first, -(-len(data) // part_size) + 1):
        dist = f"tiny-part-{n:03d}"
        pkg = site / f"tiny_part_{n:03d}"
        pkg.mkdir(parents=True)
        (pkg / f"bundle.zip.{n:03d}").write_bytes(data[(n - 1) * part_size : n * part_size])
        info_dir = site / f"tiny_part_{n:03d}-1.0.dist-info"
        info_dir.mkdir()
        (info_dir / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        parts.append((dist, "1.0", f"tiny_part_{n:03d}/bundle.zip.{n:03d}"))
    monkeypatch.syspath_prepend(str(site))
    sys.path_importer_cache.clear()
    content = member_file.read_bytes()
    return SplitZipMember(
        member="bundle/model.gguf",
        parts=tuple(parts),
        first_part=first,
        part_size=part_size,
        offset=info.header_offset,
        size=len(content),
        md5=hashlib.md5(content, usedforsecurity=False).hexdigest(),
        published="the test",
    )
