"""``mnemo -h`` lists each command with its docstring's first paragraph on one line."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from mnemo.cli.main import app


def commands(typer_app: typer.Typer) -> list[typer.models.CommandInfo]:
    """Every command of ``typer_app`` and of its groups."""
    found = list(typer_app.registered_commands)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            found += commands(group.typer_instance)
    return found


def test_every_command_has_a_one_line_summary() -> None:
    infos = commands(app)
    assert len(infos) >= 20
    for info in infos:
        assert info.short_help and "\n" not in info.short_help, info.name


def test_the_command_list_breaks_no_sentence_at_a_source_line() -> None:
    out = CliRunner().invoke(app, ["-h"], env={"COLUMNS": "300"})
    assert out.exit_code == 0
    line = next(x for x in out.output.splitlines() if "│ migrate" in x)
    assert "a failure leaves the target as it was" in line  # the whole paragraph on one row
