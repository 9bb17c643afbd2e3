"""What every mnemo command shares: consoles, common options, opening a Memory, error exits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.config.settings import Settings
from mnemo.errors import ConfigError, MnemoError
from mnemo.memory.facade import Memory

console = Console()
err = Console(stderr=True)

DbOpt = Annotated[str | None, typer.Option("--db", help="SQLite file (env MNEMO_PATH).")]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        "--embedder", help="local, sentence-transformers, openai or hashing (env MNEMO_EMBEDDER)."
    ),
]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
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


def cli_settings(db: str | None, embedder: str | None = None, **extra: Any) -> Settings:
    """Settings from CLI options (unset options fall back to env, TOML and defaults)."""
    pairs = (("path", db), ("embedder", embedder), *extra.items())
    return Settings(**{k: v for k, v in pairs if v is not None})


def require_store(settings: Settings) -> None:
    """ConfigError when ``settings`` name a SQLite file that does not exist: a read-only
    command must not create an empty store (PostgreSQL and ``:memory:`` pass)."""
    if settings.database_url or settings.path == ":memory:":
        return
    path = Path(settings.path).expanduser()
    if not path.is_file():
        raise ConfigError(
            f"no mnemo store at {path} (give --db or MNEMO_PATH; `mnemo add` or `mnemo import` "
            "creates one)"
        )


def open_existing(db: str | None, embedder: str | None, **extra: Any) -> Memory:
    """A Memory over an existing store, for read-only commands (see :func:`require_store`)."""
    settings = cli_settings(db, embedder, **extra)
    require_store(settings)
    return Memory(settings=settings)


def guarded(fn: Callable[[], T]) -> T:
    """Run ``fn``; a MnemoError becomes a one-line message and exit status 2."""
    try:
        return fn()
    except MnemoError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(2) from None
