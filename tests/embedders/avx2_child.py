"""Run under an emulated AVX2-only CPU by test_avx2_kernels.py: prints one JSON line.

``clipped``: how far 8-bit activations by int8 weights (the old recipe's products) are off
the exact integers there; ``errors``: the row-scaled products' largest error at 7 and 8 bits;
``alone``/``batch``: the probe texts' vectors, one at a time and as one batch; ``served``: the
model the start-up check chose. Arguments: the model name and the model cache directory.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from mnemo.embedders.int8_rows import rewrite_weight_products
from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.self_check import stored_references


def run(graph: object, **feed: np.ndarray) -> np.ndarray:
    """The graph's first output."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    out: np.ndarray = ort.InferenceSession(model.SerializeToString()).run(None, feed)[0]
    return out


def clipped(weight: np.ndarray) -> int:
    """Largest error of uint8 255s by ``weight`` (int8) in ``MatMulInteger``."""
    a = np.full((2, weight.shape[0]), 255, np.uint8)
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])],
        "g",
        [helper.make_tensor_value_info("A", TensorProto.UINT8, list(a.shape))],
        [helper.make_tensor_value_info("Y", TensorProto.INT32, None)],
        [numpy_helper.from_array(weight, "B")],
    )
    return int(np.abs(run(graph, A=a) - a.astype(np.int64) @ weight).max())


def rewritten_error(weight: np.ndarray, bits: int) -> float:
    """Largest error of the row-scaled product at ``bits`` on the saturating input."""
    x = np.ones((1, 2, weight.shape[0]), np.float32)
    x[0, :, 0] = 0.0
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(weight, "W")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    rewrite_weight_products(model, bits)
    return float(np.abs(run(model.graph, x=x) - x @ weight).max())


def main() -> None:
    """Print the JSON line."""
    w = np.where(np.arange(64 * 8).reshape(64, 8) % 3 == 0, -127, 127).astype(np.int8)
    errors = {bits: rewritten_error(w.astype(np.float32) / 127, bits) for bits in (7, 8)}
    texts = list(stored_references()[sys.argv[1]].texts)
    emb = OnnxEmbedder(sys.argv[1], threads=1, cache_dir=sys.argv[2])
    alone = np.vstack([emb.embed([t]) for t in texts])
    batch = emb.embed(texts)
    print(
        json.dumps(
            {
                "alone": alone.tolist(),
                "batch": batch.tolist(),
                "clipped": clipped(w),
                "errors": errors,
                "served": emb.served().name,
            }
        )
    )


if __name__ == "__main__":
    main()
