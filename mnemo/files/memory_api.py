"""The file store's calls on :class:`mnemo.Memory` (mixed in): attach, reconcile, watch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemo.config.settings import Settings
from mnemo.errors import ConfigError
from mnemo.storage.ports.store import Store

if TYPE_CHECKING:
    from mnemo.files.sync import FileSync
    from mnemo.files.watcher import BatchHook, FileWatcher


class FilesAPI:
    """``reconcile_files`` / ``watch_files`` / ``stop_files`` of :class:`mnemo.Memory`."""

    store: Store
    tenant: str
    settings: Settings
    _file_sync: FileSync | None = None
    _file_watcher: FileWatcher | None = None

    def _attach_files(self) -> None:
        """Wrap the store so its writes (API and tiers alike) are mirrored to
        ``settings.files_dir`` (when set); before the tiers are built, so they get the wrapper."""
        if self.settings.files_dir is None:
            return
        from mnemo.files.mirror import FileMirror, MirroredStore, tenant_root
        from mnemo.files.sync import FileSync

        mirror = FileMirror(tenant_root(self.settings.files_dir, self.tenant))
        self.store = MirroredStore(self.store, mirror)
        self._file_sync = FileSync(self, mirror)  # type: ignore[arg-type]

    def _open_files(self) -> None:
        """The startup reconcile, once the Memory is built (files_reconcile_on_open)."""
        if self._file_sync is not None and self.settings.files_reconcile_on_open:
            self.reconcile_files()

    def _files(self) -> FileSync:
        if self._file_sync is None:
            raise ConfigError("the file store is off: set files_dir (MNEMO_FILES_DIR)")
        return self._file_sync

    def reconcile_files(self) -> dict[str, int]:
        """Seed 002's initial index: apply files edited or deleted since the snapshot (history
        actor ``file``), write files for rows that have none; returns counts per outcome."""
        return dict(self._files().reconcile())

    def watch_files(self, on_batch: BatchHook | None = None) -> FileWatcher:
        """Start the background watcher (idempotent); hand edits then reach the store."""
        from mnemo.files.watcher import FileWatcher

        if self._file_watcher is None:
            self._file_watcher = FileWatcher(
                self._files(), self.settings.files_debounce_ms, on_batch
            )
        self._file_watcher.start()
        return self._file_watcher

    def stop_files(self) -> None:
        """Stop the watcher if it runs."""
        if self._file_watcher is not None:
            self._file_watcher.stop()
            self._file_watcher = None
