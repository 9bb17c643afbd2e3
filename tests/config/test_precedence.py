"""Precedence of the settings sources: defaults < preset < TOML < environment < constructor.

:func:`mnemo.config.sources.layered` is the one place that orders the sources; these tests go
through ``Settings`` (and ``layered`` directly) and add the sources one at a time, so every step
up the ladder must win over every step below it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mnemo import ConfigError, Settings
from mnemo.config.sources import layered

#: field -> its value from each source: default, preset agent-cli, TOML, env, constructor.
LADDER: dict[str, tuple[Any, Any, Any, Any, Any]] = {
    "search_limit": (10, 5, 7, 8, 9),
    "recency_weight": (0.15, 0.2, 0.3, 0.4, 0.5),
    "fusion": ("blend", "cosine", "blend", "rrf", "blend"),
    "max_entries": (None, 500, 100, 200, 300),
    "use_mmr": (False, True, False, True, False),
}
SOURCES = ("default", "preset", "toml", "env", "constructor")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def _build(
    upto: set[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fields: list[str]
) -> Settings:
    """A Settings built from the sources in ``upto`` (defaults always apply)."""
    for name in [*LADDER, "preset", "config_file"]:
        monkeypatch.delenv(f"MNEMO_{name.upper()}", raising=False)
    toml_lines = ["[mnemo]"]
    if "preset" in upto:
        toml_lines.append('preset = "agent-cli"')
    if "toml" in upto:
        toml_lines += [f"{f} = {_toml_value(LADDER[f][2])}" for f in fields]
    toml = tmp_path / "mnemo.toml"
    toml.write_text("\n".join(toml_lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("MNEMO_CONFIG_FILE", str(toml))
    if "env" in upto:
        for f in fields:
            monkeypatch.setenv(f"MNEMO_{f.upper()}", str(LADDER[f][3]))
    args = {f: LADDER[f][4] for f in fields} if "constructor" in upto else {}
    return Settings(**args)


@pytest.mark.parametrize("top", range(len(SOURCES)))
def test_each_source_beats_every_lower_one(
    top: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fields = list(LADDER)
    s = _build(set(SOURCES[: top + 1]), tmp_path, monkeypatch, fields)
    assert {f: getattr(s, f) for f in fields} == {f: LADDER[f][top] for f in fields}


@pytest.mark.parametrize("only", range(1, len(SOURCES)))
def test_each_source_alone_beats_the_defaults(
    only: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fields = list(LADDER)
    s = _build({SOURCES[only]}, tmp_path, monkeypatch, fields)
    assert {f: getattr(s, f) for f in fields} == {f: LADDER[f][only] for f in fields}


def test_a_missing_middle_source_lets_the_lower_one_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = _build({"preset", "env"}, tmp_path, monkeypatch, ["search_limit"])
    assert s.search_limit == 8  # env over the preset, no TOML value in between
    assert s.recency_weight == 0.2  # the preset's, no other source names it
    assert s.mmr_lambda == 0.7  # the default


def test_precedence_args_over_env_over_toml_over_preset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = tmp_path / "mnemo.toml"
    toml.write_text('[mnemo]\npreset = "agent-cli"\nsearch_limit = 7\npool_factor = 4\n')
    monkeypatch.setenv("MNEMO_CONFIG_FILE", str(toml))
    monkeypatch.setenv("MNEMO_POOL_FACTOR", "5")
    s = Settings(mmr_lambda=0.5)
    assert s.preset == "agent-cli"
    assert s.use_mmr is True  # from the preset
    assert s.recency_weight == 0.2  # from the preset
    assert s.search_limit == 7  # TOML beats the preset's 5
    assert s.pool_factor == 5  # env beats TOML
    assert s.mmr_lambda == 0.5  # argument beats the preset's 0.7
    assert Settings(pool_factor=9).pool_factor == 9  # argument beats env


def test_the_preset_itself_follows_the_same_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = tmp_path / "mnemo.toml"
    toml.write_text('preset = "agent-cli"\n')
    assert Settings(config_file=str(toml)).search_limit == 5  # agent-cli, from TOML
    monkeypatch.setenv("MNEMO_PRESET", "tiered")
    assert Settings(config_file=str(toml)).search_limit == 3  # tiered, env beats TOML
    assert Settings(config_file=str(toml), preset="llmplatform").search_limit == 8  # argument


def test_config_file_argument_beats_the_env_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_file, arg_file = tmp_path / "env.toml", tmp_path / "arg.toml"
    env_file.write_text("search_limit = 2\n")
    arg_file.write_text("search_limit = 4\n")
    monkeypatch.setenv("MNEMO_CONFIG_FILE", str(env_file))
    assert Settings().search_limit == 2
    assert Settings(config_file=str(arg_file)).search_limit == 4


def test_replace_keeps_every_value_over_a_changed_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = Settings(preset="agent-cli", rrf_k=30)
    monkeypatch.setenv("MNEMO_RRF_K", "10")
    monkeypatch.setenv("MNEMO_SEARCH_LIMIT", "40")
    r = s.replace(pool_factor=6)
    assert (r.rrf_k, r.search_limit, r.pool_factor, r.use_mmr) == (30, 5, 6, True)


def test_layered_orders_plain_mappings(tmp_path: Path) -> None:
    toml = tmp_path / "mnemo.toml"
    toml.write_text('preset = "agent-cli"\nsearch_limit = 7\nrrf_k = 20\n')
    fields = set(Settings.model_fields)
    environ = {"MNEMO_CONFIG_FILE": str(toml), "MNEMO_RRF_K": "30", "MNEMO_MIN_POOL": "9"}
    merged = layered({"min_pool": 11}, environ, fields)
    assert merged["search_limit"] == 7  # TOML over the preset's 5
    assert merged["use_mmr"] is True  # the preset
    assert merged["rrf_k"] == "30"  # env over TOML (validated later)
    assert merged["min_pool"] == 11  # argument over env
    assert layered({}, {}, fields) == {}  # defaults are left to the fields


def test_an_unknown_preset_from_any_source_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MNEMO_PRESET", "nope")
    with pytest.raises(ConfigError, match="unknown preset 'nope'"):
        Settings()


@pytest.fixture
def local_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mnemo.toml`` (not yet written) in an empty working directory, with no
    ``MNEMO_CONFIG_FILE`` set."""
    monkeypatch.delenv("MNEMO_CONFIG_FILE", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "mnemo.toml"


def test_mnemo_toml_in_the_working_directory_is_read(
    local_toml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/mcp.md and docs/configuration.md promise it: a ``./mnemo.toml`` is the TOML source
    when no ``config_file`` is named (it used to be ignored)."""
    assert Settings().search_limit == 10  # no ./mnemo.toml: the default
    local_toml.write_text('[mnemo]\npreset = "agent-cli"\nsearch_limit = 7\n')
    s = Settings()
    assert (s.search_limit, s.use_mmr) == (7, True)  # the file, and the preset it names
    monkeypatch.setenv("MNEMO_SEARCH_LIMIT", "8")
    assert Settings().search_limit == 8  # the environment beats it
    assert Settings(search_limit=9).search_limit == 9  # and the arguments


def test_a_named_config_file_replaces_the_local_mnemo_toml(
    local_toml: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local_toml.write_text("search_limit = 7\nrrf_k = 20\n")
    named = local_toml.with_name("other.toml")
    named.write_text("search_limit = 4\n")
    monkeypatch.setenv("MNEMO_CONFIG_FILE", str(named))
    s = Settings()
    assert (s.search_limit, s.rrf_k) == (4, Settings.model_fields["rrf_k"].default)  # not merged
    monkeypatch.delenv("MNEMO_CONFIG_FILE")
    assert Settings(config_file=str(named)).search_limit == 4


def test_a_bad_local_mnemo_toml_is_a_config_error(local_toml: Path) -> None:
    local_toml.write_text("serch_limit = 7\n")
    with pytest.raises(ConfigError, match=r"mnemo\.toml: unknown settings"):
        Settings()


def test_the_cli_reads_mnemo_toml_from_the_working_directory(local_toml: Path) -> None:
    from typer.testing import CliRunner

    from mnemo.cli.main import app

    local_toml.write_text('path = "from-toml.db"\nembedder = "hashing"\n')
    out = CliRunner().invoke(app, ["add", "Maya keeps bees", "--user", "maya"])
    assert out.exit_code == 0, out.output
    here = local_toml.parent
    assert (here / "from-toml.db").is_file() and not (here / "mnemo.db").exists()
