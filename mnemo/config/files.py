"""File-store settings: `agent-cli`'s Markdown mirror of the store (docs/files.md).

Names in this group: ``files_enabled``, ``files_dir``, ``files_reconcile_on_open``,
``files_debounce_ms`` (all ``files_``). Where the store actually is: ``Settings.files_root``.
"""

from __future__ import annotations

from pydantic import Field

from mnemo.config.group import SettingsGroup


class FilesSettings(SettingsGroup):
    """The Markdown file store: its folder, reconciliation on open and the watcher."""

    files_enabled: bool | None = Field(
        None,
        description="The Markdown file store: on (at files_dir, else `<database file "
        "stem>-files/` beside a SQLite file: the `agent-cli` preset), off, or unset (on "
        "exactly when files_dir is set).",
    )
    files_dir: str | None = Field(
        None,
        description="Folder of `agent-cli`'s Markdown file store: every fact, turn and summary "
        "also as a file, kept in step both ways (None: off). See docs/files.md.",
    )
    files_reconcile_on_open: bool = Field(
        True,
        description="With files_dir, reconcile files and store when a Memory opens (apply "
        "offline edits and deletions, write missing files).",
    )
    files_debounce_ms: int = Field(
        100, ge=1, le=60_000, description="The file watcher's debounce window, milliseconds."
    )


__all__ = ["FilesSettings"]
