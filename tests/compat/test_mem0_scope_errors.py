"""What mnemo.compat.mem0 says to a call that names no owner, on both backends: given no id
at all, that one of user_id, agent_id or run_id is needed (as mem0 says); given a run_id
alone, that a run does not say whose memories these are; given an empty id (``user_id=""``),
that it is empty. Nothing is written in any case."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mnemo import Memory as Mnemo
from mnemo.compat.mem0 import Memory

NO_IDS = "at least one of user_id, agent_id or run_id must be given"
RUN_ALONE = "run_id alone does not say whose memories these are"


@pytest.fixture
def m(open_mem: Callable[..., Mnemo]) -> Memory:
    """A compat Memory on a fresh store of each backend."""
    return Memory(memory=open_mem())


CALLS: dict[str, Callable[..., Any]] = {
    "search": lambda m, **ids: m.search("x", **ids),
    "get_all": lambda m, **ids: m.get_all(**ids),
    "add": lambda m, **ids: m.add("I like tea", infer=False, **ids),
    "delete_all": lambda m, **ids: m.delete_all(**ids),
}


@pytest.mark.parametrize("call", CALLS)
def test_the_message_says_what_was_missing(m: Memory, call: str) -> None:
    run = CALLS[call]
    filtered = call in ("search", "get_all")  # the reads take mem0 2.x's filters too
    for ids in ({}, *([{"filters": {}}] if filtered else [])):
        with pytest.raises(ValueError) as none_given:
            run(m, **ids)
        assert NO_IDS in str(none_given.value) and "run_id alone" not in str(none_given.value)
    for ids in ({"run_id": "r1"}, *([{"filters": {"run_id": "r1"}}] if filtered else [])):
        with pytest.raises(ValueError, match=RUN_ALONE):
            run(m, **ids)
    empty: list[tuple[dict[str, Any], str]] = [
        ({"user_id": ""}, "user_id"),
        ({"user_id": " "}, "user_id"),
        ({"agent_id": ""}, "agent_id"),
        ({"user_id": "u", "run_id": ""}, "run_id"),
        *([({"filters": {"user_id": ""}}, "user_id")] if filtered else []),
    ]
    for ids, key in empty:
        with pytest.raises(ValueError) as blank:
            run(m, **ids)
        assert str(blank.value) == f"{key} is empty: give an id, or leave {key} out"
    assert m.mnemo.list() == [] and m.mnemo.messages() == []
