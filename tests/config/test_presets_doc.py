"""docs/presets.md, the seed-by-seed table, names only tests and settings that exist: every
``file::function`` it cites is a test function in that file, and every ``name=value`` it cites
is a setting."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mnemo import Settings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "presets.md"
CITED = re.compile(r"([\w/]+\.py)::(\w+)")
SETTING = re.compile(r"`([a-z_]+)=[^`]*`")


def functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def test_every_cited_test_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    cited = CITED.findall(text)
    assert len(cited) > 80  # one row per documented behaviour of five seeds
    missing = [
        f"{file}::{name}"
        for file, name in cited
        if not (ROOT / "tests" / file).is_file() or name not in functions(ROOT / "tests" / file)
    ]
    assert missing == []


def test_every_seed_has_its_section_and_cited_settings_exist() -> None:
    text = DOC.read_text(encoding="utf-8")
    for heading in ("000 `llmplatform`", "001 `llm-managed`", "002 `agent-cli`",
                    "003 `tiered`", "004 `topics`"):  # fmt: skip
        assert f"## {heading}" in text
    names = set(SETTING.findall(text))
    assert names and names <= set(Settings.model_fields)


def test_each_preset_is_described_in_the_doc_itself() -> None:
    """The designs' write-ups are not in the repository: the page must not send the reader to
    them (it pointed at ``../shared/seeds/000-004``), and each preset gets its own description
    before its table, plus a line in the overview."""
    from mnemo.config.presets import PRESETS

    text = DOC.read_text(encoding="utf-8")
    assert "shared/" not in text and "../" not in text
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    described = {}
    for section in sections:
        heading, _, body = section.partition("\n")
        name = re.search(r"`([\w-]+)`", heading)
        if name:
            described[name.group(1)] = body.split("\n| ")[0].strip()
    assert set(described) == set(PRESETS) - {"default"}
    short = [name for name, words in described.items() if len(words.split()) < 50]
    assert short == []
    overview = text.split("\n## ")[0]
    assert all(f"| `{name}` |" in overview for name in PRESETS)
