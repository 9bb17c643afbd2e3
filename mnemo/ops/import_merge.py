"""Where the rows of a `mnemo export` file go in a store that may already hold data.

An import merges: it adds what the store lacks and keeps what the store has.

* ``rowid`` values are shifted past the target's largest (``new = old + max(target rowid)``),
  and the child rows that point at a memory or a document by rowid (tags, chunks) follow their
  parent. Into an empty store the shift is 0, so a whole-store import keeps every rowid.
* A row whose key is already in the target (the ``id`` column, or the table's natural key in
  :data:`NATURAL_KEYS`) is *kept* as the target has it: the file's row is skipped, with its
  tags, chunks and history. Importing the same file twice therefore adds nothing the second
  time. A key the target holds for *another* user, or a key twice in the file, is a
  conflict: ValidationError, and nothing is written.
* A per-user export (its header names a scope) may only hold rows of that tenant and user.
* An active profile fact whose (category, key) the user already has active in the target is
  imported inactive: the target's current fact wins.
* The users that were already in the target get their cache generation bumped, so a running
  server reloads their vectors.
"""

from __future__ import annotations

from typing import Any

from mnemo.errors import ValidationError
from mnemo.storage.ports.tables import KeyLookup, TableRows

#: Keys of the tables without an ``id`` column (a table with one is keyed by it).
NATURAL_KEYS: dict[str, tuple[str, ...]] = {
    "users": ("tenant", "user_id"),
    "fact_runs": ("tenant", "message_id"),
    "topic_messages": ("message_id",),
    "topic_conversations": ("tenant", "user_id", "session_id"),
    "jobs": ("tenant", "user_id", "kind", "payload"),
    "idempotency_keys": ("tenant", "key"),
    "entity_mentions": ("entity_id", "message_id"),
}
#: Child tables: table -> (its column holding the parent's rowid, the parent table).
PARENTS: dict[str, tuple[str, str]] = {
    "memory_tags": ("memory_rowid", "memories"),
    "document_chunks": ("document_rowid", "documents"),
}
#: The primary keys of the child tables (as the file numbers their parents).
CHILD_KEYS: dict[str, tuple[str, str]] = {
    "memory_tags": ("memory_rowid", "tag"),
    "document_chunks": ("document_rowid", "idx"),
}
#: Tables whose kept rows take their history with them (history rows name them by id).
WITH_HISTORY = ("memories", "profile_facts")
PROFILE_KEY = ("tenant", "user_id", "category", "key", "active")


