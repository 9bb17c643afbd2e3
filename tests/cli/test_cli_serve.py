"""``mnemo serve --set KEY=VALUE``: any setting for one run, in a real server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from typer.testing import CliRunner

from mnemo.cli.main import app

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_takes_settings_from_set(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env |= {"PYTHONPATH": str(ROOT), "MNEMO_PRESET": "default"}  # --set wins over the env
    cmd = [sys.executable, "-m", "mnemo", "serve", "--db", str(tmp_path / "m.db")]
    cmd += ["--port", str(port), "--set", "embedder=hashing", "--set", "preset=agent-cli"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        health = None
        for _ in range(300):
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).json()
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.1)
        assert health is not None
        assert health["preset"] == "agent-cli" and health["embedder"].startswith("hashing")
    finally:
        proc.terminate()
        proc.communicate(timeout=30)  # reads and closes stderr


def test_a_set_without_equals_or_an_unknown_setting_is_one_line() -> None:
    out = CliRunner().invoke(app, ["serve", "--set", "preset"])
    assert out.exit_code == 2 and "KEY=VALUE" in out.output
    assert len(out.output.strip().splitlines()) == 1
    out = CliRunner().invoke(app, ["serve", "--set", "no_such_setting=1"])
    assert out.exit_code == 2 and "no_such_setting" in out.output
