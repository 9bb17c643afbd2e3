"""What every mnemo command shares: consoles, common options, opening a Memory, error exits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.cli.failures import EXPECTED, report
from mnemo.config.location import new_sqlite_file, parse_location
from mnemo.config.settings import Settings
from mnemo.errors import ConfigError, ValidationError
from mnemo.memory.facade import Memory

console = Console()
err = Console(stderr=True)

DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="SQLite file (or sqlite:///path) or postgresql:// URL; wins over MNEMO_PATH and "
        "MNEMO_DATABASE_URL.",
    ),
]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        "--embedder", help="local, sentence-transformers, openai or hashing (env MNEMO_EMBEDDER)."
    ),
]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id.")]
#: The help of ``--agent``: the agent an item is private to, or whose view a read takes.
AGENT_HELP = (
    "Agent id: a write is private to it (its own without --user); a read sees the user's "
    "shared items and the agent's own."
)
AgentOpt = Annotated[str | None, typer.Option("--agent", help=AGENT_HELP)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
#: What a command that reads or writes one scope says when given neither flag.
NO_OWNER = "give --user USER or --agent AGENT (whose memories these are)"
T = TypeVar("T")


def need_owner(user: str | None, agent: str | None) -> None:
    """ValidationError naming the flags (:data:`NO_OWNER`) when neither ``--user`` nor
    ``--agent`` was given; the library's own message names its arguments instead."""
    if user is None and agent is None:
        raise ValidationError(NO_OWNER)


def db_overrides(db: str | None) -> dict[str, Any]:
    """The settings ``--db`` stands for (read by :func:`~mnemo.config.location.parse_location`,
    so ``sqlite:///path`` is that file and ``mysql://...`` a ConfigError). It names the store
    outright, so it wins over both ``MNEMO_PATH`` and ``MNEMO_DATABASE_URL``: a SQLite location
    also clears the configured URL (which would otherwise choose PostgreSQL), a
    ``postgresql://`` URL sets ``database_url``.

    >>> db_overrides("x.db")
    {'path': 'x.db', 'database_url': None}
    >>> db_overrides("sqlite:///tmp/x.db")
    {'path': '/tmp/x.db', 'database_url': None}
    >>> db_overrides(None)
    {}
    """
    if db is None:
        return {}
    out = parse_location(db, "--db").settings()
    out.setdefault("database_url", None)
    return out


def parse_sets(items: list[str]) -> dict[str, str]:
    """``--set`` options: ``["rrf_k=30", ...]`` -> ``{"rrf_k": "30"}`` (Settings then checks
    names and values); ValidationError for an item without ``=``."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValidationError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


#: ``--set KEY=VALUE``, repeatable: any setting, over the environment and config file.
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", help="Setting override KEY=VALUE (repeatable), e.g. preset=agent-cli."),
]


def cli_overrides(db: str | None, embedder: str | None = None, **extra: Any) -> dict[str, Any]:
    """Constructor arguments of Settings from CLI options (unset options are left out, so
    they fall back to env, TOML and defaults)."""
    out = db_overrides(db)
    pairs = (("embedder", embedder), *extra.items())
    out.update({k: v for k, v in pairs if v is not None})
    return out


def open_memory(db: str | None, embedder: str | None, **extra: Any) -> Memory:
    """A Memory from CLI options (unset options fall back to env, TOML and defaults), for a
    command that writes: a SQLite file it creates is said on stderr (:func:`creating`)."""
    settings = cli_settings(db, embedder, **extra)
    return creating(settings, lambda: Memory(settings=settings))


def cli_settings(db: str | None, embedder: str | None = None, **extra: Any) -> Settings:
    """Settings from CLI options (unset options fall back to env, TOML and defaults)."""
    return Settings(**cli_overrides(db, embedder, **extra))


def new_store_file(settings: Settings) -> Path | None:
    """The SQLite file ``settings`` name when it does not exist yet (opening the store
    creates it); None for an existing file, PostgreSQL and ``:memory:``."""
    return new_sqlite_file(settings.path, settings.database_url)


def creating(settings: Settings, open_: Callable[[], T]) -> T:
    """``open_()`` (what opens the store of ``settings``), then, when that created the
    store's SQLite file, one line on stderr: ``created new store PATH`` (a write to a
    mistyped ``--db`` is seen at once; an existing store or PostgreSQL says nothing)."""
    fresh = new_store_file(settings)
    out = open_()
    if fresh is not None and fresh.exists():
        err.print(f"created new store {escape(str(fresh))}", soft_wrap=True, highlight=False)
    return out


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
    """Run ``fn``; an expected failure (:data:`mnemo.cli.failures.EXPECTED`: a MnemoError, an
    OSError, undecodable or too deeply nested input) becomes a one-line message and exit
    status 2. The ``mnemo`` group does the same for every command
    (:class:`~mnemo.cli.failures.OneLineErrors`); this is for code run outside it."""
    try:
        return fn()
    except EXPECTED as exc:
        raise report(exc) from None
