"""The file store of a :class:`mnemo.Memory` (`agent-cli`): mirror writes, reconcile, watch.

:func:`mirrored` has the store tell a mirror of its writes (API and tiers alike), which it
writes to ``settings.files_root``; :class:`Files` applies hand edits back through the Memory's
record calls.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from mnemo.config.settings import Settings
from mnemo.errors import ConfigError
from mnemo.files.sync import FileSync, MemoryWriter
from mnemo.storage.ports.store import Store

if TYPE_CHECKING:
    from mnemo.files.mirror import FileMirror
    from mnemo.files.watcher import BatchHook, FileWatcher

log = logging.getLogger("mnemo.files")


def mirrored(store: Store, settings: Settings) -> FileMirror | None:
    """The mirror of ``store``'s writes (API and tiers alike, those of ``settings.tenant``) to
    ``settings.files_root``, observing the store; None when the file store is off.

    ``files_enabled`` with no folder to default to (PostgreSQL, ``:memory:``) and no
    ``files_dir`` leaves the store off, with a warning; a missing ``files`` extra is a
    ConfigError.
    """
    root = settings.files_root
    if root is None:
        if settings.files_enabled:
            log.warning(
                "the file store is on but this store has no folder to put it in: set files_dir"
            )
        return None
    try:
        from mnemo.files.mirror import FileMirror, MirrorObserver, tenant_root
    except ImportError as exc:
        raise ConfigError(
            f"the Markdown file store needs the files extra (pip install 'mnemo-ltm[files]'), "
            f"or files_enabled=false: {exc}"
        ) from None
    mirror = FileMirror(tenant_root(root, settings.tenant))
    store.observe(MirrorObserver(mirror, store.rows, settings.tenant))
    return mirror


class Files:
    """``reconcile_files`` / ``watch_files`` / ``stop_files``: hand edits of the mirror's files
    reach the store through ``writer`` (history actor ``file``)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        writer: MemoryWriter,
        mirror: FileMirror | None,
    ) -> None:
        self.settings = settings
        self.sync = (
            None if mirror is None else FileSync(store.rows, settings.tenant, writer, mirror)
        )
        self._watcher: FileWatcher | None = None

    def open(self) -> None:
        """The startup reconcile, once the Memory is built (``files_reconcile_on_open``)."""
        if self.sync is not None and self.settings.files_reconcile_on_open:
            self.reconcile_files()

    def _sync(self) -> FileSync:
        if self.sync is None:
            raise ConfigError(
                "the file store is off: set files_dir (MNEMO_FILES_DIR) or files_enabled"
            )
        return self.sync

    def reconcile_files(self) -> dict[str, int]:
        """`agent-cli`'s initial index: apply files edited or deleted since the snapshot (history
        actor ``file``), write files for rows that have none; returns counts per outcome."""
        return dict(self._sync().reconcile())

    def watch_files(self, on_batch: BatchHook | None = None) -> FileWatcher:
        """Start the background watcher (idempotent); hand edits then reach the store."""
        from mnemo.files.watcher import FileWatcher

        if self._watcher is None:
            self._watcher = FileWatcher(self._sync(), self.settings.files_debounce_ms, on_batch)
        self._watcher.start()
        return self._watcher

    def stop_files(self) -> None:
        """Stop the watcher if it runs."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
