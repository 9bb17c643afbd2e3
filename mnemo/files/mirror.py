"""Store -> files: every write that reaches the store is mirrored to its Markdown file.

:class:`MirroredStore` wraps a store: the write methods (turns, memories, fact batches,
eviction, user erasure) call the real store first, then write the files. The database is the
write of record: a file-system error after a committed write is logged and left for the
startup reconcile (:func:`mnemo.files.sync.reconcile`) to repair, never raised. Every other
call goes to the wrapped store (see :class:`~mnemo.storage.delegate.StoreDelegate`).
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from mnemo.files import layout
from mnemo.files.snapshot import Snapshot, private_dirs, write_atomic
from mnemo.schemas import MemoryItem, Message
from mnemo.storage.base import FactBatch, ListFilter, NewJob, NewMemory, NewMessage
from mnemo.storage.delegate import StoreDelegate
from mnemo.storage.ports.store import Store

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


class MirroredStore(StoreDelegate):
    """A store whose writes are mirrored to a :class:`FileMirror` once they commit; every
    other call goes to the wrapped store unchanged."""

    def __init__(self, store: Store, mirror: FileMirror) -> None:
        super().__init__(store)
        self.mirror = mirror

    def _safely(self, what: str, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except OSError:
            log.exception("file store: could not mirror %s (startup reconcile repairs it)", what)

    def add_messages(self, rows: list[NewMessage], jobs: list[NewJob]) -> list[Message]:
        """Store turns, then write their files."""
        out = self.inner.add_messages(rows, jobs)
        self._safely("turns", self._messages, out)
        return out

    def _messages(self, msgs: list[Message]) -> None:
        for msg in msgs:
            self.mirror.message(msg, save=False)
        self.mirror.snapshot.save()

    def add_memory(self, row: NewMemory, actor: str) -> MemoryItem:
        """Store a memory, then write its file."""
        item = self.inner.add_memory(row, actor)
        self._safely(item.id, self.mirror.memory, item)
        return item

    def update_memory(
        self,
        tenant: str,
        memory_id: str,
        changes: dict[str, Any],
        actor: str,
        source_message_ids: list[str] | None = None,
    ) -> MemoryItem:
        """Change a memory, then rewrite its file."""
        item = self.inner.update_memory(tenant, memory_id, changes, actor, source_message_ids)
        self._safely(memory_id, self.mirror.memory, item)
        return item

    def delete_memory(self, tenant: str, memory_id: str, actor: str) -> MemoryItem:
        """Soft-delete a memory, then move its file to ``deleted/``."""
        item = self.inner.delete_memory(tenant, memory_id, actor)
        self._safely(memory_id, self.mirror.memory, item)
        return item

    def apply_facts(self, batch: FactBatch) -> list[MemoryItem] | None:
        """Apply a fact batch, then mirror every memory it added, changed or deleted."""
        out = self.inner.apply_facts(batch)
        for item in out or []:
            self._safely(item.id, self.mirror.memory, item)
        return out

    def evict_oldest(
        self,
        tenant: str,
        user_id: str,
        session_id: str,
        max_entries: int,
        kinds: tuple[str, ...],
        actor: str,
    ) -> int:
        """Evict, then move the files of the memories it soft-deleted and of the turns it
        evicted to ``deleted/``: as in `agent-cli`, evicted entries leave the Markdown store
        (the turns stay in the database's event log, flagged ``evicted_at``)."""
        n = self.inner.evict_oldest(tenant, user_id, session_id, max_entries, kinds, actor)
        if n:
            flt = ListFilter(tenant, user_id, session_id, include_deleted=True, limit=100_000)
            for item in self.inner.list_memories(flt):
                rel = str(layout.relpath(layout.from_memory(item)))
                if item.deleted_at is not None and self.mirror.snapshot.sha(rel) is not None:
                    self._safely(item.id, self.mirror.memory, item)
            for msg in self.inner.list_messages(flt):
                if msg.evicted_at is not None:
                    self._safely(msg.id, self.mirror.message, msg)
        return n

    def delete_user(self, tenant: str, user_id: str) -> dict[str, int]:
        """Erase a user's rows, then move the user's folder to ``deleted/``."""
        counts = self.inner.delete_user(tenant, user_id)
        self._safely(user_id, self.mirror.remove_user, user_id)
        return counts
