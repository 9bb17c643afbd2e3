"""mnemo.compat.mem0_import on both backends: a mem0 ``get_all`` dump keeps its ids (through
``metadata["mem0_id"]``), scopes, metadata and creation times; bad dumps write nothing; re-runs
skip what is there."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemo import Memory as Mnemo
from mnemo.compat.mem0 import Memory
from mnemo.compat.mem0_import import import_mem0
from mnemo.errors import ValidationError

#: What mem0's get_all answered (the shape of mem0's MemoryItem plus its promoted scope keys).
DUMP: dict[str, Any] = {
    "results": [
        {
            "id": "0b9a4c1e-5f7d-4a57-9d1c-2a6f3f0e9b11",
            "memory": "Name is Alex. Enjoys basketball.",
            "hash": "d1c5...",
            "metadata": {"category": "personal"},
            "created_at": "2025-10-22T04:40:22.864647-07:00",
            "updated_at": "2025-10-23T09:00:00-07:00",
            "user_id": "alex",
        },
        {
            "id": "6f1b2c3d-0000-4000-8000-000000000002",
            "memory": "Prefers answers in French",
            "metadata": None,
            "created_at": "2025-01-05T10:00:00+00:00",
            "updated_at": None,
            "user_id": "alex",
            "agent_id": "tutor",
            "run_id": "lesson-3",
        },
        {
            "id": "6f1b2c3d-0000-4000-8000-000000000003",
            "memory": "Always cite sources",
            "created_at": "2025-01-06T10:00:00+00:00",
            "agent_id": "tutor",
        },
    ]
}


def test_a_mem0_dump_keeps_ids_scopes_metadata_and_times(
    open_mem: Callable[..., Mnemo], tmp_path: Path
) -> None:
    mem = open_mem()
    dump = tmp_path / "mem0.json"
    dump.write_text(json.dumps(DUMP), encoding="utf-8")
    done = import_mem0(mem, str(dump))
    assert (done.imported, done.skipped) == (3, 0)
    m = Memory(memory=mem)
    alex = m.get("0b9a4c1e-5f7d-4a57-9d1c-2a6f3f0e9b11")
    assert alex is not None and alex["memory"] == "Name is Alex. Enjoys basketball."
    assert alex["metadata"] == {
        "category": "personal", "mem0_id": "0b9a4c1e-5f7d-4a57-9d1c-2a6f3f0e9b11",
    }  # fmt: skip
    assert alex["created_at"] == "2025-10-22T11:40:22.864647+00:00" and alex["user_id"] == "alex"
    private = m.get("6f1b2c3d-0000-4000-8000-000000000002")
    assert private is not None
    assert (private["user_id"], private["agent_id"], private["run_id"]) == (
        "alex", "tutor", "lesson-3",
    )  # fmt: skip
    # as in mem0: an agent's memories are all those stored with it, whatever the user
    assert [i["memory"] for i in m.get_all(filters={"agent_id": "tutor"})["results"]] == [
        "Always cite sources", "Prefers answers in French",
    ]  # fmt: skip
    seen = {i["memory"] for i in m.get_all(filters={"user_id": "alex"})["results"]}
    assert seen == {"Name is Alex. Enjoys basketball.", "Prefers answers in French"}
    # the old ids keep working for the calls that take one
    old = "6f1b2c3d-0000-4000-8000-000000000003"
    m.update(old, text="Always cite two sources")
    assert [h["event"] for h in m.history(old)] == ["ADD", "UPDATE"]
    m.delete(old)
    assert m.get(old) is None
    # a re-run writes nothing twice (the deleted one comes back: it is not in the store)
    again = import_mem0(mem, DUMP)
    assert (again.imported, again.skipped) == (1, 2)
    assert mem.count("alex") == 2


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"results": [{"memory": "x", "user_id": "u"}]}, "has no id"),
        ({"results": [{"id": "a", "memory": "", "user_id": "u"}]}, "no memory text"),
        ({"results": [{"id": "a", "memory": "x"}]}, "neither user_id nor agent_id"),
        ({"results": [{"id": "a", "memory": "x", "user_id": "u", "metadata": [1]}]}, "metadata"),
        (
            {"results": [{"id": "a", "memory": "x", "user_id": "u", "created_at": "soon"}]},
            "created_at",
        ),
        ({"memories": []}, "a mem0 dump is"),
    ],
)
def test_a_bad_dump_writes_nothing(
    open_mem: Callable[..., Mnemo], bad: dict[str, Any], message: str
) -> None:
    mem = open_mem()
    good = {"id": "ok-1", "memory": "fine", "user_id": "u"}
    items = bad.get("results")
    dump = {"results": [good, *items]} if isinstance(items, list) else bad
    with pytest.raises(ValidationError, match=message):
        import_mem0(mem, dump)
    assert mem.list() == []
