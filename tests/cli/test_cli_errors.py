"""Every way a command can fail on its input or its files ends in one ``error:`` line and exit
status 2, never a traceback (mnemo.cli.failures): a --db path through a file, binary and deeply
nested input files, an export to a missing folder, to a full disk or onto a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000
runner = CliRunner()


@pytest.fixture
def files(tmp_path: Path, db_path: str) -> dict[str, Path]:
    """A store with one memory, a plain file, a binary file and deeply nested JSON files."""
    out = runner.invoke(
        app, ["add", "a fact", "--user", "u", "--db", db_path, "--embedder", "hashing"]
    )
    assert out.exit_code == 0, out.output
    header = json.dumps({"mnemo_export": 1, "scope": None, "tables": {"messages": ["content"]}})
    paths = {
        "plain": tmp_path / "plain.txt",
        "binary": tmp_path / "binary.jsonl",
        "binary export": tmp_path / "binary-export.jsonl",
        "deep": tmp_path / "deep.jsonl",
        "deep export": tmp_path / "deep-export.jsonl",
    }
    paths["plain"].write_text("not a folder\n")
    noise = bytes(range(128, 256)) * 4
    paths["binary"].write_bytes(noise)
    paths["binary export"].write_bytes(header.encode() + b"\n" + noise)
    paths["deep"].write_text(DEEP + "\n")
    paths["deep export"].write_text(header + "\n" + DEEP + "\n")
    return paths


def one_error_line(output: str, exit_code: int, expected: str) -> None:
    """The output holds one ``error:`` line saying ``expected`` and no traceback."""
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert exit_code == 2, output
    assert len(errors) == 1 and expected in errors[0], output
    assert "Traceback" not in output and "╭" not in output, output


CASES: dict[str, tuple[list[str], str]] = {
    # name: (arguments, with {db} and the files' names filled in; what the line says)
    "--db through a file": (["add", "x", "--user", "u", "--db", "{plain}/m.db"], "plain.txt"),
    "migrate into a path through a file": (
        ["migrate", "{db}", "{plain}/m.db", "--searches", "0"],
        "plain.txt",
    ),
    "binary turn file": (["import", "{binary}", "--user", "u", "--db", "{db}"], "not UTF-8"),
    "binary export file": (["import", "{binary export}", "--db", "{fresh}"], "not UTF-8"),
    "deep JSON turn file": (["import", "{deep}", "--user", "u", "--db", "{db}"], "nested"),
    "deep JSON export file": (["import", "{deep export}", "--db", "{fresh}"], "nested"),
    "deep JSON benchmark file": (
        ["import", "{deep}", "--format", "longmemeval", "--db", "{db}"],
        "nested too deeply",
    ),
    "export to a missing folder": (
        ["export", "{plain}.d/missing/dump.jsonl", "--db", "{db}"],
        "No such file or directory",
    ),
    "markdown export onto a file": (
        ["export", "{plain}", "--format", "markdown", "--db", "{db}"],
        "plain.txt",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_one_line_and_exit_2(
    case: str, files: dict[str, Path], db_path: str, tmp_path: Path
) -> None:
    args, expected = CASES[case]
    names = {k: str(v) for k, v in files.items()} | {"db": db_path}
    names["fresh"] = str(tmp_path / "fresh.db")
    filled = [a.format(**names) for a in args]
    out = runner.invoke(app, filled, env={"MNEMO_EMBEDDER": "hashing"})
    one_error_line(out.output, out.exit_code, expected)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("where", ["/dev/full", "-"])
def test_export_to_a_full_disk(where: str, db_path: str, files: dict[str, Path]) -> None:
    """A real process: the file, or stdout, is /dev/full (every write fails with ENOSPC)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env["PYTHONPATH"] = str(ROOT)
    with open("/dev/full", "w") as full:
        run = subprocess.run(
            [sys.executable, "-m", "mnemo", "export", where, "--db", db_path],
            env=env,
            stdout=full if where == "-" else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    stderr = "\n".join(line for line in run.stderr.splitlines() if not line.startswith("export "))
    one_error_line(stderr, run.returncode, "No space left on device")
    assert ("-: " if where == "-" else "/dev/full: ") in stderr
