"""A minimal reader of GGUF files (the llama.cpp model format): metadata and F32/F16 tensors.

Layout (little-endian, versions 2 and 3)::

    "GGUF"  u32 version  u64 n_tensors  u64 n_kv
    n_kv x      (string key, u32 type, value)          string = u64 length + UTF-8 bytes
    n_tensors x (string name, u32 n_dims, u64 dims[n_dims], u32 ggml type, u64 offset)
    padding to ``general.alignment`` (default 32), then the tensor data

A tensor's ``dims`` run fastest-first, so its NumPy shape is ``dims`` reversed; ``offset`` is
relative to the start of the data. Only the unquantised types F32 (0) and F16 (1) are read:
the models mnemo converts ship as F16. Tensors are memory-mapped, not copied.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from mnemo.errors import ConfigError

#: GGUF metadata value types -> struct format of a scalar.
_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
_STRING, _ARRAY = 8, 9
#: ggml tensor types this reader supports.
GGML_F32, GGML_F16 = 0, 1
_DTYPES: dict[int, np.dtype[Any]] = {GGML_F32: np.dtype("<f4"), GGML_F16: np.dtype("<f2")}


@dataclass
class GGUFFile:
    """A GGUF file's metadata (``kv``) and its tensors by name (NumPy arrays, memory-mapped)."""

    path: Path
    kv: dict[str, Any] = field(default_factory=dict)
    tensors: dict[str, np.ndarray] = field(default_factory=dict)

    def array(self, name: str) -> np.ndarray:
        """Tensor ``name`` as float32 (ConfigError when the file has none of that name)."""
        try:
            return np.asarray(self.tensors[name], dtype=np.float32)
        except KeyError:
            raise ConfigError(f"{self.path.name} has no tensor {name!r}") from None


def _read(fh: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize("<" + fmt)
    data = fh.read(size)
    if len(data) != size:
        raise ConfigError("truncated GGUF file")
    return struct.unpack("<" + fmt, data)[0]


def _string(fh: BinaryIO) -> str:
    n = _read(fh, "Q")
    data = fh.read(n)
    if len(data) != n:
        raise ConfigError("truncated GGUF file")
    return data.decode("utf-8", "replace")


def _value(fh: BinaryIO, kind: int) -> Any:
    if kind == _STRING:
        return _string(fh)
    if kind == _ARRAY:
        item, n = _read(fh, "I"), _read(fh, "Q")
        return [_value(fh, item) for _ in range(n)]
    fmt = _SCALARS.get(kind)
    if fmt is None:
        raise ConfigError(f"unknown GGUF metadata type {kind}")
    return _read(fh, fmt)


def read_gguf(path: Path) -> GGUFFile:
    """Parse ``path``; ConfigError when it is no GGUF file or holds a tensor type other than
    F32/F16."""
    out = GGUFFile(path)
    infos: list[tuple[str, tuple[int, ...], int, int]] = []
    with path.open("rb") as fh:
        if fh.read(4) != b"GGUF":
            raise ConfigError(f"{path} is not a GGUF file")
        version = _read(fh, "I")
        if version not in (2, 3):
            raise ConfigError(f"{path}: unsupported GGUF version {version}")
        n_tensors, n_kv = _read(fh, "Q"), _read(fh, "Q")
        for _ in range(n_kv):
            key = _string(fh)
            out.kv[key] = _value(fh, _read(fh, "I"))
        for _ in range(n_tensors):
            name = _string(fh)
            dims = tuple(_read(fh, "Q") for _ in range(_read(fh, "I")))
            infos.append((name, dims, _read(fh, "I"), _read(fh, "Q")))
        align = int(out.kv.get("general.alignment", 32))
        start = -(-fh.tell() // align) * align
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    for name, dims, kind, offset in infos:
        dtype = _DTYPES.get(kind)
        if dtype is None:
            raise ConfigError(f"{path.name}: tensor {name} has ggml type {kind}, not F32/F16")
        shape = tuple(reversed(dims))
        count = int(np.prod(shape)) if shape else 1
        begin = start + offset
        out.tensors[name] = raw[begin : begin + count * dtype.itemsize].view(dtype).reshape(shape)
    return out


def write_gguf(path: Path, kv: dict[str, Any], tensors: dict[str, np.ndarray]) -> None:
    """Write a GGUF v3 file of string/int/float/list metadata and F32/F16 tensors (the
    inverse of :func:`read_gguf`; used to make small models in tests)."""

    def s(text: str) -> bytes:
        data = text.encode()
        return struct.pack("<Q", len(data)) + data

    def v(value: Any) -> bytes:
        if isinstance(value, str):
            return struct.pack("<I", _STRING) + s(value)
        if isinstance(value, bool):
            return struct.pack("<I?", 7, value)
        if isinstance(value, int):
            return struct.pack("<Iq", 11, value)
        if isinstance(value, float):
            return struct.pack("<If", 6, value)
        if isinstance(value, list) and all(isinstance(x, str) for x in value):
            return struct.pack("<IIQ", _ARRAY, _STRING, len(value)) + b"".join(map(s, value))
        if isinstance(value, list) and all(isinstance(x, int) for x in value):
            return struct.pack(f"<IIQ{len(value)}i", _ARRAY, 5, len(value), *value)
        raise TypeError(f"unsupported GGUF value {value!r}")

    head = [b"GGUF", struct.pack("<IQQ", 3, len(tensors), len(kv))]
    head += [s(k) + v(x) for k, x in kv.items()]
    blobs, offset = [], 0
    for name, arr in tensors.items():
        kind = GGML_F16 if arr.dtype == np.float16 else GGML_F32
        data = np.ascontiguousarray(arr, dtype=_DTYPES[kind]).tobytes()
        dims = list(reversed(arr.shape))
        head.append(s(name) + struct.pack(f"<I{len(dims)}QIQ", len(dims), *dims, kind, offset))
        pad = -len(data) % 32
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    header = b"".join(head)
    header += b"\0" * (-len(header) % 32)
    path.write_bytes(header + b"".join(blobs))


__all__ = ["GGML_F16", "GGML_F32", "GGUFFile", "read_gguf", "write_gguf"]
