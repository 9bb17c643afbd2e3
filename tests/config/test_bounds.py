"""The kinds of bounded settings (mnemo.config.bounds): a setting declared by its kind keeps the
kind's bounds, at both edges, with pydantic's own messages, and None stays allowed where the
setting's type allows it."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.config import Settings
from mnemo.errors import ConfigError

GE, LE, GT = "greater than or equal to", "less than or equal to", "greater than"

#: (setting, its kind, the values at its edges, (a value past an edge, the message))
CASES: list[tuple[str, str, tuple[Any, ...], tuple[Any, str]]] = [
    ("neighbor_weight", "share", (0, 1), (1.01, f"{LE} 1")),
    ("profile_min_confidence", "share", (0, 1), (-0.01, f"{GE} 0")),
    ("topic_similarity_threshold", "cosine", (-1, 1), (-1.01, f"{GE} -1")),
    ("topic_merge_threshold", "cosine", (-1, 1, None), (1.2, f"{LE} 1")),
    ("speaker_weight", "weight", (0, 1e6), (-1, f"{GE} 0")),
    ("llm_timeout_s", "positive", (1e-9, 1e9), (0, f"{GT} 0")),
    ("sweep_interval_s", "positive", (1e-9, None), (0, f"{GT} 0")),
    ("max_tags", "count", (0, 10**9), (-1, f"{GE} 0")),
    ("min_pool", "size", (1, 10**9), (0, f"{GE} 1")),
    ("dense_window", "size", (1, None), (0, f"{GE} 1")),
    ("llm_max_retries", "retries", (0, 20), (21, f"{LE} 20")),
    ("embed_max_retries", "retries", (0, 20), (-1, f"{GE} 0")),
]


@pytest.mark.parametrize(
    ("name", "kind", "edges", "past"), CASES, ids=[f"{c[1]}-{c[0]}" for c in CASES]
)
def test_a_kind_keeps_its_bounds(
    name: str, kind: str, edges: tuple[Any, ...], past: tuple[Any, str]
) -> None:
    assert kind in {"share", "cosine", "weight", "positive", "count", "size", "retries"}
    for value in edges:
        assert getattr(Settings(**{name: value}), name) == value
    bad, message = past
    with pytest.raises(ConfigError) as err:
        Settings(**{name: bad})
    assert str(err.value) == f"invalid settings: {name}: Input should be {message}"


def test_the_json_schema_states_the_bounds() -> None:
    props = Settings.model_json_schema()["properties"]
    assert (props["neighbor_weight"]["minimum"], props["neighbor_weight"]["maximum"]) == (0, 1)
    assert props["llm_timeout_s"]["exclusiveMinimum"] == 0
    merge = props["topic_merge_threshold"]["anyOf"][0]
    assert (merge["minimum"], merge["maximum"]) == (-1, 1)
    assert props["min_pool"]["minimum"] == 1
