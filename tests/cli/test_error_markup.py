"""CLI error lines print brackets literally (Rich would take ``[torch]`` for markup)."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from mnemo.cli.common import guarded
from mnemo.cli.main import app
from mnemo.embedders.onnx_models import MODELS
from mnemo.errors import ConfigError

runner = CliRunner()


def test_a_config_error_with_brackets_prints_them(db_path: str) -> None:
    env = {"MNEMO_PATH": db_path, "MNEMO_EMBEDDER_MODEL": "nope", "COLUMNS": "300"}
    out = runner.invoke(app, ["add", "I have a dog", "--user", "u"], env=env)
    assert out.exit_code == 2
    assert "unknown local embedder model 'nope'" in out.output
    # the bundled names as a Python list, brackets and all (the nomic names joined it)
    assert f"bundled: {sorted(MODELS)} " in out.output
    assert "['all-MiniLM-L6-v2-int8', 'all-MiniLM-L6-v2-q8', " in out.output


def test_an_install_hint_keeps_its_extra(capsys: pytest.CaptureFixture[str]) -> None:
    def fail() -> None:
        raise ConfigError('needs the torch extra: pip install "mnemo-ltm[torch]"')

    with pytest.raises(typer.Exit):
        guarded(fail)
    assert 'pip install "mnemo-ltm[torch]"' in capsys.readouterr().err
