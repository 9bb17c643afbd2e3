"""A mistyped ``MNEMO_*`` variable is not silently ignored: one warning line per variable and
process names the closest setting's variable (docs/configuration.md)."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mnemo import Settings
from mnemo.config.sources import env as env_source

ROOT = Path(__file__).resolve().parents[2]


def test_unknown_variables_map_to_the_closest_setting() -> None:
    fields = set(Settings.model_fields)
    found = env_source.unknown_env(
        {
            "MNEMO_DATABSE_URL": "postgresql://x",
            "MNEMO_SEARCHLIMIT": "3",
            "MNEMO_XYZZY": "1",
            "MNEMO_PATH": "a.db",
            "MNEMO_API_KEY": "k",
            "HOME": "/",
        },
        fields,
    )
    assert found == {
        "MNEMO_DATABSE_URL": "MNEMO_DATABASE_URL",
        "MNEMO_SEARCHLIMIT": "MNEMO_SEARCH_LIMIT",
        "MNEMO_XYZZY": None,
    }


def test_settings_log_a_typo_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(env_source, "_warned", set())
    monkeypatch.setenv("MNEMO_EMBEDER", "hashing")
    with caplog.at_level(logging.WARNING, logger="mnemo.config"):
        assert Settings().embedder != "hashing"  # the typo still does not set anything
        Settings()
    lines = [r.getMessage() for r in caplog.records if r.name == "mnemo.config"]
    assert lines == [
        "mnemo: ignoring MNEMO_EMBEDER: not a mnemo setting (did you mean MNEMO_EMBEDDER?)"
    ]


def test_the_cli_prints_one_line_on_stderr(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(
        PYTHONPATH=str(ROOT),
        MNEMO_EMBEDDER="hashing",
        MNEMO_DATABSE_URL="postgresql://nobody@127.0.0.1:9/x",
        MNEMO_API_KEY="not-a-setting-but-known",
    )
    db = str(tmp_path / "m.db")
    for args in (["add", "a fact", "--user", "u", "--db", db], ["stats", "--db", db]):
        run = subprocess.run(
            [sys.executable, "-m", "mnemo", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        warned = [line for line in run.stderr.splitlines() if "MNEMO_" in line]
        assert warned == [
            "mnemo: ignoring MNEMO_DATABSE_URL: not a mnemo setting "
            "(did you mean MNEMO_DATABASE_URL?)"
        ]


def test_variables_mnemo_reads_itself_are_not_called_typos() -> None:
    """Every ``MNEMO_*`` variable read by name in the code, tests, scripts or benchmarks
    (``make test`` exports ``MNEMO_TEST_CHROMIUM`` to every mnemo process the tests start) is
    a setting or one of :data:`OTHER_VARIABLES`, so it never draws the typo warning."""
    read = re.compile(r"""(?:environ\.get\(|environ\[|getenv\()\s*["'](MNEMO_\w+)["']""")
    names = {
        name
        for folder in ("mnemo", "tests", "scripts", "bench")
        for path in (ROOT / folder).rglob("*.py")
        for name in read.findall(path.read_text(encoding="utf-8"))
    }
    assert {"MNEMO_TEST_CHROMIUM", "MNEMO_TEST_DATABASE_URL"} <= names  # the scan sees them
    assert env_source.unknown_env(dict.fromkeys(names, "x"), set(Settings.model_fields)) == {}
