"""A small builder of ONNX graphs: nodes with generated names, and constant initializers.

Used by the converters that write an encoder's graph from weights read elsewhere
(:mod:`mnemo.embedders.nomic_onnx`, :mod:`mnemo.embedders.e5_onnx`).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class GraphBuilder:
    """Accumulates nodes and initializers; node output names are generated."""

    def __init__(self, helper: Any, numpy_helper: Any) -> None:
        self.h, self.nh = helper, numpy_helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        """Add ``value`` as an initializer called ``name``; returns the name."""
        self.inits.append(self.nh.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, outputs: int = 1, **attrs: Any) -> Any:
        """Add a ``kind`` node; returns its output name (a list when ``outputs`` > 1)."""
        self.count += 1
        names = [f"{kind.lower()}_{self.count}_{i}" for i in range(outputs)]
        node = self.h.make_node(kind, list(inputs), names, name=f"{kind}_{self.count}", **attrs)
        self.nodes.append(node)
        return names[0] if outputs == 1 else names


__all__ = ["GraphBuilder"]
