"""The server's commands: ``mnemo serve``, ``mnemo chat`` and ``mnemo keys``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, ParamSpec

import httpx
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from mnemo.cli.common import (
    DbOpt,
    EmbedderOpt,
    JsonOpt,
    SetOpt,
    cli_settings,
    creating,
    parse_sets,
    require_store,
)
from mnemo.cli.failures import EXPECTED, report
from mnemo.cli.listen import check_port, serve_on
from mnemo.config.settings import Settings
from mnemo.errors import ConfigError, MnemoError, ValidationError

console = Console()
P = ParamSpec("P")
COLUMNS = ("id", "tenant", "name", "created_at", "revoked_at")
keys_app = typer.Typer(no_args_is_help=True, help="Manage API keys (each maps to a tenant).")


def guard(fn: Callable[P, None]) -> Callable[P, None]:
    """Run a command; an expected failure prints one red line and exits with status 2
    (:mod:`mnemo.cli.failures`)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            fn(*args, **kwargs)
        except EXPECTED as exc:
            raise report(exc) from None

    return run


#: What ``mnemo serve`` prints when the proxy's upstream is the built-in demo.
ECHO_NOTICE = (
    "upstream: echo, a DEMO: no model is asked; each reply quotes what mnemo sent upstream "
    "(the memory it recalled); the user turns are stored, these replies are not"
)


@guard
def serve_command(
    host: Annotated[str | None, typer.Option(help="Address to bind (env MNEMO_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (env MNEMO_PORT).")] = None,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
    upstream: Annotated[
        str | None,
        typer.Option(
            help="The proxy's upstream chat URL (with /v1), or `echo`: a built-in demo that "
            "answers without a model, quoting what mnemo sent it (env MNEMO_UPSTREAM_BASE_URL)."
        ),
    ] = None,
    sets: SetOpt = None,
) -> None:
    """Run the REST server and OpenAI-compatible proxy (uvicorn), with the MCP server at /mcp
    (when the `mcp` extra is installed). ``--set KEY=VALUE`` sets any setting for this run,
    over ``MNEMO_*`` variables and the config file; ``--upstream echo`` tries the proxy with
    no model."""
    try:
        import uvicorn  # noqa: F401

        # FastAPI and uvicorn (the REST API), and jinja2 (the web UI)
        import mnemo.api.server
        import mnemo.ui.app  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f'the server needs its extra: pip install "mnemo-ltm[server]" ({exc})'
        ) from None
    from mnemo.api.echo_upstream import ECHO
    from mnemo.cli.mcp import mcp_available, serve_app

    extra: dict[str, Any] = dict(parse_sets(sets or []))
    if port is not None:
        extra["port"] = check_port(port)
    if upstream is not None:
        extra["upstream_base_url"] = upstream
    settings = cli_settings(db, embedder or extra.pop("embedder", None), **extra)
    bound = host or settings.host
    stderr = Console(stderr=True)
    mcp = mcp_available()
    if not mcp:
        # markup=False: rich would read "[mcp]" as a style tag and drop it
        stderr.print('MCP is off: pip install "mnemo-ltm[mcp]" to serve it at /mcp', markup=False)
    if settings.upstream_base_url == ECHO:
        stderr.print(ECHO_NOTICE, soft_wrap=True)

    def announce(url: str) -> None:
        routes = "REST API, /v1 proxy, /ui" + (", /mcp" if mcp else "")
        line = f"mnemo serve: {url} ({routes}); Ctrl-C stops"
        stderr.print(line, soft_wrap=True)

    serve_on(bound, settings.port, lambda: serve_app(settings, bound), announce)


def _keys_store(db: str | None, *, existing: bool = False) -> Any:
    """The key table of ``--db``'s store; with ``existing``, a missing SQLite file is an
    error instead of a new empty store (listing or revoking keys creates nothing). Without
    it, a SQLite file this creates is said on stderr, as ``mnemo add`` says it
    (:func:`~mnemo.cli.common.creating`)."""
    from mnemo.api.auth import key_store
    from mnemo.storage import open_store

    settings = cli_settings(db)
    if existing:
        require_store(settings)
    return key_store(creating(settings, lambda: open_store(settings)))


@keys_app.command("create")
@guard
def keys_create(
    tenant: Annotated[str, typer.Option(help="Tenant the key gives access to.")],
    name: Annotated[str | None, typer.Option(help="A label for the key.")] = None,
    db: DbOpt = None,
) -> None:
    """Create a key; it is printed once and only its hash is stored."""
    from mnemo.api.auth import create_key

    key, record = create_key(_keys_store(db), tenant, name)
    line = f"key id {record['id']} for tenant {record['tenant']!r} (shown once):"
    console.print(line, markup=False)
    print(key)


