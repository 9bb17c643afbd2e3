"""What the docs tell a new user is what the code does: the MCP page names the Python SDK's
attributes as the installed ``mcp`` package spells them (it used the wire names
``isError`` / ``structuredContent`` as if they were), and the English-first statements of the
README and docs/languages.md hold (tokenizers, embedder, rules)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp_types import CallToolResult, ToolAnnotations

from mnemo import Memory, Settings
from mnemo.text.turn_kinds import classify

ROOT = Path(__file__).resolve().parents[2]
MCP_DOC = ROOT / "docs" / "mcp.md"


def python_blocks(md: Path) -> str:
    return "\n".join(re.findall(r"```python\n(.*?)```", md.read_text(encoding="utf-8"), re.S))


def test_the_mcp_docs_python_uses_the_sdks_attribute_names() -> None:
    used = set(re.findall(r"\bresult\.(\w+)", python_blocks(MCP_DOC)))
    assert {"is_error", "structured_content"} <= used
    assert used <= set(CallToolResult.model_fields)


def test_the_mcp_docs_name_both_spellings_correctly() -> None:
    text = MCP_DOC.read_text(encoding="utf-8")
    for python_name in ("structured_content", "is_error"):
        wire = CallToolResult.model_fields[python_name].alias
        assert f"`{python_name}`" in text and f"`{wire}" in text
    for python_name in ("read_only_hint", "destructive_hint"):
        assert python_name in ToolAnnotations.model_fields
        assert f"`{python_name}`" in text
    # the wire names are never used as Python attributes
    assert not re.search(r"\.(isError|structuredContent)\b", text)


def test_the_readme_and_docs_say_retrieval_is_english_first() -> None:
    readme = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    assert "## Languages: English first" in readme and "(docs/languages.md)" in readme
    languages = ROOT.joinpath("docs", "languages.md").read_text(encoding="utf-8")
    for claim in ("porter unicode61", "`english`", "all-MiniLM-L6-v2", "no rule facts"):
        assert claim in languages


def test_the_tokenizers_are_the_english_ones_the_docs_name() -> None:
    sqlite = ROOT.joinpath("mnemo/storage/sqlite/migrations/0001_initial.sql").read_text()
    assert "tokenize = 'porter unicode61 remove_diacritics 2'" in sqlite
    postgres = ROOT.joinpath("mnemo/storage/postgres/migrations/0001_initial.sql").read_text()
    assert "to_tsvector('english'" in postgres
    assert Settings().embedder == "local"


@pytest.mark.parametrize(
    ("role", "text", "kind"),
    [
        ("user", "Comment s'appelle mon chien ?", "question"),
        ("user", "Wie heißt mein Hund?", "question"),
        ("user", "我的狗叫什么名字？", "statement"),  # a full-width question mark
        ("user", "Merci beaucoup !", "statement"),  # courtesies are English only
        ("assistant", "Je ne sais pas, peux-tu me le rappeler ?", "statement"),
        ("user", "Thanks!", "greeting"),
    ],
)
def test_turn_kinds_in_other_languages_are_as_documented(role: str, text: str, kind: str) -> None:
    assert classify(role, text) == kind


def test_rule_facts_come_from_english_only(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        mem.add_messages(
            [{"role": "user", "content": "J'ai adopté un chien qui s'appelle Biscuit."}],
            user_id="fr",
        )
        mem.add_messages(
            [{"role": "user", "content": "I adopted a dog called Biscuit."}], user_id="en"
        )
        mem.drain()
        assert mem.list("fr", kind="fact") == [] and mem.profile("fr") == []
        assert mem.list("en", kind="fact") != []
