"""Every ``mnemo`` command is documented: README.md or docs/*.md mention it as ``mnemo <command>``
(a sub-command with its group: ``mnemo keys create``). The commands are read from the typer
app itself, so a new command without docs fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from mnemo.cli.main import app

ROOT = Path(__file__).resolve().parents[2]


def command_paths(group: Any, prefix: tuple[str, ...] = ()) -> list[str]:
    """``"keys create"``-style paths of every visible command and group under ``group`` (a
    click group as typer builds it; typer may vendor click, so groups are told by
    ``.commands``)."""
    out = []
    for name, cmd in sorted(group.commands.items()):
        if cmd.hidden:
            continue
        path = (*prefix, name)
        out.append(" ".join(path))
        if getattr(cmd, "commands", None) is not None:
            out.extend(command_paths(cmd, path))
    return out


def app_paths() -> list[str]:
    return command_paths(typer.main.get_command(app))


def docs_text() -> str:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def mentioned(text: str, path: str) -> bool:
    words = r"\s+".join(map(re.escape, path.split()))
    return re.search(rf"(?<![\w-])mnemo\s+{words}(?![\w-])", text) is not None


def test_the_app_has_the_commands_this_test_walks() -> None:
    paths = app_paths()
    assert {"serve", "keys", "keys create", "eval", "eval locomo"} <= set(paths)


def test_every_command_is_documented() -> None:
    text = docs_text()
    missing = [p for p in app_paths() if not mentioned(text, p)]
    assert missing == [], f"document these as `mnemo <command>` in README.md or docs/: {missing}"


def test_the_matcher_needs_the_whole_command() -> None:
    assert mentioned("run `mnemo keys create --tenant t`", "keys create")
    assert mentioned("mnemo eval\nlocomo", "eval locomo")
    assert not mentioned("mnemo workers", "worker")
    assert not mentioned("mnemo keys list", "keys create")
    assert not mentioned("pymnemo serve", "serve")
