"""What CPU this is, as far as the embedder's speed and kernels go: named in every benchmark
report and ``mnemo eval`` report.

onnxruntime picks its integer and float kernels by the CPU's features, so two machines "of the
same kind" can run different code: an AVX2-only EPYC, an AVX-512 VNNI Xeon or EPYC. The
``kernels`` class names the one that matters for the int8 embedder: ``avx512-vnni``
(``vpdpbusd``), ``avx-vnni``, ``avx2`` (``vpmaddubsw``, which saturates: see
:mod:`mnemo.embedders.int8_rows`) or ``other``. Read from ``/proc/cpuinfo``; elsewhere the
fields are None.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any

#: The SIMD features reported, in order.
FEATURES = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni")


def kernel_class(flags: set[str]) -> str:
    """``avx512-vnni``, ``avx-vnni``, ``avx2`` or ``other`` for a set of cpuinfo flags."""
    if {"avx512f", "avx512bw", "avx512_vnni"} <= flags:
        return "avx512-vnni"
    if "avx_vnni" in flags:
        return "avx-vnni"
    return "avx2" if "avx2" in flags else "other"


def describe_cpu(cpuinfo: str | None = None) -> dict[str, Any]:
    """``{"model", "features", "kernels", "machine", "onnxruntime"}`` of this machine (or of the
    text of a ``/proc/cpuinfo`` given as ``cpuinfo``)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            cpuinfo = ""
    model = None
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and model is None:
            model = value.strip()
        elif key.strip() == "flags" and not flags:
            flags = set(value.split())
    try:
        import onnxruntime

        ort_version: str | None = onnxruntime.__version__
    except ImportError:
        ort_version = None
    return {
        "model": model,
        "features": [f for f in FEATURES if f in flags] if flags else None,
        "kernels": kernel_class(flags) if flags else None,
        "machine": platform.machine(),
        "onnxruntime": ort_version,
    }


def cpu_line(cpu: dict[str, Any]) -> str:
    """One line for a report: ``AMD EPYC (avx512-vnni kernels; onnxruntime 1.32.0)``."""
    where = f"{cpu.get('kernels') or 'unknown'} kernels"
    if cpu.get("onnxruntime"):
        where += f"; onnxruntime {cpu['onnxruntime']}"
    return f"{cpu.get('model') or platform.machine() or 'unknown CPU'} ({where})"


__all__ = ["FEATURES", "cpu_line", "describe_cpu", "kernel_class"]
