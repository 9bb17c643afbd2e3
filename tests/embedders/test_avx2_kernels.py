"""The default embedder on a CPU without AVX-512: the same vectors as here, the same vector
alone and in a batch, and agreement with the stored float32 vectors.

onnxruntime picks its kernels by the CPU's features, so a machine with AVX-512 VNNI never runs
the AVX2 ones. ``qemu-x86_64 -cpu Haswell-v4`` (Debian's qemu-user) runs this same Python
under an emulated CPU that reports AVX2 and FMA and no AVX-512, so onnxruntime takes its AVX2
kernels there. The emulation is about 25x slower: the child embeds only the probe texts.
``make test`` installs qemu-user when it is missing; without it these tests are skipped,
except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mnemo.embedders.onnx import OnnxEmbedder
from mnemo.embedders.self_check import agreement, stored_references

IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
QEMU = shutil.which("qemu-x86_64")
ROOT = Path(__file__).resolve().parents[2]
MODEL = "all-MiniLM-L6-v2-q8"

CHILD = Path(__file__).with_name("avx2_child.py")
DEFAULT_VECTORS = Path(__file__).parent / "data" / "default_vectors.json"


def emulated(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python *args`` under an AVX2-only CPU (skipped without qemu, failed under CI)."""
    if QEMU is None or not sys.platform.startswith("linux"):
        reason = "no qemu-x86_64 (apt-get install qemu-user) to emulate an AVX2-only CPU"
        if IN_CI:
            pytest.fail(f"CI=true, so the AVX2 kernel tests must run, but {reason}", pytrace=False)
        pytest.skip(reason)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [QEMU, "-cpu", "Haswell-v4", sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
        check=False,
    )


def test_the_avx2_kernels_give_the_vectors_of_this_cpu(tmp_path: Path) -> None:
    reference = stored_references()[MODEL]
    # built here, natively, first: the child reuses the file instead of building it slowly
    here = OnnxEmbedder(MODEL, threads=1, cache_dir=str(tmp_path)).embed(list(reference.texts))
    done = emulated(str(CHILD), MODEL, str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    there = json.loads(done.stdout.strip().splitlines()[-1])
    # the emulated CPU really runs the AVX2 kernel: 8-bit activations by int8 weights clip
    # there (255 x 127 x 2 overflows a 16-bit lane), which the old recipe ran on
    assert there["clipped"] > 0
    # the row-scaled products do not: exact at 7 bits (int8 weights) and 8 (uint8 weights)
    assert max(there["errors"].values()) < 1e-4, there["errors"]
    assert there["served"] == MODEL  # the start-up check passed under AVX2, no fallback
    alone, batch = np.asarray(there["alone"]), np.asarray(there["batch"])
    assert float((alone * batch).sum(axis=1).min()) > 0.999999  # batch-independent there too
    assert float(agreement(alone, reference).min()) >= 0.97
    assert float((alone * here).sum(axis=1).min()) > 0.995  # same integers; float ops differ
    # and the vectors the learned stage was fitted on hold on this CPU too
    stored = json.loads(DEFAULT_VECTORS.read_text(encoding="utf-8"))
    flat = np.frombuffer(base64.b64decode(stored["float16"]), dtype="<f2").astype(np.float32)
    want = flat.reshape(len(stored["texts"]), -1)
    assert stored["texts"] == list(reference.texts)
    cos = (alone * want).sum(axis=1) / np.linalg.norm(want, axis=1)
    assert float(cos.min()) >= 0.996, np.round(cos, 5)  # test_vector_drift.py's bound
