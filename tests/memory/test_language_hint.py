"""A store whose turns are not in English, under an English-only embedder, says so: a hint in
``Memory.stats()`` (and ``AsyncMemory``), ``mnemo stats`` (table and ``--json``) and the web
UI's users page (``tests/ui/test_ui_language_hint.py``), suggesting the bundled multilingual
model. English turns, or an embedder not known to be English-only, get no hint."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from language_support import SPANISH
from typer.testing import CliRunner

from mnemo import AsyncMemory, Memory
from mnemo.cli.main import app
from mnemo.memory.hints import SAMPLE
from mnemo.text.language import english_share, looks_english

ENGLISH = [
    "Yesterday I went hiking in the mountains with my brother.",
    "My cat Churro was a bit ill the whole week.",
    "Since Monday I work as a nurse on the night shift.",
    "I got engaged to Elena, we are getting married next year.",
    "I broke my wrist playing padel with some friends.",
    "Elena and I adopted a little greyhound called Luna.",
]


def _turns(texts: list[str]) -> list[dict[str, str]]:
    return [{"role": "user", "content": t} for t in texts * 2]


def test_the_language_check_judges_only_texts_it_can_read() -> None:
    assert looks_english("Where did you park the car?") is True
    assert looks_english("¿Dónde aparcaste el coche ayer?") is False
    assert looks_english("Hola Marcos") is None  # too short to judge
    assert english_share(ENGLISH * 2) == 1.0 and english_share(SPANISH * 2) == 0.0
    assert english_share(SPANISH) is None  # fewer than 10 judged texts


def test_stats_hint_a_multilingual_model_for_turns_not_in_english(tmp_path: Path) -> None:
    with Memory(str(tmp_path / "es.db")) as mem:  # the default, English-only MiniLM
        mem.add_messages(_turns(SPANISH), user_id="lucia", session_id="s1")
        (hint,) = mem.stats().hints
        assert "multilingual-e5-small" in hint and mem.embedder.id in hint
    with Memory(str(tmp_path / "en.db")) as mem:
        mem.add_messages(_turns(ENGLISH), user_id="lucy", session_id="s1")
        assert mem.stats().hints == []
    with Memory(str(tmp_path / "hash.db"), embedder="hashing") as mem:  # languages unknown
        mem.add_messages(_turns(SPANISH), user_id="lucia", session_id="s1")
        assert mem.stats().hints == []


def test_only_the_newest_turns_are_read(tmp_path: Path) -> None:
    with Memory(str(tmp_path / "mixed.db")) as mem:
        mem.add_messages(_turns(SPANISH) * 20, user_id="lucia", session_id="old")
        assert mem.stats().hints
        newer = [{"role": "user", "content": t} for t in ENGLISH * (SAMPLE // len(ENGLISH) + 1)]
        mem.add_messages(newer, user_id="lucia", session_id="new")
        assert mem.stats().hints == []  # the store has moved to English


def test_the_hint_on_every_surface(tmp_path: Path) -> None:
    db = str(tmp_path / "es.db")
    with Memory(db) as mem:
        mem.add_messages(_turns(SPANISH), user_id="lucia", session_id="s1")

    async def async_hints() -> list[str]:
        amem = AsyncMemory(db)
        try:
            return (await amem.stats()).hints
        finally:
            await amem.close()

    assert len(asyncio.run(async_hints())) == 1
    runner = CliRunner()
    table = runner.invoke(app, ["stats", "--db", db], terminal_width=400)
    assert table.exit_code == 0 and "hint" in table.output
    assert "mnemo-ltm[multilingual]" in table.output  # not eaten as markup
    as_json = runner.invoke(app, ["stats", "--db", db, "--json"])
    assert as_json.exit_code == 0
    assert "multilingual-e5-small" in json.loads(as_json.output)["hints"][0]