class Merge:
    """Places the checked rows of one import into ``target`` (see the module docstring);
    ``scope`` is the ``(tenant, user_id)`` of a per-user export, else None."""

    def __init__(self, target: TableRows, scope: tuple[str, str] | None) -> None:
        self.target = target
        self.scope = scope
        self.offsets: dict[str, int] = {}
        #: parent table -> {rowid in the file: rowid in the target, None when kept}
        self.rowids: dict[str, dict[int, int | None]] = {p: {} for _, p in PARENTS.values()}
        self.seen: dict[str, set[tuple[Any, ...]]] = {}
        self.kept_ids: set[str] = set()
        #: users that were in the target already (their generation is bumped)
        self.existing_users: set[tuple[str, str]] = set()
        self.kept: dict[str, int] = {}

    def place(self, table: str, rows: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """The rows of ``table`` to write, rowids shifted; ``rows`` are (where, row) pairs of
        one chunk of the file."""
        rows = [
            (w, r) for w, r in rows if self._in_scope(table, w, r) and self._parent(table, w, r)
        ]
        if table == "history":
            before = len(rows)
            rows = [(w, r) for w, r in rows if r.get("memory_id") not in self.kept_ids]
            if len(rows) < before:
                self.kept[table] = self.kept.get(table, 0) + before - len(rows)
        key_cols = ("id",) if rows and "id" in rows[0][1] else NATURAL_KEYS.get(table)
        keep: set[tuple[Any, ...]] = set()
        if key_cols:
            keep = self._existing(table, key_cols, rows)
        if table == "profile_facts":
            self._deactivate_clashes(rows)
        out = []
        for where, row in rows:
            key = tuple(row.get(c) for c in key_cols) if key_cols else None
            kept = key is not None and key in keep
            if "rowid" in row:
                self._shift(table, where, row, kept)
            if kept:
                self.kept[table] = self.kept.get(table, 0) + 1
                if table in WITH_HISTORY:
                    self.kept_ids.add(str(row["id"]))
                if table == "users":
                    self.existing_users.add((row["tenant"], row["user_id"]))
                continue
            out.append(row)
        return out

    def _in_scope(self, table: str, where: str, row: dict[str, Any]) -> bool:
        if self.scope is None or "tenant" not in row or "user_id" not in row:
            return True
        if (row["tenant"], row["user_id"]) != self.scope:
            raise ValidationError(
                f"{where}: a {table} row of another user in a per-user export of {self.scope[1]!r}"
            )
        return True

    def _parent(self, table: str, where: str, row: dict[str, Any]) -> bool:
        """Point a child row at its parent's new rowid; False when the parent was kept."""
        if table not in PARENTS:
            return True
        col, parent = PARENTS[table]
        old = row.get(col)
        key = tuple(row.get(c) for c in CHILD_KEYS[table])
        seen = self.seen.setdefault(table, set())
        if key in seen:
            raise ValidationError(f"{where}: {table} {_show(key)} is in the file twice")
        seen.add(key)
        if old not in self.rowids[parent]:
            raise ValidationError(
                f"{where}: {table}.{col} = {old!r} names no {parent} row of the file"
            )
        new = self.rowids[parent][old]
        if new is None:
            self.kept[table] = self.kept.get(table, 0) + 1
            return False
        row[col] = new
        return True

    def _existing(
        self, table: str, key_cols: tuple[str, ...], rows: list[tuple[str, dict[str, Any]]]
    ) -> set[tuple[Any, ...]]:
        """Keys of ``rows`` the target already holds for the same owner; ValidationError for
        a key held by another owner or repeated in the file."""
        owner_cols = [
            c for c in ("tenant", "user_id") if rows and c in rows[0][1] and c not in key_cols
        ]
        seen = self.seen.setdefault(table, set())
        keys = []
        for where, row in rows:
            key = tuple(row.get(c) for c in key_cols)
            if key in seen:
                raise ValidationError(f"{where}: {table} {_show(key)} is in the file twice")
            seen.add(key)
            keys.append(key)
        found = self.target.lookup(KeyLookup(table, key_cols, keys, owner_cols))
        for where, row in rows:
            key = tuple(row.get(c) for c in key_cols)
            owner = tuple(row.get(c) for c in owner_cols)
            if key in found and found[key] != owner:
                raise ValidationError(
                    f"{where}: {table} {_show(key)} already belongs to another user of the "
                    "target store"
                )
        return set(found)

    def _deactivate_clashes(self, rows: list[tuple[str, dict[str, Any]]]) -> None:
        active = [r for _, r in rows if r.get("active") == 1]
        keys = [tuple(r.get(c) for c in PROFILE_KEY) for r in active]
        wanted = KeyLookup("profile_facts", PROFILE_KEY, keys, [])
        clashes = self.target.lookup(wanted) if keys else {}
        for row, key in zip(active, keys, strict=True):
            if key in clashes:
                row["active"] = 0

    def _shift(self, table: str, where: str, row: dict[str, Any], kept: bool) -> None:
        old = row["rowid"]
        if not isinstance(old, int) or isinstance(old, bool) or old < 1:
            raise ValidationError(f"{where}: {table}.rowid must be a positive integer")
        if table not in self.offsets:
            self.offsets[table] = self.target.max_rowid(table)
        seen = self.seen.setdefault(f"{table}.rowid", set())
        if (old,) in seen:
            raise ValidationError(f"{where}: {table} rowid {old} is in the file twice")
        seen.add((old,))
        new = old + self.offsets[table]
        if table in self.rowids:
            self.rowids[table][old] = None if kept else new
        row["rowid"] = new


def _show(key: tuple[Any, ...]) -> str:
    """A key as an error message shows it (shortened)."""
    text = ", ".join(repr(v)[:60] for v in key)
    return f"({text})"


__all__ = ["NATURAL_KEYS", "PARENTS", "Merge"]
