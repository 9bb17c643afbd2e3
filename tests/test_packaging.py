"""pyproject.toml as setuptools reads it: the installed setuptools applies it without a
deprecation warning (the license is an SPDX expression, not the deprecated
``{ text = "MIT" }`` table that printed a warning on every ``make setup``), and the build
requires a setuptools that reads that form (77 or later; the venv's own is such a one, so
the build needs nothing new)."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
#: The first setuptools that reads ``project.license`` as an SPDX expression.
SPDX_SETUPTOOLS = Version("77.0.0")


def test_setuptools_applies_the_project_table_without_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import setuptools
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    assert Version(setuptools.__version__) >= SPDX_SETUPTOOLS
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dist = apply_configuration(Distribution(), "pyproject.toml")
    assert dist.metadata.license_expression == "MIT"


def test_the_build_requires_a_setuptools_that_reads_the_license() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["license"] == "MIT"
    (requirement,) = [Requirement(r) for r in config["build-system"]["requires"]]
    assert requirement.name == "setuptools"
    assert requirement.specifier.contains(SPDX_SETUPTOOLS)
    assert not requirement.specifier.contains(Version("76.1.0"))
