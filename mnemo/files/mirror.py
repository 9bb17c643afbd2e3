"""Store -> files: every write that reaches the store is mirrored to its Markdown file.

:class:`MirrorObserver` is a write observer of the store
(:class:`~mnemo.storage.ports.observer.WriteObserver`): the store calls it after each committed
write of turns, memories, fact batches, eviction and user erasure, and it writes the files. The
database is the write of record: a file-system error after a committed write is logged and
left for the startup reconcile (:meth:`mnemo.files.sync.FileSync.reconcile`) to repair, never
raised.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from mnemo.files import layout
from mnemo.files.snapshot import Snapshot, private_dirs, write_atomic
from mnemo.schemas import MemoryItem, Message
from mnemo.storage.base import ListFilter
from mnemo.storage.ports.rows import MemoryRows
from mnemo.storage.scope import ReadScope

log = logging.getLogger(__name__)


def tenant_root(files_dir: str, tenant: str) -> Path:
    """The file store of one tenant: ``files_dir`` itself for ``default``, else
    ``files_dir/tenants/<tenant>``."""
    root = Path(files_dir).resolve()
    return root if tenant == "default" else root / "tenants" / layout.segment(tenant)


class FileMirror:
    """Writes rows as files under ``root`` and keeps the snapshot in step."""

    def __init__(self, root: Path) -> None:
        self.root = root
        private_dirs(self.root)
        self.snapshot = Snapshot(root)

    def write(self, entry: layout.Entry, save: bool = True) -> PurePosixPath:
        """Write (or rewrite) an entry's file; the snapshot learns its hash first, so the
        watcher sees the write as mnemo's own."""
        rel = layout.relpath(entry)
        text = layout.render(entry)
        with self.snapshot.lock:  # the watcher never reads the old file against the new hash
            self.snapshot.record(str(rel), entry.id, layout.digest(text))
            write_atomic(self.root / rel, text)
        if save:
            self.snapshot.save()
        return rel

    def remove(self, entry: layout.Entry, save: bool = True) -> None:
        """Soft delete: the file's last form goes to ``deleted/``, the live file away."""
        rel = layout.relpath(entry)
        with self.snapshot.lock:  # the watcher never reads the live file once it is forgotten
            self.snapshot.forget(str(rel))
            write_atomic(self.root / layout.deleted_path(rel), layout.render(entry))
            (self.root / rel).unlink(missing_ok=True)
        if save:
            self.snapshot.save()

    def erase(self, entries: list[layout.Entry]) -> None:
        """Erase the files of entries for good, their ``deleted/`` copies too."""
        with self.snapshot.lock:  # as in remove(): forget and erase in one step for the watcher
            for entry in entries:
                rel = layout.relpath(entry)
                self.snapshot.forget(str(rel))
                (self.root / rel).unlink(missing_ok=True)
                (self.root / layout.deleted_path(rel)).unlink(missing_ok=True)
        self.snapshot.save()

    def remove_user(self, user_id: str) -> None:
        """Erase a user's folders (live and ``deleted/``) after ``delete_user``: erasure is
        not a soft delete."""
        rel = PurePosixPath(layout.ENTRIES, layout.segment(user_id))
        with self.snapshot.lock:  # as in remove(): forget and erase in one step for the watcher
            for path in self.snapshot.under(f"{rel}/"):
                self.snapshot.forget(path)
            for folder in (self.root / rel, self.root / layout.deleted_path(rel)):
                if folder.exists():
                    shutil.rmtree(folder)
        self.snapshot.save()

    def memory(self, item: MemoryItem) -> None:
        """Mirror a memory: its file when live, ``deleted/`` when soft-deleted."""
        entry = layout.from_memory(item)
        if item.deleted_at is None:
            self.write(entry)
        else:
            self.remove(entry)

    def message(self, msg: Message, save: bool = True) -> None:
        """Mirror a turn: its file, or ``deleted/`` once evicted (when it still had a file)."""
        entry = layout.from_message(msg)
        if msg.evicted_at is None:
            self.write(entry, save)
        elif self.snapshot.sha(str(layout.relpath(entry))) is not None:
            self.remove(entry, save)


class MirrorObserver:
    """Mirrors one tenant's committed writes to a :class:`FileMirror`: a
    :class:`~mnemo.storage.ports.observer.WriteObserver` of the store (``store.observe``).

    A file-system error is logged and left for the startup reconcile, never raised.
    """

    def __init__(self, mirror: FileMirror, rows: MemoryRows, tenant: str) -> None:
        self.mirror, self.rows, self.tenant = mirror, rows, tenant

    def _safely(self, what: str, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except OSError:
            log.exception("file store: could not mirror %s (startup reconcile repairs it)", what)

    def messages_written(self, messages: list[Message]) -> None:
        """Write the files of stored turns (the shared ones)."""
        mine = [m for m in messages if m.tenant == self.tenant and layout.has_file(m)]
        if mine:
            self._safely("turns", self._messages, mine)

    def _messages(self, msgs: list[Message]) -> None:
        for msg in msgs:
            self.mirror.message(msg, save=False)
        self.mirror.snapshot.save()

    def memories_written(self, items: list[MemoryItem]) -> None:
        """Write (or move to ``deleted/``) the file of each memory added, changed or deleted
        (the shared ones: :func:`~mnemo.files.layout.has_file`)."""
        for item in items:
            if item.tenant == self.tenant and layout.has_file(item):
                self._safely(item.id, self.mirror.memory, item)

    def evicted(self, tenant: str, user_id: str, session_id: str) -> None:
        """Move the files of the memories eviction soft-deleted and of the turns it evicted to
        ``deleted/``: as in `agent-cli`, evicted entries leave the Markdown store (the turns
        stay in the database's event log, flagged ``evicted_at``)."""
        if tenant != self.tenant:
            return
        flt = ListFilter(ReadScope(tenant, user_id, session_id, deleted=True), limit=100_000)
        for item in self.rows.list_memories(flt):
            rel = str(layout.relpath(layout.from_memory(item)))
            if item.deleted_at is not None and self.mirror.snapshot.sha(rel) is not None:
                self._safely(item.id, self.mirror.memory, item)
        for msg in self.rows.list_messages(flt):
            if msg.evicted_at is not None:
                self._safely(msg.id, self.mirror.message, msg)

    def user_erased(self, tenant: str, user_id: str) -> None:
        """Erase the user's folders."""
        if tenant == self.tenant:
            self._safely(user_id, self.mirror.remove_user, user_id)

    def expired(self, messages: list[Message], memories: list[MemoryItem]) -> None:
        """Erase the files (live and ``deleted/``) of swept turns and memories: a sweep is
        not a soft delete."""
        entries = [layout.from_message(m) for m in messages if m.tenant == self.tenant]
        entries += [layout.from_memory(i) for i in memories if i.tenant == self.tenant]
        if entries:
            self._safely("expired entries", self.mirror.erase, entries)
