"""The snapshot index: what the file store last saw on disk.

``<root>/.mnemo-index.json`` maps each file's relative path to ``{"id", "sha256"}``. A file
whose hash matches its snapshot entry is one mnemo wrote (or already applied), so neither the
watcher nor the startup reconcile treats it as a hand edit: that is what stops echo loops.
The index is rewritten atomically (temp file + rename) after each change.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

INDEX_NAME = ".mnemo-index.json"


#: Modes of the folders and files the file store creates: private to the user running mnemo.
DIR_MODE, FILE_MODE = 0o700, 0o600


def private_dirs(folder: Path) -> None:
    """Create ``folder`` and each missing parent with ``DIR_MODE`` (``mkdir(parents=True)``
    would give the parents the default mode)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir(mode=DIR_MODE, exist_ok=True)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file in the same folder and a rename, so a
    reader (or a crash) never sees half a file. New folders get ``DIR_MODE``, the file
    ``FILE_MODE``."""
    private_dirs(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, FILE_MODE)
    with open(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class Snapshot:
    """Path -> (id, sha256) of every file the store knows, guarded by one lock."""

    def __init__(self, root: Path) -> None:
        self.path = root / INDEX_NAME
        self.lock = threading.RLock()
        self.files: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.files = dict(data.get("files", {}))

    def sha(self, rel: str) -> str | None:
        """The recorded hash of a path, None when the path is not known."""
        with self.lock:
            rec = self.files.get(rel)
            return None if rec is None else str(rec["sha256"])

    def record(self, rel: str, id: str | None, sha: str) -> None:
        """Remember a file mnemo wrote or applied."""
        with self.lock:
            self.files[rel] = {"id": id, "sha256": sha}

    def forget(self, rel: str) -> dict[str, Any] | None:
        """Drop a path; returns what was recorded."""
        with self.lock:
            return self.files.pop(rel, None)

    def under(self, prefix: str) -> list[str]:
        """Recorded paths below a folder prefix."""
        with self.lock:
            return [p for p in self.files if p.startswith(prefix)]

    def save(self) -> None:
        """Rewrite the index file atomically."""
        with self.lock:
            text = json.dumps({"version": 1, "files": self.files}, sort_keys=True)
            write_atomic(self.path, text)
