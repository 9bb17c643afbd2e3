"""``mnemo export --format markdown DIR`` / ``mnemo import DIR --format markdown``.

The export writes the file store's layout (:mod:`mnemo.files.layout`) for a whole tenant or
one user: live turns and memories under ``entries/``, deleted memories under ``deleted/``, and
a snapshot index, so the folder can also serve as ``MNEMO_FILES_DIR``. The import reads such a
folder into a store keeping every id, time, tag, score and source: turns in their session's
order (``seq``) without follow-up jobs (the facts and summaries come from the files), memories
with history actor ``import``; rows whose id the store already holds are skipped, so an import
can be run again. Vectors are not in the files: they are recomputed by the store's embedder.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from mnemo.config.settings import Settings
from mnemo.errors import ValidationError
from mnemo.files import layout
from mnemo.files.mirror import FileMirror
from mnemo.files.sync import all_rows
from mnemo.index import keys
from mnemo.index.embed import Embedding
from mnemo.schemas import MEMORY_KINDS, MemoryItem, format_time, utcnow
from mnemo.storage.base import NewMemory, NewMessage
from mnemo.storage.ports.store import Store
from mnemo.text import turn_rules

ACTOR = "import"


def export_markdown(
    store: Store, tenant: str, out_dir: Path, user_id: str | None = None
) -> Counter[str]:
    """Write the tenant's (or one user's) rows as Markdown files; returns counts per kind."""
    mirror = FileMirror(out_dir)
    out: Counter[str] = Counter()
    for row in all_rows(store.rows, tenant, user_id):
        if isinstance(row, MemoryItem):
            entry = layout.from_memory(row)
            if row.deleted_at is not None:
                mirror.remove(entry, save=False)
                out["deleted"] += 1
                continue
        else:
            entry = layout.from_message(row)
        mirror.write(entry, save=False)
        out["turns" if entry.is_turn else "memories"] += 1
    mirror.snapshot.save()
    return out


def _entries(in_dir: Path, folder: str) -> list[layout.Entry]:
    base = in_dir / folder
    if not base.is_dir():
        return []
    paths = sorted(p for p in base.rglob(f"*{layout.SUFFIX}") if not p.name.startswith("."))
    return [layout.parse(p.read_text(encoding="utf-8")) for p in paths]


def import_markdown(
    store: Store, embed: Embedding, settings: Settings, in_dir: Path
) -> Counter[str]:
    """Read a Markdown folder (``entries/`` and ``deleted/``) into ``store`` as the tenant of
    ``settings``, vectors made by ``embed``; returns counts per kind. A file that does not
    parse raises ValidationError before any write."""
    if not (in_dir / layout.ENTRIES).is_dir():
        raise ValidationError(f"{in_dir} has no {layout.ENTRIES}/ folder (not a Markdown export)")
    live, gone = _entries(in_dir, layout.ENTRIES), _entries(in_dir, layout.DELETED)
    out: Counter[str] = Counter()
    target = _Target(store, settings.tenant, embed, keys.KeySpec.from_settings(settings))
    out["turns"] = _import_turns(target, [e for e in live if e.is_turn])
    memories = [(e, False) for e in live if not e.is_turn] + [(e, True) for e in gone]
    memories.sort(key=lambda m: (m[0].created_at or "", m[0].id or ""))  # the original order
    out.update(_import_memories(target, memories))
    return out


@dataclass(frozen=True)
class _Target:
    """Where an import writes: a tenant of a store, its embedding and key settings."""

    store: Store
    tenant: str
    embed: Embedding
    key_spec: keys.KeySpec


def _session_key(e: layout.Entry) -> tuple[str, str]:
    return (e.user_id, e.session_id or "default")


def _import_turns(to: _Target, entries: list[layout.Entry]) -> int:
    fresh = [e for e in entries if e.id and to.store.rows.get_message(to.tenant, e.id) is None]
    fresh.sort(key=lambda e: (_session_key(e), int(e.front.get("seq") or 0), e.created_at or ""))
    n = 0
    for (user, session), group in groupby(fresh, key=_session_key):
        turns = list(group)
        hashes, vectors = to.embed([e.body for e in turns])
        key_vectors = keys.embed_keys(
            to.embed.embedder,
            to.store.search,
            to.tenant,
            [(e.role or "user", e.body) for e in turns],
            hashes,
            to.key_spec,
        )
        rows = [
            NewMessage(
                id=str(e.id),
                tenant=to.tenant,
                user_id=user,
                session_id=session,
                role=e.role or "user",
                name=e.front.get("name"),
                content=e.body,
                created_at=e.created_at or format_time(utcnow()),
                metadata=_mapping(e.front.get("metadata")),
                content_hash=h,
                embedder=to.embed.id,
                embedding=v,
                key_vectors=kv,
                rules=turn_rules.derive(e.role or "user", e.body),
            )
            for e, h, v, kv in zip(turns, hashes, vectors, key_vectors, strict=True)
        ]
        n += len(to.store.rows.add_messages(rows, []))
    return n


def _import_memories(to: _Target, entries: Iterable[tuple[layout.Entry, bool]]) -> Counter[str]:
    n: Counter[str] = Counter(memories=0, deleted=0)
    for e, deleted in entries:
        if e.is_turn:
            continue
        if not e.id or to.store.rows.get_memory(to.tenant, e.id) is not None:
            continue
        hashes, vectors = to.embed([e.body])
        row = NewMemory(
            id=e.id,
            tenant=to.tenant,
            user_id=e.user_id,
            session_id=e.session_id,
            kind=e.kind if e.kind in MEMORY_KINDS else "fact",
            content=e.body,
            tags=layout.tags_of(e) or [],
            metadata=_mapping(e.front.get("metadata")),
            importance=float(e.front.get("importance", 0.5)),
            confidence=float(e.front.get("confidence", 1.0)),
            source_message_ids=[str(s) for s in e.front.get("sources") or []],
            created_at=e.created_at or format_time(utcnow()),
            content_hash=hashes[0],
            embedder=to.embed.id,
            embedding=vectors[0],
        )
        to.store.rows.add_memory(row, ACTOR)
        if deleted:
            to.store.rows.delete_memory(to.tenant, e.id, ACTOR)
        n["deleted" if deleted else "memories"] += 1
    return n


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}
