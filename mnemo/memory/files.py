"""The file store of a :class:`mnemo.Memory` (`agent-cli`): mirror writes, reconcile, watch.

:func:`mirrored` wraps the store so that its writes (API and tiers alike) are mirrored to
``settings.files_dir``; :class:`Files` applies hand edits back through the Memory's record
calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemo.config.settings import Settings
from mnemo.errors import ConfigError
from mnemo.files.sync import FileSync, MemoryWriter
from mnemo.storage.ports.store import Store

if TYPE_CHECKING:
    from mnemo.files.mirror import FileMirror
    from mnemo.files.watcher import BatchHook, FileWatcher


def mirrored(store: Store, settings: Settings) -> tuple[Store, FileMirror | None]:
    """``store`` wrapped so its writes are mirrored to ``settings.files_dir``, with the
    mirror; ``(store, None)`` when the file store is off. Wrap before the tiers are built, so
    they write through the wrapper."""
    if settings.files_dir is None:
        return store, None
    from mnemo.files.mirror import FileMirror, MirroredStore, tenant_root

    mirror = FileMirror(tenant_root(settings.files_dir, settings.tenant))
    return MirroredStore(store, mirror), mirror


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
        self.sync = None if mirror is None else FileSync(store, settings.tenant, writer, mirror)
        self._watcher: FileWatcher | None = None

    def open(self) -> None:
        """The startup reconcile, once the Memory is built (``files_reconcile_on_open``)."""
        if self.sync is not None and self.settings.files_reconcile_on_open:
            self.reconcile_files()

    def _sync(self) -> FileSync:
        if self.sync is None:
            raise ConfigError("the file store is off: set files_dir (MNEMO_FILES_DIR)")
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
