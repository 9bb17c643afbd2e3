"""mnemo's version, read once at import as :data:`__version__` (re-exported as
``mnemo.__version__``; mnemo's own modules import it from here).

The installed distribution is ``mnemo-ltm`` (the import package is ``mnemo``), so the version
is that distribution's metadata. A source tree that was never installed falls back to the
``version`` of the ``pyproject.toml`` beside the package, when it is mnemo-ltm's; anything
else reports ``0+unknown``.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

#: The distribution name on PyPI and in ``pyproject.toml``.
DISTRIBUTION = "mnemo-ltm"
#: What a copy that is neither installed nor in its source tree reports.
UNKNOWN = "0+unknown"


def source_tree_version(pyproject: Path) -> str | None:
    """The ``[project] version`` of ``pyproject`` when the file exists and names
    :data:`DISTRIBUTION`; None otherwise."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if project.get("name") != DISTRIBUTION or not isinstance(project.get("version"), str):
        return None
    return str(project["version"])


def read_version() -> str:
    """The installed ``mnemo-ltm`` version, else the source tree's, else :data:`UNKNOWN`."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        here = Path(__file__).resolve().parent.parent / "pyproject.toml"
        return source_tree_version(here) or UNKNOWN


#: The version every surface reports: ``mnemo --version``, ``/health``, the OpenAPI document and
#: the MCP server's info.
__version__ = read_version()

__all__ = ["DISTRIBUTION", "UNKNOWN", "__version__", "read_version", "source_tree_version"]
