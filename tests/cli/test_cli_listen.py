"""The commands that listen (``mnemo serve``, ``mnemo mcp --http``) fail to start in one
``error:`` line and exit status 2, before anything starts: a port out of range (was two
``OverflowError`` tracebacks, exit 1) and a busy port (was a whole app started, then uvicorn's
``[Errno 98]`` among INFO lines, exit 3). Real processes, real sockets."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import free_port, mnemo, start, stop, wait_healthy

from mnemo.cli.listen import bind, check_port
from mnemo.errors import ConfigError


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error:"), stderr
    assert "Traceback" not in stderr and "INFO" not in stderr
    return lines[0]


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port another socket listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "--port", "99999"],
        ["serve", "--port", "-1"],
        ["mcp", "--http", "--port", "99999"],
    ],
)
def test_a_port_out_of_range_is_one_line(args: list[str], tmp_path: Path) -> None:
    out = mnemo(*args, "--db", str(tmp_path / "m.db"), cwd=tmp_path)
    assert out.returncode == 2
    assert "65535" in one_error_line(out.stderr)
    assert not (tmp_path / "m.db").exists()


def test_a_second_serve_on_a_busy_port_is_one_line_and_starts_nothing(tmp_path: Path) -> None:
    port = free_port()
    first = start("serve", "--db", str(tmp_path / "first.db"), "--port", str(port))
    try:
        wait_healthy(first, port)
        out = mnemo("serve", "--db", str(tmp_path / "second.db"), "--port", str(port))
        assert out.returncode == 2
        line = one_error_line(out.stderr)
        assert f"127.0.0.1:{port}" in line and "in use" in line
        assert not (tmp_path / "second.db").exists()  # the app was never built
        assert wait_healthy(first, port)["status"] == "ok"  # the first one is untouched
    finally:
        stop(first)


def test_mcp_http_on_a_busy_port_is_one_line(busy_port: int, tmp_path: Path) -> None:
    out = mnemo("mcp", "--http", "--port", str(busy_port), "--db", str(tmp_path / "m.db"))
    assert out.returncode == 2
    assert "in use" in one_error_line(out.stderr)
    assert not (tmp_path / "m.db").exists()


def test_serve_on_an_unknown_host_is_one_line(tmp_path: Path) -> None:
    out = mnemo("serve", "--host", "no-such-host.invalid", "--db", str(tmp_path / "m.db"))
    assert out.returncode == 2
    assert "no-such-host.invalid" in one_error_line(out.stderr)


def test_bind_checks_and_holds_the_port(busy_port: int) -> None:
    with pytest.raises(ConfigError, match="0-65535"):
        check_port(65536)
    with pytest.raises(ConfigError, match="in use"):
        bind("127.0.0.1", busy_port)
    with bind("127.0.0.1", 0) as sock:
        port = sock.getsockname()[1]
        with pytest.raises(ConfigError, match="in use"):
            bind("127.0.0.1", port)  # listening at once: nobody takes it meanwhile
