"""The background watcher: file changes under ``entries/`` applied as they happen.

One daemon thread runs :func:`watchfiles.watch` on ``<root>/entries`` and hands each debounced
batch of changed paths to :meth:`FileSync.apply_batch`. mnemo's own writes come back as
events too; their hash matches the snapshot, so they are recognised and skipped.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from mnemo.files import layout
from mnemo.files.snapshot import private_dirs
from mnemo.files.sync import FileSync, rel_of

log = logging.getLogger(__name__)
BatchHook = Callable[[Counter[str]], None]


class FileWatcher:
    """Watches a file store and applies hand edits; ``start()`` / ``stop()``."""

    def __init__(
        self, sync: FileSync, debounce_ms: int = 100, on_batch: BatchHook | None = None
    ) -> None:
        self.sync = sync
        self.debounce_ms = debounce_ms
        self.on_batch = on_batch
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """Whether the watcher thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout_s: float = 5.0) -> None:
        """Start the watcher thread; returns once it watches (or after ``timeout_s``)."""
        if self.running:
            return
        private_dirs(self.sync.root / layout.ENTRIES)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="mnemo-files", daemon=True)
        self._thread.start()
        self._ready.wait(timeout_s)

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the watcher and wait for its thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        self._thread = None

    def _run(self) -> None:
        from watchfiles import watch

        entries = self.sync.root / layout.ENTRIES
        batches = watch(
            entries,
            stop_event=self._stop,
            debounce=self.debounce_ms,
            step=20,
            rust_timeout=200,
            yield_on_timeout=True,
            watch_filter=None,
        )
        for changes in batches:
            self._ready.set()
            rels = self._paths({p for _, p in changes})
            if not rels:
                continue
            counts = self.sync.apply_batch(rels)
            log.info("file store: applied %s", dict(counts))
            if self.on_batch is not None:
                self.on_batch(counts)

    def _paths(self, paths: set[str]) -> set[str]:
        """Entry files named by a batch; a new folder stands for every file in it (a file
        written into a brand-new folder can beat the folder's watch and send no event)."""
        out: set[str] = set()
        for raw in paths:
            path = Path(raw)
            found = path.rglob(f"*{layout.SUFFIX}") if path.is_dir() else [path]
            out.update(r for p in found if (r := rel_of(self.sync.root, p)) is not None)
        return out
