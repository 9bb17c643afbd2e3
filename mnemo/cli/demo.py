"""``mnemo demo``: the main job on the embedded default, end to end, in a few seconds."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from mnemo.cli.tables import hits_table
from mnemo.config.location import parse_location
from mnemo.errors import ConfigError
from mnemo.memory.facade import Memory
from mnemo.ops.importers import jsonl_batches

#: Questions the demo answers well, each found first (tests/cli/test_demo_questions.py); the
#: README names the known weak case ("What is the name of my dog?") instead of hiding it here.
QUESTIONS = (
    "How is my dog doing?",
    "Which foods should I avoid when cooking for me?",
    "When and where is my sister's wedding?",
    "What am I training for?",
)
DEMO_USER = "maya"


def show_write_path(mem: Memory, console: Console) -> None:
    """Run the queued write-path jobs (rules: no LLM is configured) and show what they made."""
    t0 = time.perf_counter()
    ran = mem.drain()
    took = time.perf_counter() - t0
    console.print(f"ran {ran} write-path jobs in {took:.2f} s (facts, profile, episodes)")
    profile = mem.profile(DEMO_USER)
    values = "; ".join(f"{f.key} = {f.value}" for f in profile)
    console.print("[bold]profile[/]: " + escape(values))
    facts = mem.list(DEMO_USER, kind="fact", limit=5)
    console.print("[bold]facts[/]: " + escape("; ".join(f.content for f in facts)) + "\n")


def run_demo(db: str, embedder: str | None, console: Console) -> None:
    """Ingest the bundled sample conversation into ``db`` (a SQLite file, replaced) and answer a
    few questions."""
    where = parse_location(db, "--db")
    if where.backend != "sqlite":
        raise ConfigError(f"mnemo demo writes a new SQLite file; --db {db!r} is not one")
    db = where.target
    Path(db).unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(db + suffix).unlink(missing_ok=True)
    overrides: dict[str, Any] = {"path": db, "database_url": None}
    overrides |= {"embedder": embedder} if embedder else {}
    with Memory(**overrides) as mem:
        console.print(f"[bold]mnemo demo[/]: store {escape(db)}, embedder {mem.embedder.id}")
        start = time.perf_counter()
        turns = 0
        for batch in jsonl_batches(sample_path(), DEMO_USER, "default"):
            mem.add_messages(batch.turns, user_id=DEMO_USER, session_id=batch.session_id)
            turns += len(batch.turns)
        took = time.perf_counter() - start
        console.print(f"ingested {turns} turns in {took:.2f} s (model load included)")
        show_write_path(mem, console)
        for question in QUESTIONS:
            t0 = time.perf_counter()
            hits = mem.search(question, user_id=DEMO_USER, limit=3, explain=True)
            ms = (time.perf_counter() - t0) * 1000
            console.print(hits_table(hits, f"{question}  ({ms:.1f} ms)", explain=True))
        bundle = mem.context(QUESTIONS[1], user_id=DEMO_USER, budget_tokens=400)
        console.print(f"\n[bold]context for a prompt[/] ({bundle.token_count} tokens):")
        console.print(bundle.render(), markup=False, highlight=False)
        console.print(
            f"\n{mem.stats().messages} turns stored in {escape(db)}. Try: "
            f"mnemo search 'half marathon goal' --user {DEMO_USER} --db {escape(db)} --explain"
        )


def sample_path() -> Path:
    """The bundled sample conversation (JSONL)."""
    return Path(__file__).parent.parent / "data" / "sample_conversation.jsonl"
