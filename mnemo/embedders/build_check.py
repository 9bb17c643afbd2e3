"""The check every converted model passes before it is kept: probe texts through the built
ONNX graph and through a NumPy reference of the same weights, compared as mean-pooled vectors.

Used by :mod:`mnemo.embedders.gguf_build` and :mod:`mnemo.embedders.e5_build`; each refuses its
build when a probe's cosine falls below the model's ``min_cosine``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.errors import ConfigError

Reference = Callable[[np.ndarray, np.ndarray], np.ndarray]


def padded(encodings: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids padded with 0 to the longest encoding, and the mask of real tokens."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), np.int64)
    mask = np.zeros_like(ids)
    for row, enc in enumerate(encodings):
        ids[row, : len(enc.ids)] = enc.ids
        mask[row, : len(enc.ids)] = 1
    return ids, mask


def pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mask-weighted mean of each row's hidden states, L2-normalised."""
    m = mask[..., None].astype(np.float64)
    e = (hidden * m).sum(axis=1) / m.sum(axis=1)
    out: np.ndarray = e / np.linalg.norm(e, axis=1, keepdims=True)
    return out


def probe_cosines(model_file: Path, encodings: Sequence[Any], reference: Reference) -> np.ndarray:
    """Cosine, per encoding, of the pooled output of ``model_file`` (one thread) to the pooled
    ``reference(ids, mask)`` hidden states."""
    import onnxruntime as ort

    ids, mask = padded(encodings)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3
    session = ort.InferenceSession(str(model_file), opts, providers=["CPUExecutionProvider"])
    (hidden,) = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})
    out: np.ndarray = (pooled(np.asarray(hidden), mask) * pooled(reference(ids, mask), mask)).sum(1)
    return out


def checked_build(
    graph: Any,
    work: Path,
    int8: bool,
    probe: Callable[[Path], np.ndarray],
    min_cosine: float,
    source: str,
) -> Path:
    """Save the ``onnx.ModelProto`` ``graph`` in ``work``, rewrite its weight products to
    integers when ``int8`` (8-bit activations: these opt-in models favour accuracy over the
    default's speed), and return the file, unless a probe cosine (``probe(file)``) is below
    ``min_cosine``: ConfigError naming ``source`` then."""
    import onnx

    from mnemo.embedders.onnx_derive import quantize_weights

    built = work / "float.onnx"
    onnx.save(graph, str(built))
    if int8:
        quantized = work / "int8.onnx"
        quantize_weights(built, quantized, bits=8)  # converted models favour accuracy
        built.unlink()
        built = quantized
    cosines = probe(built)
    if float(cosines.min()) < min_cosine:
        raise ConfigError(
            f"the ONNX conversion of {source} disagrees with its reference "
            f"(cosines {np.round(cosines, 4).tolist()} < {min_cosine}); not using it"
        )
    return built


__all__ = ["Reference", "checked_build", "padded", "pooled", "probe_cosines"]
