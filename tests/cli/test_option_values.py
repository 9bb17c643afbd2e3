"""A value typer refuses (text for a number, a number below its minimum, a missing required
option) is one ``error:`` line naming the option and exit status 2, as every other input error
of the CLI, for every number option of every command (the commands' walk finds them all)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from mnemo.cli.main import app

runner = CliRunner()


def commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every leaf command of ``group`` with the words that run it."""
    for name, sub in group.commands.items():
        if hasattr(sub, "commands"):
            yield from commands(sub, (*path, name))
        else:
            yield (*path, name), sub


def number_options() -> list[tuple[tuple[str, ...], list[str], str]]:
    """(the words of a command, dummies for what it requires, one int or float option)."""
    out = []
    for path, command in commands(typer.main.get_command(app)):
        required: list[str] = []
        for p in command.params:
            if p.required:
                required += ["x"] if p.param_type_name == "argument" else [p.opts[0], "x"]
        for p in command.params:
            if p.param_type_name == "option" and p.bare_type() in ("int", "float"):
                out.append((path, required, p.opts[0]))
    return out


NUMBER_OPTIONS = number_options()


def one_error_line(output: str, *expected: str) -> None:
    """The output is one ``error:`` line holding each of ``expected``, no usage box."""
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    assert all(e in lines[0] for e in expected), output


@pytest.mark.parametrize(
    ("path", "required", "option"),
    NUMBER_OPTIONS,
    ids=[" ".join(c[0]) + c[2] for c in NUMBER_OPTIONS],
)
def test_text_for_a_number_is_one_error_line(
    path: tuple[str, ...], required: list[str], option: str
) -> None:
    # the bad option first: typer checks the options in the order they are given
    argv = [*path, option, "abc", *required]
    out = runner.invoke(app, argv, env={"MNEMO_EMBEDDER": "hashing"}, prog_name="mnemo")
    assert out.exit_code == 2, out.output
    one_error_line(out.output, f"Invalid value for '{option}'", f"mnemo {' '.join(path)} -h")


def test_a_number_out_of_range_and_a_missing_option_are_one_error_line() -> None:
    found = {(path[0], option) for path, _, option in NUMBER_OPTIONS}  # the walk sees them
    assert {("list", "--limit"), ("worker", "--worker-poll-s"), ("edit", "--importance")} <= found
    out = runner.invoke(app, ["jobs", "--limit", "0"])
    assert out.exit_code == 2
    one_error_line(out.output, "Invalid value for '--limit'", "greater than or equal to 1")
    out = runner.invoke(app, ["keys", "create"], prog_name="mnemo")
    assert out.exit_code == 2
    one_error_line(out.output, "Missing option '--tenant'", "(see `mnemo keys create -h`)")
