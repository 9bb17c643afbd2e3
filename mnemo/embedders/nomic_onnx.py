"""Build an ONNX graph of a nomic-bert encoder from its GGUF tensors (no torch).

The graph computes exactly the forward pass of :mod:`mnemo.embedders.nomic_numpy` (formulas
there), with inputs ``input_ids`` and ``attention_mask`` (batch, tokens; int64) and output
``last_hidden_state`` (batch, tokens, hidden). Weights are stored as float32, transposed so that
every projection is ``MatMul(x, W^T)`` with a constant right operand: the int8 rewrite
(:func:`mnemo.embedders.onnx_derive.build_int8`'s step 2) then rewrites exactly those.
The two attention products stay float32. ``q``, ``k`` and ``v`` come from one fused MatMul, and
so do the MLP's gate and up projections. The rotary tables cover ``max_tokens`` positions and
are sliced to the batch's length.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mnemo.embedders.gguf_read import GGUFFile
from mnemo.embedders.nomic_numpy import MASK_NEG, nomic_shape, rope_tables
from mnemo.embedders.onnx_graph import GraphBuilder
from mnemo.errors import ConfigError

#: ONNX opset of the graph (LayerNormalization needs 17).
OPSET = 17


def nomic_onnx_model(gguf: GGUFFile, max_tokens: int) -> Any:
    """The ``onnx.ModelProto`` of the nomic-bert in ``gguf`` for inputs of at most
    ``max_tokens`` tokens (ConfigError when ``onnx`` is missing or the file is no nomic-bert)."""
    try:
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        raise ConfigError(
            "converting a GGUF model needs the onnx package: pip install onnx"
        ) from None
    s = nomic_shape(gguf)
    if max_tokens > s.context:
        raise ConfigError(f"max_tokens {max_tokens} exceeds the model's context {s.context}")
    g, w = GraphBuilder(helper, numpy_helper), gguf.array
    d = s.head_dim
    eps = s.eps
    cos, sin = rope_tables(d, max_tokens, s.rope_base)
    cos_c, sin_c = g.const("rope_cos", cos), g.const("rope_sin", sin)
    zero, one = (
        g.const("i_zero", np.array([0], np.int64)),
        g.const("i_one", np.array([1], np.int64)),
    )
    t = g.op("Slice", g.op("Shape", "input_ids"), one, g.const("i_two", np.array([2], np.int64)))
    cos_t = g.op("Slice", cos_c, zero, t, zero)  # (T, d), broadcast over (B, H, T, d)
    sin_t = g.op("Slice", sin_c, zero, t, zero)
    half = g.const("rope_split", np.array([d // 2, d // 2], np.int64))
    heads_shape = g.const("heads_shape", np.array([0, 0, s.heads, d], np.int64))
    flat_shape = g.const("flat_shape", np.array([0, 0, s.hidden], np.int64))
    scale = g.const("att_scale", np.array(1.0 / np.sqrt(d), np.float32))

    maskf = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    neg = g.op(
        "Mul",
        g.op("Sub", g.const("f_one", np.array(1.0, np.float32)), maskf),
        g.const("mask_neg", np.array(MASK_NEG, np.float32)),
    )
    bias = g.op("Unsqueeze", neg, g.const("mask_axes", np.array([1, 2], np.int64)))

    def layer_norm(x: str, prefix: str) -> str:
        return g.layer_norm(x, (prefix + ".weight", prefix + ".bias"), w, eps)

    def linear(x: str, name: str, weight: np.ndarray) -> str:
        return str(g.op("MatMul", x, g.const(name, np.ascontiguousarray(weight.T))))

    def rope(u: str) -> str:
        a, b = g.op("Split", u, half, axis=-1, outputs=2)
        rot = g.op("Concat", g.op("Neg", b), a, axis=-1)
        return str(g.op("Add", g.op("Mul", u, cos_t), g.op("Mul", rot, sin_t)))

    x = g.op("Gather", g.const("token_embd.weight", w("token_embd.weight")), "input_ids")
    x = g.op("Add", x, g.const("token_type0", w("token_types.weight")[0]))
    x = layer_norm(x, "token_embd_norm")
    for i in range(s.layers):
        b = f"blk.{i}."
        qkv = linear(x, b + "attn_qkv.wT", w(b + "attn_qkv.weight"))
        q, k, v = (
            g.op("Transpose", g.op("Reshape", part, heads_shape), perm=[0, 2, 1, 3])
            for part in g.op(
                "Split",
                qkv,
                g.const(b + "qkv_split", np.array([s.hidden] * 3, np.int64)),
                axis=-1,
                outputs=3,
            )
        )
        scores = g.op(
            "MatMul", g.op("Mul", rope(q), scale), g.op("Transpose", rope(k), perm=[0, 1, 3, 2])
        )
        probs = g.op("Softmax", g.op("Add", scores, bias), axis=-1)
        att = g.op(
            "Reshape", g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3]), flat_shape
        )
        x = layer_norm(
            g.op("Add", x, linear(att, b + "attn_output.wT", w(b + "attn_output.weight"))),
            b + "attn_output_norm",
        )
        gate_up = np.concatenate([w(b + "ffn_gate.weight"), w(b + "ffn_up.weight")], axis=0)
        gate, up = g.op(
            "Split",
            linear(x, b + "ffn_gate_up.wT", gate_up),
            g.const(b + "ffn_split", np.array([s.ffn, s.ffn], np.int64)),
            axis=-1,
            outputs=2,
        )
        act = g.op("Mul", g.op("Mul", gate, g.op("Sigmoid", gate)), up)
        x = layer_norm(
            g.op("Add", x, linear(act, b + "ffn_down.wT", w(b + "ffn_down.weight"))),
            b + "layer_output_norm",
        )
    return g.encoder_model("nomic_bert", x, s.hidden, OPSET)


__all__ = ["OPSET", "nomic_onnx_model"]
