"""The numbered migration scripts of a backend (``NNNN_name.sql`` files in one folder)."""

from __future__ import annotations

from pathlib import Path


def numbered_scripts(folder: Path) -> list[tuple[int, str]]:
    """(number, SQL text) of every ``NNNN_name.sql`` file in ``folder``, in number order."""
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql") and entry.name[:4].isdigit():
            found.append((int(entry.name[:4]), entry.read_text(encoding="utf-8")))
    return sorted(found)


__all__ = ["numbered_scripts"]
