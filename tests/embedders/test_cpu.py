"""The CPU description every benchmark and eval report carries."""

from __future__ import annotations

from mnemo.embedders.cpu import cpu_line, describe_cpu, kernel_class

AVX2_EPYC = """processor\t: 0
model name\t: AMD EPYC 7B12
flags\t\t: fpu sse4_2 avx avx2 fma
"""
VNNI_XEON = """model name\t: Intel(R) Xeon(R) Platinum 8481C
flags\t\t: sse4_2 avx avx2 fma avx512f avx512bw avx512_vnni avx_vnni
"""


def test_the_kernel_class_tells_avx2_from_avx512_vnni() -> None:
    epyc = describe_cpu(AVX2_EPYC)
    assert epyc["model"] == "AMD EPYC 7B12" and epyc["kernels"] == "avx2"
    assert epyc["features"] == ["sse4_2", "avx", "avx2", "fma"]
    assert describe_cpu(VNNI_XEON)["kernels"] == "avx512-vnni"
    assert kernel_class({"avx2", "avx_vnni"}) == "avx-vnni"
    assert kernel_class({"sse4_2"}) == "other"
    assert describe_cpu("")["kernels"] is None


def test_the_report_line_names_the_model_and_the_kernels() -> None:
    line = cpu_line(describe_cpu(AVX2_EPYC))
    assert line.startswith("AMD EPYC 7B12 (avx2 kernels; onnxruntime ")
