"""Files -> store: apply hand edits and deletions of Markdown files, and reconcile at startup.

Rules (the watcher and the startup reconcile share them):

* A file whose hash matches the snapshot is mnemo's own write (or already applied): ignored.
* **Facts and summaries.** An edited body or ``tags`` list updates the memory (re-embedded,
  history actor ``file``); a new file (no ``id``, or an id the store does not know) adds a
  memory with actor ``file`` and is replaced by a file at the canonical path with the new id;
  a deleted file soft-deletes the memory (actor ``file``), whose last form goes to
  ``deleted/``. A file of a memory deleted in the store moves to ``deleted/``.
* **Turns are the event log.** A hand edit or deletion of a turn file is reported (a warning)
  and undone: the file is rewritten from the stored turn. A turn file the store does not know
  is reported and left alone. A turn evicted from the working set (``max_entries``,
  `agent-cli`) has no live file: its file goes to ``deleted/`` and is not restored.
* A file that does not parse (no front matter, bad YAML, empty body) is reported and left
  alone; it is retried when it changes again.

The startup reconcile (`agent-cli`'s initial index) applies every file that changed since the
snapshot, every file deleted since, then writes a file for each row that has none (or whose
file is the stale mnemo-written version), moves files of deleted memories to ``deleted/``,
and saves the snapshot.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Protocol

from mnemo.errors import MnemoError, ValidationError
from mnemo.files import layout
from mnemo.files.mirror import FileMirror
from mnemo.ids import MEMORY_PREFIX, MESSAGE_PREFIX
from mnemo.schemas import MEMORY_KINDS, MemoryItem, Message
from mnemo.storage.agent_scope import AgentView
from mnemo.storage.base import ListFilter
from mnemo.storage.ports.rows import MemoryRows
from mnemo.storage.scope import ReadScope

log = logging.getLogger(__name__)
ACTOR = "file"
PAGE = 1000


def entry_files(root: Path) -> dict[str, Path]:
    """Every Markdown file under ``root/entries``, by relative POSIX path (temp files out)."""
    base = root / layout.ENTRIES
    if not base.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p
        for p in base.rglob(f"*{layout.SUFFIX}")
        if not p.name.startswith(".") and p.is_file()
    }


def all_rows(
    store: MemoryRows, tenant: str, user_id: str | None = None
) -> Iterator[MemoryItem | Message]:
    """Every memory (deleted ones too) and every turn of a tenant (or one of its users),
    page by page: the shared ones, those the file store holds (see
    :func:`~mnemo.files.layout.has_file`)."""
    shared = AgentView(None)
    offset = 0
    while True:
        flt = ListFilter(
            ReadScope(tenant, user_id, agents=shared, deleted=True), limit=PAGE, offset=offset
        )
        page = store.list_memories(flt)
        yield from page
        if len(page) < PAGE:
            break
        offset += PAGE
    offset = 0
    while True:
        flt = ListFilter(ReadScope(tenant, user_id, agents=shared), limit=PAGE, offset=offset)
        msgs = store.list_messages(flt)
        yield from msgs
        if len(msgs) < PAGE:
            break
        offset += PAGE


class MemoryWriter(Protocol):
    """The validated memory writes a file edit becomes (``Memory``'s record calls)."""

    def add(
        self,
        content: str,
        user_id: str,
        *,
        kind: str = "fact",
        session_id: str | None = None,
        tags: Sequence[str] | None = None,
        actor: str = "api",
    ) -> MemoryItem:
        """Store one memory; records ADD in its history."""
        ...

    def update(
        self,
        id: str,
        *,
        content: str | None = None,
        tags: Sequence[str] | None = None,
        actor: str = "api",
    ) -> MemoryItem:
        """Change a live memory (a new content is re-embedded); records UPDATE."""
        ...

    def delete(self, id: str, actor: str = "api") -> MemoryItem:
        """Soft-delete a memory; records DELETE."""
        ...


class FileSync:
    """Applies file changes under a mirror's root to a tenant's rows: reads from ``store``,
    writes memories through ``writer`` (validated, embedded, with history)."""

    def __init__(
        self, store: MemoryRows, tenant: str, writer: MemoryWriter, mirror: FileMirror
    ) -> None:
        self.store = store
        self.tenant = tenant
        self.writer = writer
        self.mirror = mirror
        self.root = mirror.root

    def changed(self, rel: str) -> str:
        """Apply the file at ``rel`` (added or modified); returns the outcome's name."""
        path = self.root / rel
        # Read and compare under the snapshot lock: the mirror changes the snapshot and the
        # file together under it, so a file mnemo is rewriting is never taken for a hand edit.
        with self.mirror.snapshot.lock:
            try:
                text: str | None = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                text = None
            except UnicodeDecodeError:
                log.warning("file store: %s ignored: not UTF-8 text", rel)
                return "invalid"
            sha = None if text is None else layout.digest(text)
            if sha is not None and self.mirror.snapshot.sha(rel) == sha:
                return "unchanged"
        if text is None or sha is None:
            return self.removed(rel)
        try:
            entry = layout.parse(text)
            if entry.is_turn:
                return self._turn_changed(rel, entry, sha)
            return self._memory_changed(rel, entry, sha)
        except ValidationError as exc:
            log.warning("file store: %s ignored: %s", rel, exc)
            return "invalid"

    def _turn_changed(self, rel: str, entry: layout.Entry, sha: str) -> str:
        msg = self._message(entry.id)
        if msg is None:
            log.warning("file store: %s is a turn the store does not know; left alone", rel)
            self.mirror.snapshot.record(rel, entry.id, sha)
            return "unknown_turn"
        if entry.body == msg.content:
            self.mirror.snapshot.record(rel, msg.id, sha)
            return "unchanged"
        log.warning("file store: %s: turns are the event log; the hand edit is undone", rel)
        self.mirror.message(msg)
        return "turn_restored"

    def _memory_changed(self, rel: str, entry: layout.Entry, sha: str) -> str:
        item = self._memory(entry.id)
        if item is None:
            return self._memory_added(rel, entry)
        if item.deleted_at is not None:
            self.mirror.snapshot.forget(rel)
            self.mirror.memory(item)
            return "deleted"
        tags = layout.tags_of(entry)
        content = entry.body if entry.body.strip() != item.content.strip() else None
        new_tags = tags if tags is not None and tags != item.tags else None
        if content is None and new_tags is None:
            self.mirror.snapshot.record(rel, item.id, sha)
            return "unchanged"
        self.writer.update(item.id, content=content, tags=new_tags, actor=ACTOR)
        return "updated"

    def _memory_added(self, rel: str, entry: layout.Entry) -> str:
        kind = entry.kind if entry.kind in MEMORY_KINDS else "fact"
        item = self.writer.add(
            entry.body,
            entry.user_id,
            kind=kind,
            session_id=entry.session_id,
            tags=layout.tags_of(entry),
            actor=ACTOR,
        )
        new_rel = str(layout.relpath(layout.from_memory(item)))
        if new_rel != rel:
            self.mirror.snapshot.forget(rel)
            (self.root / rel).unlink(missing_ok=True)
            self.mirror.snapshot.save()
        return "added"

    def removed(self, rel: str) -> str:
        """Apply the deletion of the file at ``rel``; returns the outcome's name."""
        with self.mirror.snapshot.lock:  # no mirror write between the forget and the check
            rec = self.mirror.snapshot.forget(rel)
            if rec is None or (self.root / rel).exists():
                return "unknown"
        id = rec.get("id")
        msg = self._message(id)
        if msg is not None and msg.evicted_at is not None:
            self.mirror.snapshot.save()
            return "unknown"  # evicted: its file is meant to be gone
        if msg is not None:
            log.warning("file store: %s: turns are the event log; the file is restored", rel)
            self.mirror.message(msg)
            return "turn_restored"
        item = self._memory(id)
        self.mirror.snapshot.save()
        if item is None or item.deleted_at is not None:
            return "unknown"
        self.writer.delete(item.id, actor=ACTOR)
        return "deleted"

    def _message(self, id: object) -> Message | None:
        if not isinstance(id, str) or not id.startswith(MESSAGE_PREFIX):
            return None
        return self.store.get_message(self.tenant, id)

    def _memory(self, id: object) -> MemoryItem | None:
        if not isinstance(id, str) or not id.startswith(MEMORY_PREFIX):
            return None
        return self.store.get_memory(self.tenant, id)

    def apply_batch(self, rels: set[str]) -> Counter[str]:
        """Apply a batch of changed paths (from the watcher); each path's current state
        (present or gone) decides. Errors are reported per file, never raised."""
        out: Counter[str] = Counter()
        for rel in sorted(rels):
            try:
                out[self.changed(rel)] += 1
            except (MnemoError, OSError):
                log.exception("file store: could not apply %s", rel)
                out["error"] += 1
        self.mirror.snapshot.save()
        return out

    def reconcile(self) -> Counter[str]:
        """`agent-cli`'s initial index: files -> store, then store -> files; returns counts."""
        out: Counter[str] = Counter()
        files = entry_files(self.root)
        for rel in sorted(files):
            out[self.changed(rel)] += 1
        for rel in self.mirror.snapshot.under(f"{layout.ENTRIES}/"):
            if rel not in files:
                out[self.removed(rel)] += 1
        for row in all_rows(self.store, self.tenant):
            try:
                out[self._row(row)] += 1
            except OSError:  # one unwritable file must not keep the store from opening
                log.exception("file store: could not mirror %s (retried at the next start)", row.id)
                out["error"] += 1
        self.mirror.snapshot.save()
        out.pop("unchanged", None)
        out.pop("in_step", None)
        return out

    def _row(self, row: MemoryItem | Message) -> str:
        """Store -> files for one row: write a missing or stale file, move a deleted one."""
        if isinstance(row, MemoryItem):
            entry, gone = layout.from_memory(row), row.deleted_at is not None
        else:
            entry, gone = layout.from_message(row), row.evicted_at is not None
        if gone:
            if (self.root / layout.relpath(entry)).exists():
                self.mirror.remove(entry, save=False)
                return "moved_to_deleted"
            return "in_step"
        rel = layout.relpath(entry)
        path = self.root / rel
        if not path.exists():
            self.mirror.write(entry, save=False)
            return "written"
        current = layout.digest(path.read_text(encoding="utf-8"))
        expected = layout.digest(layout.render(entry))
        if current != expected and current == self.mirror.snapshot.sha(str(rel)):
            self.mirror.write(entry, save=False)
            return "rewritten"
        return "in_step"


def rel_of(root: Path, path: str | Path) -> str | None:
    """``path`` relative to ``root`` as POSIX text when it is an entry file, else None."""
    p = Path(path)
    try:
        rel = PurePosixPath(p.relative_to(root).as_posix())
    except ValueError:
        return None
    if rel.parts[:1] != (layout.ENTRIES,) or rel.suffix != layout.SUFFIX:
        return None
    return None if rel.name.startswith(".") else str(rel)
