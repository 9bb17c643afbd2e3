"""Helpers shared by the benchmarks: machine facts, percentiles, embedders, JSON output."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python bench/x.py` from a checkout without install
    sys.path.insert(0, str(ROOT))

from mnemo.config.settings import Settings  # noqa: E402
from mnemo.embedders import Embedder, create_embedder  # noqa: E402
from mnemo.embedders.cpu import cpu_line, describe_cpu  # noqa: E402

CACHE_DIR = Path(__file__).resolve().parent / ".cache"
#: Wide enough for the tables when output goes to a file or pipe.
console = Console(width=None if sys.stdout.isatty() else 150)


def parse_size(text: str) -> int:
    """``"10k"`` -> 10000, ``"1m"`` -> 1000000, ``"2500"`` -> 2500."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", text)
    if not m:
        raise ValueError(f"not a size: {text!r}")
    scale = {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


def label(n: int) -> str:
    """1000 -> "1k", 100000 -> "100k"."""
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}m"
    if n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def make_embedder(name: str) -> Embedder:
    """The embedder mnemo would build for ``MNEMO_EMBEDDER=name`` (other settings default)."""
    return create_embedder(Settings(embedder=name))


def warm_up(embedder: Embedder) -> float:
    """Load the model and run a few batch shapes once; returns seconds spent."""
    t0 = now()
    embedder.embed(["warm-up sentence number one"])
    embedder.embed([f"warm-up batch sentence {i} about nothing in particular" for i in range(64)])
    return now() - t0


now = time.perf_counter


def stats_ms(samples_s: list[float] | np.ndarray) -> dict[str, float]:
    """p50 / p95 / mean / min / max of samples in seconds, as milliseconds."""
    a = np.asarray(samples_s, dtype=np.float64) * 1000.0
    if a.size == 0:
        return {"n": 0}
    return {
        "n": int(a.size),
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "mean": float(a.mean()),
        "min": float(a.min()),
        "max": float(a.max()),
    }


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine(embedder: Embedder | None = None) -> dict[str, Any]:
    """Facts about this run's machine and software, stored with every result."""
    info: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": _cpu_model(),
        "cpu": describe_cpu(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "git_commit": _git("rev-parse", "--short", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
    }
    import sqlite3

    info["sqlite"] = sqlite3.sqlite_version
    info["thread_env"] = {
        k: os.environ[k]
        for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        if k in os.environ
    }
    try:
        from threadpoolctl import threadpool_info

        info["threadpools"] = {
            f"{Path(p['filepath']).parent.name}/{p['internal_api']}": p["num_threads"]
            for p in threadpool_info()
        }
    except ImportError:
        pass
    if embedder is not None:
        info["embedder"] = embedder.id
        if embedder.id.startswith("local:"):
            import torch

            info["torch"] = torch.__version__
            info["torch_threads"] = torch.get_num_threads()
        if embedder.id.startswith("onnx:"):
            import onnxruntime

            info["onnxruntime"] = onnxruntime.__version__
            info["onnx_threads"] = {
                "query": getattr(embedder, "query_threads", None),
                "batch": getattr(embedder, "threads", None),
            }
    return info


def announce_machine(embedder: Embedder | None = None, *, stderr: bool = False) -> dict[str, Any]:
    """Print one line naming this run's CPU (``cpu: AMD EPYC (avx512-vnni kernels;
    onnxruntime 1.32.0)``) and return :func:`machine` for the JSON report, so every report names
    the CPU it was measured on. ``stderr=True`` for scripts whose stdout is the JSON itself."""
    info = machine(embedder)
    line = f"cpu: {cpu_line(info['cpu'])}"
    if stderr:
        print(line, file=sys.stderr, flush=True)
    else:
        console.print(line, markup=False, highlight=False)
    return info


def numpy_blas_threads(info: dict[str, Any]) -> int | None:
    """Threads of the BLAS numpy itself uses (``numpy.libs/openblas``), from ``machine()``."""
    for lib, n in info.get("threadpools", {}).items():
        if lib.startswith("numpy") and lib.endswith(("openblas", "mkl", "blis")):
            return int(n)
    return None


def rss_mb() -> float:
    """Resident set size of this process, in MB (Linux; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


HOG = """
import os, sys, time
cpu = int(sys.argv[2])
if cpu >= 0 and hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {cpu})
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    pass
"""


class Hog:
    """A busy-loop child process on one CPU, for at most ``seconds`` (context manager)."""

    def __init__(self, seconds: float, cpu: int) -> None:
        self.seconds, self.cpu = seconds, cpu
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Hog:
        self.proc = subprocess.Popen([sys.executable, "-c", HOG, str(self.seconds), str(self.cpu)])
        time.sleep(0.2)  # let it reach the loop
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()


def write_json(path: str | None, data: dict[str, Any] | list[Any]) -> None:
    """Write ``data`` to ``path`` (pretty-printed) when a path is given, with this run's
    :func:`machine` under ``"machine"`` when ``data`` is a report (a dict) that has none (every
    report names its CPU; a list, e.g. a dump of items, is written as it is)."""
    if not path:
        return
    if isinstance(data, dict) and "machine" not in data:
        data = {**data, "machine": machine()}
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    console.print(f"[dim]wrote {p}[/dim]")


def fmt(x: float | None, digits: int = 2) -> str:
    """A number for a table cell."""
    return "-" if x is None else f"{x:,.{digits}f}"
