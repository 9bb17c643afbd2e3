"""The component groups: together exactly the fields of Settings, each a type Settings satisfies,
each module's docstring naming its fields."""

from __future__ import annotations

import sys

import pytest

import mnemo.config
from mnemo.config import GROUPS, RetrievalSettings, Settings, SettingsGroup


def test_groups_partition_the_flat_fields() -> None:
    names = [name for group in GROUPS for name in group.model_fields]
    assert len(names) == len(set(names)), "a field is in two groups"
    assert names == list(Settings.model_fields)  # same set, and the documented order


def test_settings_inherits_every_group_in_order() -> None:
    assert Settings.__bases__ == tuple(reversed(GROUPS))
    s = Settings()
    for group in GROUPS:
        assert isinstance(s, group)
        assert issubclass(group, SettingsGroup)


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.__name__)
def test_each_group_stands_alone_with_the_same_defaults(group: type[SettingsGroup]) -> None:
    alone = group()
    full = Settings()
    for name in group.model_fields:
        assert getattr(alone, name) == getattr(full, name)
        assert group.model_fields[name].description == Settings.model_fields[name].description


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.__name__)
def test_each_group_module_names_its_fields(group: type[SettingsGroup]) -> None:
    doc = sys.modules[group.__module__].__doc__ or ""
    if group.__module__ == "mnemo.config.settings":
        doc = group.__doc__ or ""
    missing = [name for name in group.model_fields if f"``{name}``" not in doc]
    assert missing == [], f"{group.__name__}'s docstring does not name {missing}"
    assert group.__doc__


def test_a_component_can_take_its_slice_only() -> None:
    def pool(cfg: RetrievalSettings, limit: int) -> int:
        return max(cfg.min_pool, limit * cfg.pool_factor)

    assert pool(Settings(min_pool=5, pool_factor=2), 10) == 20
    assert pool(RetrievalSettings(), 10) == 50


def test_the_package_exports_settings_presets_and_groups() -> None:
    assert mnemo.config.Settings is Settings
    assert set(mnemo.config.__all__) >= {"Settings", "PRESETS"} | {g.__name__ for g in GROUPS}
    from mnemo.config.settings import Settings as Old

    assert Old is Settings
    assert Settings().llm_enabled is False
    assert Settings(llm_base_url="http://x/v1").llm_enabled is True
