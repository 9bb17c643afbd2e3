"""Coefficients of :mod:`mnemo.retrieval.relevance` per embedder id (written by
``bench/relevance.py --fit``; do not edit by hand)."""

from __future__ import annotations

from typing import Any

#: The embedder whose coefficients serve embedders that have none of their own.
DEFAULT_EMBEDDER = "onnx:all-MiniLM-L6-v2-q8"
#: Per embedder id: intercept, coefficients, and how many hits they were fitted on.
MODELS: dict[str, dict[str, Any]] = {
    "onnx:all-MiniLM-L6-v2-q8": {
        "intercept": -8.0863,
        "coef": {
            "cosine": 6.7846,
            "no_cosine": 0.7071,
            "bm25": 0.1608,
            "fused": 0.8819,
            "speaker": 5.9143,
            "date": 1.4511,
            "position": -0.6498,
        },
        "fitted_on": {"locomo": 76000, "longmemeval": 2400},
    },
    "onnx:multilingual-e5-small": {
        "intercept": -24.678,
        "coef": {
            "cosine": 20.592,
            "no_cosine": 15.4926,
            "bm25": 0.2331,
            "fused": 2.1506,
            "speaker": 5.4507,
            "date": 1.576,
            "position": -0.2545,
        },
        "fitted_on": {"locomo": 76000, "longmemeval": 2400},
    },
}
