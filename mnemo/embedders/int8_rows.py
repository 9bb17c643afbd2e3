"""Weight products in int8 with one activation scale per row: the same vector for a text
alone or in any batch, and the same integers on every x86 CPU.

Each ``MatMul`` of an activation ``x`` (..., K) by a constant weight ``W`` (K, N) is rewritten
to run in integers. Every row of ``x`` (one token of one text) gets its own offset and scale,
and every column of ``W`` its own scale::

    m_r = min_k x_rk,   s_r = max(max_k x_rk - m_r, 1e-30) / L          (per row, per call)
    q_rk = round((x_rk - m_r) / s_r)                                    (uint8, 0..L)
    t_j = max_k |W_kj| / 127,   W_q = round(W / t)                      (int8, per column)
    x W ~= s_r t_j (q W_q)_rj + m_r sum_k t_j (W_q)_kj

``q W_q`` is ``MatMulInteger``: a sum of integer products, exact in int32. The default,
``L = 127`` (7 bits), is chosen on purpose: onnxruntime's AVX2 kernel for unsigned-by-signed
bytes (``vpmaddubsw``) adds each pair of products in a saturating 16-bit lane. With 8-bit
activations, 255 x 127 x 2 overflows it, so CPUs without AVX-512 VNNI clipped large products
and computed other vectors than VNNI CPUs did (one cause of issue 43's failures on an
AVX2-only EPYC). With 7 bits, 127 x 127 x 2 = 32,258 fits, and every kernel gives the same
integers. ``L = 255`` (8 bits) runs unsigned by unsigned bytes instead (``W_q + 128`` with
zero point 128), whose kernels widen to 16 bits and never clip either: one more bit for
models with large activation outliers (nomic-embed-text), at about 0.7x the speed.

Because a row's scale depends on that row alone, a token's product never depends on the
other tokens or texts of the batch, nor on padding. onnxruntime's own ``quantize_dynamic``
used one scale for the whole batch tensor, so a text's vector moved with its neighbours (cosine
.94 between a text alone and in a batch). Rows that share an input (the query, key and value
products of one layer) share its quantisation. What is left to differ between CPUs is float32
rounding in the other operators (softmax, layer norm, erf), which can move a value across a
rounding step: cosines of .998 and more between an AVX2 and an AVX-512 CPU (docs/embedders.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The smallest row range, so that a row of zeros does not divide by zero.
MIN_RANGE = 1e-30
#: Activation bits per row: 7 (0..127, by int8 weights) or 8 (0..255, by uint8 weights).
BITS = (7, 8)
#: A looked-up table at least this large (a vocabulary) is stored as int8 rows.
MIN_TABLE = 1 << 20


def quantized_columns(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(W_q, t_W)``: ``W`` as int8 per output column, and each column's scale
    ``max_k |W_kj| / 127`` (1 for a column of zeros)."""
    scale = np.abs(weight).max(axis=0) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.clip(np.rint(weight / scale), -127, 127)
    return q.astype(np.int8), scale


