"""Real ``python -m mnemo`` server processes for the CLI tests: a free port, the environment
of a fresh shell (no ``MNEMO_*``), and waiting for ``/health``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without ``MNEMO_*``, importing this checkout's mnemo."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    return env | {"PYTHONPATH": str(ROOT), "MNEMO_EMBEDDER": "hashing", **extra}


def mnemo(*args: str, timeout: float = 120, **kw: Any) -> subprocess.CompletedProcess[str]:
    """Run ``python -m mnemo ARGS`` to the end; stdout and stderr captured as text."""
    kw.setdefault("env", clean_env())
    return subprocess.run(
        [sys.executable, "-m", "mnemo", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kw,
    )


def start(*args: str, **kw: Any) -> subprocess.Popen[str]:
    """Start ``python -m mnemo ARGS`` in the background (stdout dropped, stderr piped)."""
    kw.setdefault("env", clean_env())
    return subprocess.Popen(
        [sys.executable, "-m", "mnemo", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def wait_healthy(proc: subprocess.Popen[str], port: int) -> dict[str, Any]:
    """``/health`` of the server ``proc`` once it answers (fails if the process ends)."""
    for _ in range(600):
        try:
            return dict(httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).json())
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise AssertionError(proc.stderr.read() if proc.stderr else "ended") from None
            time.sleep(0.1)
    raise AssertionError("the server did not answer /health")


def stop(proc: subprocess.Popen[str]) -> str:
    """Terminate ``proc``; its stderr."""
    if proc.poll() is None:
        proc.terminate()
    return proc.communicate(timeout=30)[1] or ""
