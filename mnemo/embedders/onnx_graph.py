"""A small builder of ONNX graphs: nodes with generated names, and constant initializers.

Used by the converters that write an encoder's graph from weights read elsewhere
(:mod:`mnemo.embedders.nomic_onnx`, :mod:`mnemo.embedders.e5_onnx`).
"""

from __future__ import annotations

from collections.abc import Callable
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

    def layer_norm(
        self, x: str, names: tuple[str, str], read: Callable[[str], np.ndarray], eps: float
    ) -> str:
        """Add a LayerNormalization of ``x`` over its last axis, its scale and bias the
        constants ``names`` (read by ``read``); returns its output name."""
        weight, bias = names
        return str(
            self.op(
                "LayerNormalization",
                x,
                self.const(weight, read(weight)),
                self.const(bias, read(bias)),
                axis=-1,
                epsilon=eps,
            )
        )

    def encoder_model(self, name: str, last: str, hidden: int, opset: int) -> Any:
        """The checked ``onnx.ModelProto`` of an encoder graph: inputs ``input_ids`` and
        ``attention_mask`` (batch, tokens; int64), output ``last_hidden_state`` (batch, tokens,
        ``hidden``), the value ``last`` of the nodes added so far."""
        import onnx
        from onnx import TensorProto

        h = self.h
        self.nodes.append(h.make_node("Identity", [last], ["last_hidden_state"]))
        ids = [
            h.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
            for n in ("input_ids", "attention_mask")
        ]
        out = h.make_tensor_value_info(
            "last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", hidden]
        )
        graph = h.make_graph(self.nodes, name, ids, [out], self.inits)
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=False)
        return model


__all__ = ["GraphBuilder"]
