"""A NumPy forward pass of a nomic-bert encoder read from GGUF: the reference the ONNX
conversion (:mod:`mnemo.embedders.nomic_onnx`) is checked against.

nomic-bert is BERT with rotary positions, fused bias-free projections and a SwiGLU MLP, with
post-layer normalisation. For input ids ``t`` and a padding mask ``m``::

    x   = LN_e(E[t] + T[0])                                   (no position embedding)
    per layer l:
      q, k, v = split(x W_qkv^T)                            heads of size d = hidden / H
      q, k    = rope(q), rope(k)      rope(u)_p = u_p cos(p w) + rot(u_p) sin(p w),
                                      w_i = base^(-2i/d), rot([a, b]) = [-b, a]  (halves)
      a   = softmax(q k^T / sqrt(d) + (1 - m) * -1e9) v
      x   = LN_1(x + a W_o^T)
      x   = LN_2(x + (silu(x W_gate^T) * (x W_up^T)) W_down^T)

``LN`` is LayerNorm with the model's epsilon. Tensor names are llama.cpp's (``token_embd``,
``token_types``, ``token_embd_norm``, ``blk.N.attn_qkv``, ``attn_output``, ``attn_output_norm``,
``ffn_up``, ``ffn_gate``, ``ffn_down``, ``layer_output_norm``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mnemo.embedders.gguf_read import GGUFFile
from mnemo.errors import ConfigError

#: Large negative added to the attention scores of padding positions.
MASK_NEG = -1e9


@dataclass(frozen=True)
class NomicBertShape:
    """The hyper-parameters of a nomic-bert GGUF file."""

    layers: int
    hidden: int
    heads: int
    ffn: int
    eps: float
    rope_base: float
    context: int

    @property
    def head_dim(self) -> int:
        """Size of one attention head."""
        return self.hidden // self.heads


def nomic_shape(gguf: GGUFFile) -> NomicBertShape:
    """The hyper-parameters from the file's metadata; ConfigError for another architecture."""
    arch = gguf.kv.get("general.architecture")
    if arch != "nomic-bert":
        raise ConfigError(f"{gguf.path.name} holds a {arch!r} model, not nomic-bert")
    p = "nomic-bert."
    return NomicBertShape(
        layers=int(gguf.kv[p + "block_count"]),
        hidden=int(gguf.kv[p + "embedding_length"]),
        heads=int(gguf.kv[p + "attention.head_count"]),
        ffn=int(gguf.kv[p + "feed_forward_length"]),
        eps=float(gguf.kv[p + "attention.layer_norm_epsilon"]),
        rope_base=float(gguf.kv[p + "rope.freq_base"]),
        context=int(gguf.kv[p + "context_length"]),
    )


def rope_tables(head_dim: int, positions: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    """``cos``/``sin`` of shape (positions, head_dim): angle ``p * base^(-2i/d)`` for the
    first half's index ``i``, the second half repeating the first (NeoX layout)."""
    inv = 1.0 / base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    angles = np.arange(positions, dtype=np.float64)[:, None] * inv[None, :]
    angles = np.concatenate([angles, angles], axis=1)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps) * w + b`` over the last axis."""
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mu) / np.sqrt(var + eps) * w + b
    return out


def _rope(u: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    half = u.shape[-1] // 2
    rot = np.concatenate([-u[..., half:], u[..., :half]], axis=-1)
    out: np.ndarray = u * cos + rot * sin
    return out


def nomic_hidden(gguf: GGUFFile, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Last hidden states (batch, tokens, hidden) of ids (batch, tokens) under ``mask``."""
    s = nomic_shape(gguf)
    g = gguf.array
    n, t = ids.shape
    d = s.head_dim
    x = g("token_embd.weight")[ids] + g("token_types.weight")[0]
    x = layer_norm(x, g("token_embd_norm.weight"), g("token_embd_norm.bias"), s.eps)
    cos, sin = rope_tables(d, t, s.rope_base)
    bias = ((1.0 - mask.astype(np.float32)) * MASK_NEG)[:, None, None, :]
    for i in range(s.layers):
        b = f"blk.{i}."
        qkv = x @ g(b + "attn_qkv.weight").T
        q, k, v = (
            part.reshape(n, t, s.heads, d).transpose(0, 2, 1, 3) for part in np.split(qkv, 3, -1)
        )
        q, k = _rope(q, cos, sin), _rope(k, cos, sin)
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d) + bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        att = (scores / scores.sum(axis=-1, keepdims=True)) @ v
        att = att.transpose(0, 2, 1, 3).reshape(n, t, s.hidden)
        x = x + att @ g(b + "attn_output.weight").T
        x = layer_norm(x, g(b + "attn_output_norm.weight"), g(b + "attn_output_norm.bias"), s.eps)
        gate = x @ g(b + "ffn_gate.weight").T
        up = x @ g(b + "ffn_up.weight").T
        h = (gate / (1.0 + np.exp(-gate)) * up) @ g(b + "ffn_down.weight").T
        x = layer_norm(
            x + h, g(b + "layer_output_norm.weight"), g(b + "layer_output_norm.bias"), s.eps
        )
    out: np.ndarray = x.astype(np.float32)
    return out


def transformers_state(gguf: GGUFFile) -> dict[str, np.ndarray]:
    """The file's tensors under the parameter names of transformers' ``NomicBertModel`` (for
    checking this reference against that independent implementation; no torch needed here)."""
    g = gguf.array
    state = {
        "embeddings.word_embeddings.weight": g("token_embd.weight"),
        "embeddings.token_type_embeddings.weight": g("token_types.weight"),
        "embeddings.LayerNorm.weight": g("token_embd_norm.weight"),
        "embeddings.LayerNorm.bias": g("token_embd_norm.bias"),
    }
    names = {
        "attn_output": "self_attn.o_proj",
        "ffn_gate": "mlp.gate_proj",
        "ffn_up": "mlp.up_proj",
        "ffn_down": "mlp.down_proj",
        "attn_output_norm": "post_attention_layernorm",
        "layer_output_norm": "post_mlp_layernorm",
    }
    for i in range(nomic_shape(gguf).layers):
        b, t = f"blk.{i}.", f"layers.{i}."
        q, k, v = np.split(g(b + "attn_qkv.weight"), 3, axis=0)
        state |= {t + "self_attn.q_proj.weight": q, t + "self_attn.k_proj.weight": k}
        state[t + "self_attn.v_proj.weight"] = v
        for ours, theirs in names.items():
            state[t + theirs + ".weight"] = g(b + ours + ".weight")
            if ours.endswith("norm"):
                state[t + theirs + ".bias"] = g(b + ours + ".bias")
    return state


__all__ = [
    "MASK_NEG",
    "NomicBertShape",
    "layer_norm",
    "nomic_hidden",
    "nomic_shape",
    "rope_tables",
    "transformers_state",
]
