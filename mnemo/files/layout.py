"""The Markdown file store's layout: where a row's file lives and what it holds.

`agent-cli`'s layout, one folder per user and conversation (session)::

    <root>/entries/<user>/<session>/turns/user/<created>__<id>.md
    <root>/entries/<user>/<session>/turns/assistant/<created>__<id>.md
    <root>/entries/<user>/<session>/facts/<created>__<id>.md        (fact, note, episode)
    <root>/entries/<user>/<session>/summaries/summary.md            (the rolling summary)
    <root>/entries/<user>/<session>/summaries/<created>__<id>.md    (other summaries)
    <root>/deleted/...                                              (same paths, soft-deleted)

A memory without a session lives under the session folder ``_global``. User and session ids
are percent-encoded into one safe path segment each; a segment longer than
``MAX_SEGMENT_BYTES`` is cut and ends in ``~`` and a hash of the whole id (``~`` appears in no
other segment), so no name exceeds the 255-byte limit of common file systems. Each file is
YAML front matter (``id``, ``user_id``, ``session_id``, ``role``, ``kind``, ``created_at``
...) and the content as body.
A row's path depends on the row alone, so the mirror never needs a lookup to find it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

import yaml

from mnemo import memory_fields
from mnemo.errors import ValidationError
from mnemo.schemas import MemoryItem, Message, format_time

ENTRIES = "entries"
DELETED = "deleted"
GLOBAL_SESSION = "_global"
SUFFIX = ".md"
#: Longest path segment made from an id; with the time stamp and suffix a file name stays
#: well under the 255 bytes ext4, APFS and NTFS allow.
MAX_SEGMENT_BYTES = 180
#: Bytes of the readable prefix kept when a segment is shortened.
KEEP_BYTES = 150
FENCE = "---"
#: The front-matter key of each memory field a file holds besides the entry's own (id, user,
#: session, kind, created_at), by field name (:mod:`mnemo.memory_fields`).
FRONT = {f.name: f.front for f in memory_fields.FIELDS if f.front is not None}
#: Front-matter keys, in the order they are written (every key of :data:`FRONT` among them).
KEYS = (
    "id", "user_id", "session_id", "role", "kind", "name", "seq", "summary_kind", "created_at",
    "updated_at", "tags", "importance", "confidence", "sources", "metadata",
)  # fmt: skip


@dataclass
class Entry:
    """One file's content: front matter fields and the body text."""

    id: str | None
    user_id: str
    session_id: str | None
    kind: str  # "turn" or a memory kind (fact, note, episode, summary)
    body: str
    role: str | None = None
    created_at: str | None = None
    front: dict[str, Any] = field(default_factory=dict)

    @property
    def is_turn(self) -> bool:
        """Whether this file is a conversation turn (the event log)."""
        return self.kind == "turn"


def has_file(row: MemoryItem | Message) -> bool:
    """Whether the file store holds ``row``: shared rows do; a row private to an agent (or an
    agent's own memory) stays in the database only, since a file has no agent scope."""
    return row.agent_id is None and row.user_id != ""


def segment(value: str) -> str:
    """An id as one safe path segment: percent-encoded, never ``.``/``..``, at most
    ``MAX_SEGMENT_BYTES`` (ASCII) bytes.

    A longer encoding keeps its first ``KEEP_BYTES`` bytes (never cutting a ``%XX``) and
    appends ``~`` and the first 16 hex digits of the id's SHA-256, so distinct ids keep
    distinct segments; ``~`` itself is encoded in every id, so no short id looks shortened.
    """
    text = quote(value, safe="-_@+=,").replace("~", "%7E")
    if text.strip(".") == "" or text.startswith("."):
        text = text.replace(".", "%2E")
    if len(text) <= MAX_SEGMENT_BYTES:
        return text
    cut = KEEP_BYTES
    while "%" in text[cut - 2 : cut]:  # a cut inside %XX moves before it
        cut -= 1
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{text[:cut]}~{digest}"


def stamp(created_at: str) -> str:
    """A file-name-friendly form of a stored time: ``2026-01-02T03:04:05.123456Z`` ->
    ``20260102T030405.123456Z``."""
    return created_at.replace("-", "").replace(":", "")


