"""Settings: defaults, presets, validation, and documentation of every field (precedence is in
test_precedence.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mnemo import ConfigError, Settings
from mnemo.config.settings import PRESETS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_defaults_are_the_documented_ones() -> None:
    s = Settings()
    assert s.embedder == "local"
    assert s.path == "mnemo.db"
    assert s.cross_session_threshold == 50
    assert s.recency_tau_days == 30.0
    assert s.mmr_lambda == 0.7
    assert s.llm_enabled is False


def test_env_is_read_at_construction_not_import(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().embedder == "local"
    monkeypatch.setenv("MNEMO_EMBEDDER", "hashing")
    assert Settings().embedder == "hashing"


def test_settings_are_frozen() -> None:
    s = Settings()
    with pytest.raises(Exception, match="frozen"):
        s.search_limit = 3  # type: ignore[misc]
    assert s.replace(search_limit=3).search_limit == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"search_limit": 0}, "search_limit"),
        ({"preset": "nope"}, "preset"),
        ({"fusion": "magic"}, "fusion"),
        ({"no_such_setting": 1}, "no_such_setting"),
        ({"recency_weight": 2}, "recency_weight"),
    ],
)
def test_bad_settings_raise_config_error(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings(**kwargs)


def test_bad_env_value_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_SEARCH_LIMIT", "many")
    with pytest.raises(ConfigError, match="search_limit"):
        Settings()


def test_toml_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        Settings(config_file=str(tmp_path / "missing.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("search_limit = = 3")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Settings(config_file=str(bad))
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("serch_limit = 3")
    with pytest.raises(ConfigError, match="serch_limit"):
        Settings(config_file=str(unknown))


def test_every_preset_is_valid_and_keeps_its_seed_numbers() -> None:
    for name in PRESETS:
        assert Settings(preset=name).preset == name
    seed000 = Settings(preset="llmplatform")
    assert (seed000.search_limit, seed000.min_similarity) == (8, 0.45)
    seed002 = Settings(preset="agent-cli")
    assert (seed002.pool_factor, seed002.recency_weight, seed002.mmr_lambda) == (3, 0.2, 0.7)
    assert seed002.score_threshold == 0.35


def test_every_setting_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name, field in Settings.model_fields.items():
        assert field.description, f"setting {name} has no description"
        assert f"`{name}`" in text, f"setting {name} missing from docs/configuration.md"
        assert f"`MNEMO_{name.upper()}`" in text, f"env var of {name} missing from the docs"
    for preset in PRESETS:
        assert f"`{preset}`" in text


def test_docs_are_the_generated_page() -> None:
    script = DOCS.parents[1] / "scripts" / "gen_config_docs.py"
    spec = importlib.util.spec_from_file_location("gen_config_docs", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert DOCS.read_text(encoding="utf-8") == module.render(), (
        "docs/configuration.md is stale: run python scripts/gen_config_docs.py"
    )
