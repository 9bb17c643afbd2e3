"""What every mnemo command shares: consoles, common options, opening a Memory, error exits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from mnemo.errors import MnemoError
from mnemo.memory.facade import Memory

console = Console()
err = Console(stderr=True)

DbOpt = Annotated[str | None, typer.Option("--db", help="SQLite file (env MNEMO_PATH).")]
EmbedderOpt = Annotated[
    str | None, typer.Option("--embedder", help="local, openai or hashing (env MNEMO_EMBEDDER).")
]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id.")]
T = TypeVar("T")


def mnemo_version() -> str:
    """The installed distribution's version; ``0+unknown`` from a bare source tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mnemo")
    except PackageNotFoundError:
        return "0+unknown"


def open_memory(db: str | None, embedder: str | None, **extra: Any) -> Memory:
    """A Memory from CLI options (unset options fall back to env, TOML and defaults)."""
    overrides: dict[str, Any] = {
        k: v for k, v in (("path", db), ("embedder", embedder)) if v is not None
    }
    overrides.update({k: v for k, v in extra.items() if v is not None})
    return Memory(**overrides)


def guarded(fn: Callable[[], T]) -> T:
    """Run ``fn``; a MnemoError becomes a one-line message and exit status 2."""
    try:
        return fn()
    except MnemoError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
