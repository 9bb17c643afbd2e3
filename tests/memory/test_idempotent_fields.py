"""An idempotency key of ``Memory.add`` is bound to every field the caller gave: a reuse that
differs in any one of them (each caller-given field of the memory field table, in turn) is a
conflicting reuse and writes nothing; a retry with the same fields returns the first memory,
whatever the server computed in between. On SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo import Memory, ValidationError
from mnemo.memory_fields import GIVEN

BASE: dict[str, Any] = {"content": "Ann is vegetarian", "user_id": "u1"}
#: Two different values of each caller-given field (the first is what the first call gives).
VALUES: dict[str, tuple[Any, Any]] = {
    "content": ("Ann is vegetarian", "Ann eats fish"),
    "user_id": ("u1", "u2"),
    "session_id": ("s1", "s2"),
    "kind": ("fact", "note"),
    "tags": (["diet"], ["food"]),
    "metadata": ({"source": "chat"}, {"source": "form"}),
    "importance": (0.5, 0.9),
    "confidence": (1.0, 0.4),
    "source_message_ids": (["msg_a"], ["msg_b"]),
    "created_at": ("2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"),
    "expires_at": ("2999-01-01T00:00:00Z", "2999-01-02T00:00:00Z"),
    "ttl_seconds": (3600, 7200),
    "agent_id": ("planner", "writer"),
}


def test_every_caller_given_field_has_values_here() -> None:
    assert set(VALUES) == set(GIVEN)


@pytest.mark.parametrize("name", GIVEN)
def test_a_reuse_differing_in_one_given_field_is_refused(mem: Memory, name: str) -> None:
    first_value, other_value = VALUES[name]
    first = mem.add(**{**BASE, name: first_value}, idempotency_key="k1")
    again = mem.add(**{**BASE, name: first_value}, idempotency_key="k1")
    assert again.id == first.id  # the same call: the first memory
    with pytest.raises(ValidationError, match="different request"):
        mem.add(**{**BASE, name: other_value}, idempotency_key="k1")
    users = {"u1", "u2"} if name == "user_id" else {"u1"}
    assert sum(len(mem.list(u, limit=100)) for u in users) == 1  # nothing more was written


def test_what_the_server_computes_is_not_part_of_the_request(open_mem: Any) -> None:
    mem = open_mem(default_ttl_seconds=3600)
    first = mem.add(**BASE, ttl_seconds=60, idempotency_key="k-ttl")
    # a moment later the same ttl gives another expiry time, and no created_at another now
    assert mem.add(**BASE, ttl_seconds=60, idempotency_key="k-ttl").id == first.id
    by_default = mem.add(**BASE, idempotency_key="k-default")  # the default ttl applies
    assert by_default.expires_at is not None
    assert mem.add(**BASE, idempotency_key="k-default").id == by_default.id
