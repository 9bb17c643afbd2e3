"""Every surface reports the installed ``mnemo-ltm`` version (not ``0+unknown``): the CLI,
``/health`` and the OpenAPI document of a real ``mnemo serve``, and the MCP server's info as
the SDK's own client sees it."""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

import anyio
import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from serve_support import ROOT, clean_env, free_port, mnemo, start, stop, wait_healthy

import mnemo as package
from mnemo.version import DISTRIBUTION, UNKNOWN, source_tree_version

INSTALLED = version("mnemo-ltm")


def test_package_version_is_the_installed_distributions() -> None:
    assert INSTALLED != UNKNOWN
    assert package.__version__ == INSTALLED


def test_cli_version() -> None:
    out = mnemo("--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"mnemo {INSTALLED}"


def test_health_and_openapi_report_the_version(tmp_path: Path) -> None:
    port = free_port()
    proc = start("serve", "--db", str(tmp_path / "m.db"), "--port", str(port))
    try:
        assert wait_healthy(proc, port)["version"] == INSTALLED
        doc = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=10).json()
        assert doc["info"]["version"] == INSTALLED
    finally:
        stop(proc)


def test_mcp_server_info_reports_the_version(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mnemo", "mcp", "--db", str(tmp_path / "m.db")],
        env=clean_env(),
        cwd=str(ROOT),
    )

    async def body() -> None:
        async with Client(params) as client:
            assert client.server_info is not None
            assert client.server_info.name == "mnemo"
            assert client.server_info.version == INSTALLED

    anyio.run(body)


def test_source_tree_fallback_reads_only_mnemo_ltm_pyproject(tmp_path: Path) -> None:
    assert source_tree_version(ROOT / "pyproject.toml") == INSTALLED
    other = tmp_path / "pyproject.toml"
    other.write_text('[project]\nname = "other"\nversion = "9.9"\n', encoding="utf-8")
    assert source_tree_version(other) is None
    other.write_text(f'[project]\nname = "{DISTRIBUTION}"\nversion = "1.2"\n', encoding="utf-8")
    assert source_tree_version(other) == "1.2"
    assert source_tree_version(tmp_path / "missing.toml") is None
