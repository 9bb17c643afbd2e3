"""Models derived on this machine from a bundled one: int8 arithmetic for all-MiniLM-L6-v2.

The bundled all-MiniLM-L6-v2 file keeps its weights as int8 to be small, but onnxruntime
turns them back into float32 when it loads them, so every matrix product runs in float32. The
``dynamic-int8`` recipe rewrites the model once so that each product of an activation with a
weight matrix runs in int8 (``MatMulInteger``: VNNI / AVX2 kernels), the activation quantised
per call::

    x_q = round(x / s_x) + z_x,      s_x = (max x - min x) / 255      (per tensor, per call)
    W_q = round(W / s_W),            s_W = max_i |W_ij| / 127          (per output column j)
    x W ~= s_x s_W (x_q - z_x) W_q

The two attention products (activation by activation) stay float32. Because ``s_x`` is one
scale for a whole batch, a text's vector depends a little on the texts batched with it
(cosine .96-.99 between a text alone and in a batch padded to a much longer text; the
length-sorted batches of :meth:`~mnemo.embedders.onnx.OnnxEmbedder.embed` keep that padding
small). On 800 LoCoMo turns this embedded 1.84x more texts per second than the source
model, with vectors at cosine .992 to the source model's on average (lowest .952); dev-split
recall: see docs/embedders.md.

The derived file is built on first use (about 2 s: onnxruntime folds the weights into float32,
``onnx``'s quantiser rewrites them), written atomically into the model cache, and reused by
every later process. Its name carries a digest of the source file and of this recipe, so an
upgraded source package or recipe builds a new file instead of reusing a stale one. The
cache is ``embed_cache_dir`` when set, else ``$XDG_CACHE_HOME/mnemo/models``, else
``~/.cache/mnemo/models``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mnemo.errors import ConfigError

#: Bumped whenever :func:`build_dynamic_int8` would write a different file.
RECIPE_VERSION = "dynamic-int8/1"


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


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """Hold back records below ERROR on the root logger for the duration."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def quantize_weights(source: Path, target: Path) -> None:
    """Write ``source`` with every MatMul by a constant weight rewritten to int8
    (``onnxruntime.quantization.quantize_dynamic``: int8 weights per output channel, uint8
    activations quantised per call); MatMuls of two activations stay float32."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise ConfigError(
            f"building an int8 embedder model needs onnx and onnxruntime ({exc}): "
            "pip install onnx onnxruntime"
        ) from None
    graph = onnx.load(str(source), load_external_data=False).graph
    constants = {i.name for i in graph.initializer}
    activation_only = [
        n.name
        for n in graph.node
        if n.op_type == "MatMul" and not any(i in constants for i in n.input)
    ]
    with _quiet_root_logger():  # the quantiser logs advice on the root logger
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=activation_only,
        )


def build_dynamic_int8(source: Path, target: Path) -> None:
    """Write the ``dynamic-int8`` derivation of ``source`` to ``target`` (atomically).

    Step 1: onnxruntime's basic graph optimisation folds the weight dequantisation into
    float32 constants. Step 2: ``onnxruntime.quantization.quantize_dynamic`` (int8 weights,
    per output channel) rewrites every MatMul with a constant weight; MatMuls of two
    activations are left as they are.
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
        build_dynamic_int8(source, path)
    return path


__all__ = [
    "RECIPE_VERSION",
    "build_dynamic_int8",
    "cache_dir",
    "derived_model_file",
    "derived_path",
    "file_digest",
    "quantize_weights",
]