class _Rewriter:
    """One pass over a graph's nodes, emitting integer products in place of weight MatMuls."""

    def __init__(self, graph: Any, bits: int) -> None:
        if bits not in BITS:
            raise ValueError(f"activation bits must be one of {BITS}, not {bits}")
        self.graph = graph
        self.levels = (1 << bits) - 1
        self.constants = {i.name: i for i in graph.initializer}
        self.nodes: list[Any] = []
        self.rows: dict[str, tuple[str, str, str]] = {}
        self.count = 0

    def name(self, stem: str) -> str:
        """A fresh tensor name."""
        self.count += 1
        return f"int8rows/{stem}/{self.count}"

    def emit(self, op: str, inputs: list[str], stem: str, **attrs: Any) -> str:
        """Append one node; its single output's name."""
        from onnx import helper

        out = self.name(stem)
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def constant(self, value: np.ndarray, stem: str) -> str:
        """Add an initializer; its name."""
        from onnx import numpy_helper

        name = self.name(stem)
        self.graph.initializer.append(numpy_helper.from_array(value, name))
        return name

    def quantized_rows(self, x: str) -> tuple[str, str, str]:
        """``(q, s, m)`` of activation ``x``, emitted once per activation."""
        if x not in self.rows:
            low = self.emit("ReduceMin", [x], "min", axes=[-1], keepdims=1)
            high = self.emit("ReduceMax", [x], "max", axes=[-1], keepdims=1)
            span = self.emit("Sub", [high, low], "span")
            floor = self.constant(np.array(MIN_RANGE, np.float32), "floor")
            steps = self.constant(np.array(float(self.levels), np.float32), "steps")
            scale = self.emit("Div", [self.emit("Max", [span, floor], "range"), steps], "scale")
            shifted = self.emit("Sub", [x, low], "shifted")
            rounded = self.emit("Round", [self.emit("Div", [shifted, scale], "scaled")], "round")
            q = self.emit("Cast", [rounded], "q", to=2)  # uint8
            self.rows[x] = (q, scale, low)
        return self.rows[x]

    def product(self, node: Any, weight: np.ndarray) -> None:
        """Emit the integer product that replaces ``node`` (``x @ W``)."""
        from onnx import helper

        q, scale, low = self.quantized_rows(node.input[0])
        w_q, t_w = quantized_columns(weight)
        dequantized = w_q.astype(np.float32) * t_w
        zero = self.constant(np.array(0, np.uint8), "zero")
        if self.levels == 127:
            integers = self.emit("MatMulInteger", [q, self.constant(w_q, "weight"), zero], "int")
        else:  # uint8 by uint8: W_q + 128 with zero point 128
            unsigned = self.constant((w_q.astype(np.int16) + 128).astype(np.uint8), "weight")
            centre = self.constant(np.array(128, np.uint8), "centre")
            integers = self.emit("MatMulInteger", [q, unsigned, zero, centre], "int")
        floats = self.emit("Cast", [integers], "float", to=1)
        scaled = self.emit("Mul", [floats, scale], "rowscale")
        product = self.emit("Mul", [scaled, self.constant(t_w, "colscale")], "product")
        colsum = self.constant(dequantized.sum(axis=0).astype(np.float32), "colsum")
        offset = self.emit("Mul", [low, colsum], "offset")
        self.nodes.append(helper.make_node("Add", [product, offset], list(node.output)))

    def lookup(self, node: Any, table: np.ndarray) -> None:
        """Emit the int8 lookup that replaces ``node`` (``Gather(table, ids)``): each row of
        the table as int8 with its own scale, both gathered, multiplied back."""
        from onnx import helper

        q, scale = quantized_columns(table.T)
        rows = self.emit("Gather", [self.constant(q.T.copy(), "table"), node.input[1]], "rows")
        scales = self.constant(scale[:, None].copy(), "rowscales")
        picked = self.emit("Gather", [scales, node.input[1]], "picked")
        floats = self.emit("Cast", [rows], "float", to=1)
        self.nodes.append(helper.make_node("Mul", [floats, picked], list(node.output)))

    def table_of(self, node: Any) -> np.ndarray | None:
        """The constant 2-d float table of a ``Gather`` along axis 0 of at least
        :data:`MIN_TABLE` values (a word-embedding table), else None."""
        from onnx import numpy_helper

        if node.op_type != "Gather" or any(a.i != 0 for a in node.attribute if a.name == "axis"):
            return None
        init = self.constants.get(node.input[0])
        if init is None or init.data_type != 1 or len(init.dims) != 2:
            return None
        table = numpy_helper.to_array(init)
        return table if table.size >= MIN_TABLE else None

    def weight_of(self, node: Any) -> np.ndarray | None:
        """The constant 2-d float weight of a ``MatMul`` by a constant, else None."""
        from onnx import numpy_helper

        if node.op_type != "MatMul" or node.input[0] in self.constants:
            return None
        init = self.constants.get(node.input[1])
        if init is None:
            return None
        weight = numpy_helper.to_array(init)
        if weight.ndim != 2 or weight.dtype != np.float32:
            return None
        return weight.astype(np.float32)

    def run(self) -> int:
        """Rewrite every weight MatMul; drop initializers no node reads any more. The number
        of products rewritten."""
        rewritten = 0
        for node in list(self.graph.node):
            weight = self.weight_of(node)
            table = self.table_of(node)
            if weight is not None:
                self.product(node, weight)
                rewritten += 1
            elif table is not None:
                self.lookup(node, table)
            else:
                self.nodes.append(node)
        del self.graph.node[:]
        self.graph.node.extend(self.nodes)
        read = {i for n in self.graph.node for i in n.input} | {o.name for o in self.graph.output}
        kept = [i for i in self.graph.initializer if i.name in read]
        del self.graph.initializer[:]
        self.graph.initializer.extend(kept)
        return rewritten


def rewrite_weight_products(model: Any, bits: int = 7) -> int:
    """Rewrite, in place, every ``MatMul`` of an activation by a constant 2-d float32 weight
    of the ``onnx.ModelProto`` ``model`` into the row-scaled integer product of the module
    docstring (products of two activations stay float32), and store a large looked-up table
    (the word embeddings) as int8 rows with one scale each, ``E_v ~= u_v E_q,v`` with
    ``u_v = max_d |E_vd| / 127``. ``bits``: 7 (int8 weights, the fast kernels) or 8 (uint8
    weights: one more bit for activations with large outliers, at about 0.7x the speed).
    Returns how many products were rewritten."""
    return _Rewriter(model.graph, bits).run()


__all__ = ["BITS", "MIN_RANGE", "MIN_TABLE", "quantized_columns", "rewrite_weight_products"]
