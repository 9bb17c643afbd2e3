"""``mnemo demo`` asks questions it answers well, each found first with the bundled model, and
the README's "known weak case" paragraph stays true: "What is the name of my dog?" ranks the
tutor "named Inês" first. When that second test fails, retrieval got better: update the
README's paragraph (and docs/evaluation.md) and this test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.demo import QUESTIONS
from mnemo.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
#: A word of the turn that answers each demo question.
ANSWERS = {
    "How is my dog doing?": "Biscuit",
    "Which foods should I avoid when cooking for me?": "vegetarian",
    "When and where is my sister's wedding?": "Edinburgh",
    "What am I training for?": "half marathon",
}
WEAK = "What is the name of my dog?"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = str(tmp_path_factory.mktemp("demo") / "demo.db")
    out = CliRunner().invoke(app, ["demo", "--db", db], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    yield db


@pytest.mark.slow
def test_every_demo_question_finds_its_answer_first(demo_db: str) -> None:
    assert set(QUESTIONS) == set(ANSWERS)
    with Memory(demo_db) as mem:
        for question in QUESTIONS:
            top = mem.search(question, user_id="maya", limit=3)
            assert ANSWERS[question] in top[0].content, (question, [h.content for h in top])


@pytest.mark.slow
def test_the_readmes_known_weak_case_is_as_described(demo_db: str) -> None:
    readme = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    assert f'"{WEAK}"' in readme and "named Inês" in readme
    assert WEAK not in QUESTIONS
    with Memory(demo_db) as mem:
        top = mem.search(WEAK, user_id="maya", limit=3)
    assert "named Inês" in top[0].content
    assert all("Biscuit" in h.content for h in top[1:3]), [h.content for h in top]