@keys_app.command("list")
@guard
def keys_list(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """List keys (ids, tenants, dates; never the keys)."""
    from mnemo.cli.records import print_json

    rows = [{c: r[c] for c in COLUMNS} for r in _keys_store(db, existing=True).list()]
    if as_json:
        print_json(rows)
        return
    table = Table(title="API keys")
    for col in COLUMNS:
        table.add_column(col)
    for r in rows:
        table.add_row(*(Text(str(r[c] or "")) for c in COLUMNS))  # as stored, not markup
    console.print(table)


@keys_app.command("revoke")
@guard
def keys_revoke(key_id: Annotated[str, typer.Argument(help="Key id.")], db: DbOpt = None) -> None:
    """Revoke a key by id."""
    if not _keys_store(db, existing=True).revoke(key_id):
        raise ValidationError(f"no live key with id {key_id!r}")
    console.print(f"revoked {key_id}", markup=False)


#: The user ``mnemo chat`` talks as without ``--user``: a single-person local tool keeps one.
CHAT_USER = "default"


def chat_banner(user: str | None) -> str:
    """The line ``mnemo chat`` starts with: whose memory the chat reads and writes, and, for
    the default user, how to choose another (the proxy itself requires a user; this local
    tool keeps one for its single person).

    >>> chat_banner("ann")
    "chatting as user 'ann'; /quit ends"
    """
    if user is not None:
        return f"chatting as user {user!r}; /quit ends"
    return (
        f"chatting as user {CHAT_USER!r} (no --user given; `--user NAME` chats as another "
        "user, with that user's own memory); /quit ends"
    )


@guard
def chat_command(
    user: Annotated[
        str | None, typer.Option("--user", "-u", help=f"User id (default: {CHAT_USER}).")
    ] = None,
    session: Annotated[str, typer.Option(help="Conversation (session) id.")] = "default",
    url: Annotated[str | None, typer.Option(help="Server URL (default: local port).")] = None,
    model: Annotated[str | None, typer.Option(help="Model name sent upstream.")] = None,
    key: Annotated[str | None, typer.Option(help="mnemo API key (env MNEMO_API_KEY).")] = None,
) -> None:
    """Chat in the terminal through the proxy, showing what was recalled for each message;
    without --user, as user `default` (the first line says which user it is)."""
    import os

    settings = Settings()
    base = (url or f"http://127.0.0.1:{settings.port}").rstrip("/")
    key = key or os.environ.get("MNEMO_API_KEY")
    headers = {"X-API-Key": key} if key else {}
    history: list[dict[str, str]] = []
    console.print(chat_banner(user), markup=False, highlight=False, soft_wrap=True)
    user = CHAT_USER if user is None else user
    with httpx.Client(base_url=base, headers=headers, timeout=settings.upstream_timeout_s) as http:
        while True:
            try:
                line = input("you> ").strip()
            except EOFError:
                break
            if line in ("/quit", "/exit"):
                break
            if line:
                history.append({"role": "user", "content": line})
                reply = _ask(http, history, user, session, model or settings.llm_model)
                history.append({"role": "assistant", "content": reply})


#: How many recalled items ``mnemo chat`` prints per message (the best ones).
SHOWN_HITS = 5


def _ask(
    http: httpx.Client, history: list[dict[str, str]], user: str, session: str, model: str
) -> str:
    body = {"model": model, "messages": history, "user": user, "memory_id": session}
    try:
        resp = http.post("/v1/chat/completions", json=body)
    except httpx.HTTPError as exc:
        raise MnemoError(f"cannot reach the mnemo server: {exc}") from None
    data = (
        resp.json() if resp.headers.get("content-type", "").startswith("application/json") else {}
    )
    if resp.status_code != 200:
        message = (data.get("error") or {}).get("message") or resp.text
        raise MnemoError(f"HTTP {resp.status_code}: {message}")
    hits = data.get("memory_hits", [])
    # recalled memories and replies are shown as written: escaped, so that brackets in them
    # ("[/]", "[mnemo echo upstream: ...]") are neither read as rich markup nor dropped
    for hit in hits[:SHOWN_HITS]:
        rel = hit.get("relevance")
        shown = "-" if rel is None else f"{rel:.2f}"
        console.print(f"[dim]  recalled ({shown}) {escape(str(hit['content']))}[/]")
    if len(hits) > SHOWN_HITS:
        console.print(f"[dim]  (+{len(hits) - SHOWN_HITS} more in the context)[/]")
    text = str(data["choices"][0]["message"].get("content") or "")
    console.print(f"[bold]assistant>[/] {escape(text)}")
    return text
