"""docs/langgraph.md: its Python examples run, in order, in one namespace, on a fresh SQLite
file with the real langgraph (the hashing embedder keeps them fast), and run again on the
store they left."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_runner import python_blocks, run_examples

PAGE = Path(__file__).resolve().parents[2] / "docs" / "langgraph.md"


def test_the_page_has_examples() -> None:
    assert len(python_blocks(PAGE)) >= 5, "docs/langgraph.md lost its examples"


def test_every_example_on_the_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langgraph")
    run_examples(PAGE, tmp_path, monkeypatch)


def test_the_examples_run_again_on_the_same_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader who runs the page twice in one folder reuses its agent.db: the examples hold
    on a store they wrote before (the batch's get of a key put by an earlier run failed)."""
    pytest.importorskip("langgraph")
    run_examples(PAGE, tmp_path, monkeypatch)
    assert (tmp_path / "agent.db").is_file()
    run_examples(PAGE, tmp_path, monkeypatch)


def test_the_ttl_paragraph_says_what_a_put_without_ttl_does(tmp_path: Path) -> None:
    """A put without ``ttl`` takes ``default_ttl`` (LangGraph's rule); ``ttl=None`` alone is
    permanent: the page says so, and the store does it."""
    pytest.importorskip("langgraph")
    from mnemo import Memory
    from mnemo.integrations.langgraph import MnemoStore

    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "a put without a `ttl` takes the store's `default_ttl`" in text
    assert "only `ttl=None` makes an item permanent" in text
    with Memory(str(tmp_path / "m.db"), embedder="hashing") as mem:
        store = MnemoStore(mem, user_id="scratchpad", ttl={"default_ttl": 60})
        store.put(("s",), "draft", {"text": "half-written"})
        store.put(("s",), "pinned", {"text": "kept"}, ttl=None)
        ttl = {
            m.metadata["langgraph"]["key"]: m.ttl_seconds for m in mem.list(user_id="scratchpad")
        }
        assert ttl == {"draft": 3600, "pinned": None}