def relpath(entry: Entry) -> PurePosixPath:
    """The path of an entry's file, relative to the root (under ``entries/``)."""
    if entry.id is None or entry.created_at is None:
        raise ValidationError("an entry needs an id and created_at to have a path")
    session = GLOBAL_SESSION if entry.session_id is None else segment(entry.session_id)
    base = PurePosixPath(ENTRIES, segment(entry.user_id), session)
    if entry.is_turn:
        folder = base / "turns" / segment(entry.role or "user")
    elif entry.kind == "summary":
        folder = base / "summaries"
        if entry.front.get("summary_kind") == "rolling":  # one per conversation (`agent-cli`)
            return folder / f"summary{SUFFIX}"
    else:
        folder = base / "facts"
    return folder / f"{stamp(entry.created_at)}__{segment(entry.id)}{SUFFIX}"


def deleted_path(rel: PurePosixPath) -> PurePosixPath:
    """Where a soft-deleted file goes: the same path under ``deleted/``."""
    return PurePosixPath(DELETED, *rel.parts[1:])


def front_value(value: Any) -> Any:
    """A memory field's value as front matter holds it: a time as stored text, a list or an
    object copied, an empty one left out (None)."""
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, list | dict):
        return (list(value) if isinstance(value, list) else dict(value)) or None
    return value


def from_row(row: Message | MemoryItem, kind: str, role: str, front: dict[str, Any]) -> Entry:
    """The entry of a stored turn or memory: its id, owner, content and creation time, with
    ``kind``, ``role`` and the rest of its front matter."""
    return Entry(
        id=row.id,
        user_id=row.user_id,
        session_id=row.session_id,
        kind=kind,
        body=row.content,
        role=role,
        created_at=format_time(row.created_at),
        front=front,
    )


def from_message(msg: Message) -> Entry:
    """The entry of a stored turn."""
    front: dict[str, Any] = {"name": msg.name, "seq": msg.seq, "metadata": msg.metadata or None}
    return from_row(msg, "turn", msg.role, front)


def from_memory(item: MemoryItem) -> Entry:
    """The entry of a stored memory."""
    front: dict[str, Any] = {key: front_value(getattr(item, name)) for name, key in FRONT.items()}
    front["tags"] = list(item.tags)  # written even when empty: ``tags: []``
    if item.metadata.get("summary_kind"):
        front["summary_kind"] = item.metadata["summary_kind"]
    return from_row(item, item.kind, "summary" if item.kind == "summary" else "memory", front)


def render(entry: Entry) -> str:
    """The file text: YAML front matter between ``---`` fences, then the body and a newline."""
    values: dict[str, Any] = {
        "id": entry.id,
        "user_id": entry.user_id,
        "session_id": entry.session_id,
        "role": entry.role,
        "kind": entry.kind,
        "created_at": entry.created_at,
        **entry.front,
    }
    ordered = {k: values[k] for k in KEYS if values.get(k) is not None}
    head = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=10_000)
    return f"{FENCE}\n{head}{FENCE}\n{entry.body}\n"


def parse(text: str) -> Entry:
    """An entry from file text; ValidationError when the front matter is missing or bad.

    The body is everything after the closing fence, less one trailing newline.
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise ValidationError("a memory file must start with '---' front matter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        raise ValidationError("the front matter has no closing '---'") from None
    try:
        front = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        raise ValidationError(f"the front matter is not valid YAML: {exc}") from None
    if not isinstance(front, dict):
        raise ValidationError("the front matter must be a mapping")
    body = "\n".join(lines[end + 1 :])
    body = body[:-1] if body.endswith("\n") else body
    return _entry(front, body)


def _entry(front: dict[str, Any], body: str) -> Entry:
    kind = str(front.get("kind") or "fact")
    user = front.get("user_id")
    if not isinstance(user, str) or not user:
        raise ValidationError("the front matter needs a user_id")
    session = front.get("session_id")
    created = front.get("created_at")
    if isinstance(created, datetime):  # an unquoted time in a hand-written file
        created = format_time(created if created.tzinfo else created.replace(tzinfo=UTC))
    rest = {k: v for k, v in front.items() if k not in ("id", "user_id", "session_id", "kind")}
    return Entry(
        id=str(front["id"]) if front.get("id") else None,
        user_id=user,
        session_id=None if session is None else str(session),
        kind=kind,
        body=body,
        role=None if front.get("role") is None else str(front["role"]),
        created_at=None if created is None else str(created),
        front={k: v for k, v in rest.items() if k not in ("role", "created_at")},
    )


def digest(text: str) -> str:
    """The sha256 of a file's text (how the snapshot recognises a file it wrote)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tags_of(entry: Entry) -> list[str] | None:
    """The entry's tags as a list of strings, None when the front matter has none."""
    tags = entry.front.get("tags")
    if tags is None:
        return None
    if isinstance(tags, str):
        return [tags]
    if not isinstance(tags, list):
        raise ValidationError("tags must be a list")
    return [str(t) for t in tags]
