"""``--db`` names the store outright: it wins over ``MNEMO_PATH`` and ``MNEMO_DATABASE_URL``
for every command (docs/maintenance.md), and a ``postgresql://`` URL given to ``--db`` wins over
``MNEMO_PATH``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.main import app

runner = CliRunner()
#: A URL nothing answers on: a command that used it would fail to connect.
DEAD_URL = "postgresql://nobody@127.0.0.1:9/nothing"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        "MNEMO_DATABASE_URL": DEAD_URL,
        "MNEMO_PATH": str(tmp_path / "from-env.db"),
        "MNEMO_EMBEDDER": "hashing",
    }


def test_db_path_wins_over_the_database_url_for_every_command(
    env: dict[str, str], tmp_path: Path
) -> None:
    db = str(tmp_path / "given.db")
    for args in (
        ["add", "Ann likes tea", "--user", "ann"],
        ["search", "tea", "--user", "ann"],
        ["list", "--user", "ann"],
        ["stats"],
        ["jobs"],
        ["repair", "--dry-run"],
        ["reembed", "--dry-run"],
        ["keys", "list"],
        ["export", str(tmp_path / "dump.jsonl")],
    ):
        out = runner.invoke(app, [*args, "--db", db], env=env)
        assert out.exit_code == 0, (args, out.output)
        assert "nobody" not in out.output
    assert not (tmp_path / "from-env.db").exists()
    with Memory(db, embedder="hashing") as mem:
        assert [m.content for m in mem.list(user_id="ann")] == ["Ann likes tea"]


def test_db_url_wins_over_the_path(env: dict[str, str], tmp_path: Path, pg_url: str) -> None:
    out = runner.invoke(app, ["add", "Bob plays chess", "--user", "bob", "--db", pg_url], env=env)
    assert out.exit_code == 0, out.output
    out = runner.invoke(app, ["search", "chess", "--user", "bob", "--db", pg_url], env=env)
    assert out.exit_code == 0 and "Bob plays chess" in out.output
    assert not (tmp_path / "from-env.db").exists()


def test_without_db_the_environment_chooses(env: dict[str, str], tmp_path: Path) -> None:
    env = {k: v for k, v in env.items() if k != "MNEMO_DATABASE_URL"}
    out = runner.invoke(app, ["add", "Cy swims", "--user", "cy"], env=env)
    assert out.exit_code == 0, out.output
    assert (tmp_path / "from-env.db").exists()
