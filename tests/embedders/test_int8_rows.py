"""The row-scaled integer products: exact integers, one scale per row, and no saturation on
the values that clip onnxruntime's AVX2 unsigned-by-signed kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from mnemo.embedders.int8_rows import quantized_columns, rewrite_weight_products  # noqa: E402


def product_model(weight: np.ndarray, table: np.ndarray | None = None) -> object:
    """``y = x @ W`` (x: batch, tokens, K), and with ``table`` also ``e = table[ids]``."""
    k, n = weight.shape
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "t", k])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "t", n])]
    nodes = [helper.make_node("MatMul", ["x", "W"], ["y"])]
    inits = [numpy_helper.from_array(weight, "W")]
    if table is not None:
        inputs.append(helper.make_tensor_value_info("ids", TensorProto.INT64, ["b", "t"]))
        outputs.append(helper.make_tensor_value_info("e", TensorProto.FLOAT, None))
        nodes.append(helper.make_node("Gather", ["E", "ids"], ["e"]))
        inits.append(numpy_helper.from_array(table, "E"))
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run(model: object, **feed: np.ndarray) -> list[np.ndarray]:
    """The model's outputs on one thread."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), opts)  # type: ignore[attr-defined]
    out: list[np.ndarray] = session.run(None, feed)
    return out


def emulated(x: np.ndarray, weight: np.ndarray, levels: int) -> np.ndarray:
    """The module docstring's formula in NumPy (float64, exact integer products)."""
    w_q, t = quantized_columns(weight)
    low = x.min(axis=-1, keepdims=True)
    scale = np.maximum(x.max(axis=-1, keepdims=True) - low, 1e-30) / levels
    q = np.rint((x - low) / scale)
    ints = q.astype(np.int64) @ w_q.astype(np.int64)
    out: np.ndarray = scale * t * ints + low * (w_q * t).sum(axis=0)
    return out


@pytest.mark.parametrize("bits", [7, 8])
def test_the_rewrite_computes_the_formula_and_stays_close_to_float(bits: int) -> None:
    rng = np.random.default_rng(7)
    weight = rng.normal(size=(64, 48)).astype(np.float32)
    x = rng.normal(size=(3, 5, 64)).astype(np.float32) * np.array([1, 10, 0.1])[:, None, None]
    model = product_model(weight)
    assert rewrite_weight_products(model, bits) == 1
    (got,) = run(model, x=x.astype(np.float32))
    levels = (1 << bits) - 1
    np.testing.assert_allclose(got, emulated(x, weight, levels), rtol=1e-4, atol=1e-4)
    exact = x @ weight
    cos = (got * exact).sum(-1) / np.linalg.norm(got, axis=-1) / np.linalg.norm(exact, axis=-1)
    assert float(cos.min()) > (0.999 if bits == 8 else 0.995), cos


def test_a_row_does_not_depend_on_the_other_rows_of_the_batch() -> None:
    rng = np.random.default_rng(3)
    weight = rng.normal(size=(32, 16)).astype(np.float32)
    model = product_model(weight)
    rewrite_weight_products(model)
    row = rng.normal(size=(1, 1, 32)).astype(np.float32)
    loud = np.concatenate([row, 1000 * rng.normal(size=(1, 1, 32)).astype(np.float32)], axis=1)
    (alone,) = run(model, x=row)
    (beside,) = run(model, x=loud)
    assert np.array_equal(alone[0, 0], beside[0, 0])  # bit for bit


@pytest.mark.parametrize("bits", [7, 8])
def test_the_largest_products_do_not_saturate(bits: int) -> None:
    """Every activation at the top of its range against weights of +-127: the pair sums that
    overflow a 16-bit lane with 8-bit activations by int8 weights (255 x 127 x 2) come out
    exact, as the NumPy formula says."""
    weight = np.where(np.arange(64 * 8).reshape(64, 8) % 3 == 0, -1.0, 1.0).astype(np.float32)
    x = np.ones((1, 2, 64), np.float32)
    x[0, :, 0] = 0.0  # the row's minimum: every other value quantises to the top level
    model = product_model(weight)
    rewrite_weight_products(model, bits)
    (got,) = run(model, x=x)
    np.testing.assert_allclose(got, x @ weight, rtol=1e-5, atol=1e-4)


def test_a_large_lookup_table_is_stored_as_int8_rows(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    table = rng.normal(size=(1 << 14, 64)).astype(np.float32)  # 2^20 values
    model = product_model(rng.normal(size=(4, 4)).astype(np.float32), table)
    rewrite_weight_products(model)
    ids = np.array([[0, 5, 16383]], np.int64)
    _, got = run(model, x=np.ones((1, 3, 4), np.float32), ids=ids)
    want = table[ids]
    assert np.abs(got - want).max() <= np.abs(want).max(axis=-1, keepdims=True).max() / 254 + 1e-6
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    assert path.stat().st_size < table.nbytes / 3  # int8, not float32


def test_other_bit_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="activation bits"):
        rewrite_weight_products(product_model(np.ones((2, 2), np.float32)), 6)
