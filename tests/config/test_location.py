"""Database locations: ``sqlite:///path`` and ``file:`` URIs are SQLite files, ``postgresql://``
is PostgreSQL, any other scheme is a ConfigError, from every source (``--db``, ``MNEMO_PATH``,
``MNEMO_DATABASE_URL``, the config file, ``Memory(path)``, ``Memory(url=...)``), and a refused
location creates nothing (no ``./mysql:/...`` file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo import ConfigError, Memory, Settings
from mnemo.cli.main import app
from mnemo.config.location import parse_location

runner = CliRunner()


@pytest.mark.parametrize(
    ("text", "backend", "target"),
    [
        ("mnemo.db", "sqlite", "mnemo.db"),
        ("dir/with:colon.db", "sqlite", "dir/with:colon.db"),
        (":memory:", "sqlite", ":memory:"),
        ("sqlite:///tmp/s.db", "sqlite", "/tmp/s.db"),
        ("sqlite:////tmp/s.db", "sqlite", "//tmp/s.db"),
        ("SQLite:///tmp/s.db", "sqlite", "/tmp/s.db"),
        ("sqlite:rel/s.db", "sqlite", "rel/s.db"),
        ("sqlite:///tmp/a%20b.db", "sqlite", "/tmp/a b.db"),
        ("sqlite://", "sqlite", ":memory:"),
        ("sqlite:///:memory:", "sqlite", ":memory:"),
        ("file:///tmp/s.db", "sqlite", "/tmp/s.db"),
        ("file://localhost/tmp/s.db", "sqlite", "/tmp/s.db"),
        ("file:rel.db", "sqlite", "rel.db"),
        ("postgresql://u@h:5432/db", "postgres", "postgresql://u@h:5432/db"),
        ("postgres://u@h/db", "postgres", "postgres://u@h/db"),
    ],
)
def test_locations(text: str, backend: str, target: str) -> None:
    loc = parse_location(text)
    assert (loc.backend, loc.target) == (backend, target)


@pytest.mark.parametrize(
    "text",
    [
        "mysql://bob@localhost/x",
        "postgresql+psycopg://u@h/db",
        "http://example.com/db",
        "sqlite://host/x.db",
        "sqlite:///x.db?mode=ro",
        "file:x.db#frag",
        "sqlite:",
    ],
)
def test_refused_locations(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_location(text)


def test_a_password_in_a_refused_url_is_masked() -> None:
    with pytest.raises(ConfigError) as info:
        parse_location("mysql://bob:hunter2@localhost/x")
    assert "hunter2" not in str(info.value) and "mysql" in str(info.value)


def test_every_source_reads_a_sqlite_url_as_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "s.db"
    assert Settings(path=f"sqlite://{db}").path == str(db)
    monkeypatch.setenv("MNEMO_DATABASE_URL", f"sqlite://{db}")
    s = Settings()
    assert (s.path, s.database_url) == (str(db), None)
    monkeypatch.delenv("MNEMO_DATABASE_URL")
    monkeypatch.setenv("MNEMO_PATH", f"file://{db}")
    assert Settings().path == str(db)
    monkeypatch.delenv("MNEMO_PATH")
    toml = tmp_path / "mnemo.toml"
    toml.write_text(f'database_url = "sqlite://{db}"\n', encoding="utf-8")
    s = Settings(config_file=str(toml))
    assert (s.path, s.database_url) == (str(db), None)
    assert Settings().replace(path=f"sqlite://{db}").path == str(db)


def test_a_postgres_url_given_as_path_selects_postgres() -> None:
    s = Settings(path="postgresql://u@h/db")
    assert s.database_url == "postgresql://u@h/db" and s.path == "mnemo.db"


def test_an_explicit_sqlite_url_beats_the_environments_postgres_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMO_DATABASE_URL", "postgresql://nobody@127.0.0.1:9/x")
    s = Settings(database_url=f"sqlite://{tmp_path}/s.db")
    assert (s.path, s.database_url) == (f"{tmp_path}/s.db", None)
    # a plain path still leaves the environment's URL in charge, as before
    assert Settings(path="x.db").database_url == "postgresql://nobody@127.0.0.1:9/x"


@pytest.mark.parametrize("where", ["env_url", "env_path", "toml", "arg_url", "arg_path"])
def test_other_schemes_are_a_config_error_from_every_source(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    bad = "mysql://bob@localhost/x"
    kwargs: dict[str, str] = {}
    if where == "env_url":
        monkeypatch.setenv("MNEMO_DATABASE_URL", bad)
    elif where == "env_path":
        monkeypatch.setenv("MNEMO_PATH", bad)
    elif where == "toml":
        (tmp_path / "c.toml").write_text(f'path = "{bad}"\n', encoding="utf-8")
        kwargs["config_file"] = "c.toml"
    elif where == "arg_url":
        kwargs["url"] = bad
    else:
        kwargs["path"] = bad
    with pytest.raises(ConfigError, match="mysql"):
        Memory(embedder="hashing", **kwargs)
    assert sorted(os.listdir(tmp_path)) == (["c.toml"] if where == "toml" else [])


def test_memory_opens_a_sqlite_url(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with Memory(url=f"sqlite://{db}", embedder="hashing") as mem:
        mem.add("Maya keeps bees", user_id="maya")
    with Memory(f"file://{db}", embedder="hashing") as mem:
        assert [m.content for m in mem.list(user_id="maya")] == ["Maya keeps bees"]


def test_cli_db_sqlite_url_is_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "store" / "s.db"
    db.parent.mkdir()
    env = {"MNEMO_EMBEDDER": "hashing"}
    out = runner.invoke(app, ["add", "x", "--user", "maya", "--db", f"sqlite://{db}"], env=env)
    assert out.exit_code == 0, out.output
    assert db.is_file()
    assert sorted(os.listdir(tmp_path)) == ["store"]  # no ./sqlite:/... beside it
    out = runner.invoke(app, ["list", "--user", "maya", "--db", f"file://{db}"], env=env)
    assert out.exit_code == 0 and "x" in out.output


@pytest.mark.parametrize("env_var", [None, "MNEMO_DATABASE_URL", "MNEMO_PATH"])
def test_cli_refuses_other_schemes_in_one_line_creating_nothing(
    env_var: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    bad = "mysql://bob@localhost/x"
    env = {"MNEMO_EMBEDDER": "hashing"}
    args = ["add", "x", "--user", "maya"]
    if env_var is None:
        args += ["--db", bad]
    else:
        env[env_var] = bad
    out = runner.invoke(app, args, env=env)
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "mysql" in lines[0]
    assert os.listdir(tmp_path) == []


def test_the_demo_takes_a_sqlite_url_and_refuses_postgres(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "d.db"
    out = runner.invoke(app, ["demo", "--db", f"sqlite://{db}", "--embedder", "hashing"])
    assert out.exit_code == 0 and db.is_file(), out.output
    out = runner.invoke(app, ["demo", "--db", "postgresql://nobody@127.0.0.1:9/x"])
    assert out.exit_code == 2 and "SQLite" in out.output
    assert set(os.listdir(tmp_path)) <= {"d.db", "d.db-shm", "d.db-wal"}  # nothing else made
