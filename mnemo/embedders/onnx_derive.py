"""Models derived on this machine from a bundled one: int8 arithmetic for all-MiniLM-L6-v2.

The bundled all-MiniLM-L6-v2 file keeps its weights as int8 to be small, but onnxruntime
turns them back into float32 when it loads them, so every matrix product runs in float32. The
``int8-rows`` recipe rewrites the model once so that each product of an activation with a
weight matrix runs in integers, with one activation scale per row (per token) and one weight
scale per output column (:mod:`mnemo.embedders.int8_rows`, where the formulas are). The two
attention products (activation by activation) stay float32.

A row's scale depends on that row alone, so a text's vector is the same alone and in any
batch (cosine 1.000000), and the integer products are exact, so they do not depend on the
CPU's kernels. The recipe before it (onnxruntime's ``quantize_dynamic``: one scale per batch
tensor, unsigned-by-signed bytes) gave cosines of .94 between a text alone and in a batch, and
other vectors on CPUs without AVX-512 VNNI. Agreement with the float32 model and speed: see
docs/embedders.md.

The derived file is built on first use (about 2 s: onnxruntime folds the weights into float32,
then the rewrite), written atomically into the model cache, and reused by every later process.
Its name carries a digest of the source file and of this recipe, so an upgraded source package
or recipe builds a new file instead of reusing a stale one. The cache is ``embed_cache_dir``
when set, else ``$XDG_CACHE_HOME/mnemo/models``, else ``~/.cache/mnemo/models``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from mnemo.errors import ConfigError

#: Bumped whenever :func:`build_int8` would write a different file.
RECIPE_VERSION = "int8-rows/2"


def cache_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where derived models live: ``explicit``, else ``$XDG_CACHE_HOME/mnemo/models``, else
    ``~/.cache/mnemo/models``."""
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "mnemo" / "models"


def file_digest(path: Path) -> str:
    """blake2b-128 hex digest of a file's bytes."""
    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def derived_path(name: str, source: Path, cache: Path) -> Path:
    """The cache file of model ``name`` derived from ``source`` by this recipe."""
    key = hashlib.blake2b(
        f"{RECIPE_VERSION}\0{file_digest(source)}".encode(), digest_size=8
    ).hexdigest()
    return cache / f"{name}-{key}.onnx"


def quantize_weights(source: Path, target: Path, bits: int = 7) -> None:
    """Write ``source`` with every MatMul by a constant weight rewritten to integers with one
    activation scale per row, ``bits`` per activation (:mod:`mnemo.embedders.int8_rows`);
    MatMuls of two activations stay float32."""
    try:
        import onnx
    except ImportError as exc:
        raise ConfigError(
            f"building an int8 embedder model needs onnx ({exc}): pip install onnx"
        ) from None
    from mnemo.embedders.int8_rows import rewrite_weight_products

    model = onnx.load(str(source))
    rewrite_weight_products(model, bits)
    onnx.save(model, str(target))


def build_int8(source: Path, target: Path) -> None:
    """Write the ``int8-rows`` derivation of ``source`` to ``target`` (atomically).

    Step 1: onnxruntime's basic graph optimisation folds the weight dequantisation into
    float32 constants. Step 2: :func:`quantize_weights` rewrites every MatMul with a constant
    weight; MatMuls of two activations are left as they are.
    """
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise ConfigError(
            f"building the local embedder's int8 model needs onnxruntime ({exc}): "
            "pip install onnxruntime"
        ) from None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
            folded = Path(tmp) / "folded.onnx"
            opts = ort.SessionOptions()
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            opts.optimized_model_filepath = str(folded)
            opts.log_severity_level = 3
            ort.InferenceSession(str(source), opts, providers=["CPUExecutionProvider"])
            built = Path(tmp) / "model.onnx"
            quantize_weights(folded, built)
            os.replace(built, target)
    except OSError as exc:
        raise ConfigError(
            f"cannot write the local embedder's int8 model to {target.parent} ({exc}); "
            "set MNEMO_EMBED_CACHE_DIR to a writable directory"
        ) from None


def derived_model_file(name: str, source: Path, cache: Path) -> Path:
    """The derived model file, built first when the cache does not hold it yet."""
    path = derived_path(name, source, cache)
    if not path.is_file():
        build_int8(source, path)
    return path


__all__ = [
    "RECIPE_VERSION",
    "build_int8",
    "cache_dir",
    "derived_model_file",
    "derived_path",
    "file_digest",
    "quantize_weights",
]
