"""mnemo.compat.mem0 against mem0's own API, on both backends with the hashing embedder.

The shapes are those of mem0's OSS code (mem0/memory/main.py and mem0/configs/base.py of
mem0 2.x): ``MemoryItem`` fields for get/get_all/search items, the ``history`` table's columns
for history rows, ``{"results": [...]}`` and ``{"message": ...}`` envelopes. The quickstart is
mem0's own (docs/open-source/python-quickstart.mdx), with only its import changed.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from mnemo import Memory as Mnemo
from mnemo.compat.mem0 import AsyncMemory, Memory
from mnemo.errors import ConfigError, NotFoundError, ValidationError
from mnemo.memory.threaded import public_methods

#: mem0's ``MemoryItem`` (mem0/configs/base.py) fields, the keys of every listed item.
ITEM_KEYS = {"id", "memory", "hash", "metadata", "created_at", "updated_at"}
#: the columns mem0's ``SQLiteManager.get_history`` returns for each change.
HISTORY_KEYS = {
    "id", "memory_id", "old_memory", "new_memory", "event", "created_at", "updated_at",
    "is_deleted", "actor_id", "role",
}  # fmt: skip


@pytest.fixture
def open_m0(open_mem: Callable[..., Mnemo]) -> Callable[..., Memory]:
    """Open compat Memories over conftest's ``open_mem`` (hashing embedder, the test's store;
    closed afterwards by it)."""
    return lambda **overrides: Memory(memory=open_mem(**overrides))


@pytest.fixture
def m(open_m0: Callable[..., Memory]) -> Memory:
    """A compat Memory on a fresh store of each backend."""
    return open_m0()


def default_store_env(target: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Point mnemo's default store (``Memory()`` with no argument) at the test's store."""
    monkeypatch.setenv("MNEMO_EMBEDDER", "hashing")
    if "path" in target:
        monkeypatch.setenv("MNEMO_PATH", target["path"])
    else:
        monkeypatch.setenv("MNEMO_DATABASE_URL", target["url"])


def test_mem0_quickstart_runs_with_only_the_import_changed(
    target: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    default_store_env(target, monkeypatch)
    # --- mem0's quickstart, import changed -------------------------------------------------
    from mnemo.compat.mem0 import Memory

    m = Memory()
    messages = [
        {"role": "user", "content": "Hi, I'm Alex. I love basketball and gaming."},
        {"role": "assistant", "content": "Hey Alex! I'll remember your interests."},
    ]
    m.add(messages, user_id="alex")
    results = m.search("What do you know about me?", filters={"user_id": "alex"})
    # ---------------------------------------------------------------------------------------
    try:
        found = [r["memory"] for r in results["results"]]
        assert any("basketball" in f for f in found), found
        assert all(r["user_id"] == "alex" for r in results["results"])
        # the turns are kept too (mnemo's event log)
        assert [t.content for t in m.mnemo.messages(user_id="alex")] == [
            "Hi, I'm Alex. I love basketball and gaming.",
            "Hey Alex! I'll remember your interests.",
        ]
    finally:
        m.close()


def test_add_infer_reports_the_fact_tiers_changes(m: Memory) -> None:
    added = m.add(
        [{"role": "user", "content": "I live in Paris"}, {"role": "assistant", "content": "Ok"}],
        user_id="alex",
        metadata={"category": "home"},
    )
    assert [set(r) for r in added["results"]] == [{"id", "memory", "event"}]
    (paris,) = added["results"]
    assert paris["event"] == "ADD" and "Paris" in paris["memory"]
    assert m.get(paris["id"])["metadata"]["category"] == "home"  # type: ignore[index]
    moved = m.add("Actually I moved to Berlin", user_id="alex")["results"]
    # mnemo reconciles: the Paris fact is updated, not joined by a contradicting one
    assert [(r["id"], r["event"]) for r in moved] == [(paris["id"], "UPDATE")]
    assert moved[0]["previous_memory"] == paris["memory"] and "Berlin" in moved[0]["memory"]
    # nothing new to learn: no event
    assert m.add("ok", user_id="alex")["results"] == []


def test_add_without_infer_stores_each_message_verbatim(m: Memory) -> None:
    out = m.add(
        [{"role": "user", "content": "Likes tea"}, {"role": "user", "content": "Hates rain"}],
        user_id="u1",
        infer=False,
    )
    assert [(r["memory"], r["event"]) for r in out["results"]] == [
        ("Likes tea", "ADD"),
        ("Hates rain", "ADD"),
    ]
    # each message is a turn of the conversation too, which the memory stands for
    assert [t.content for t in m.mnemo.messages(user_id="u1")] == ["Likes tea", "Hates rain"]
    assert [m.get(r["id"])["memory"] for r in out["results"]] == ["Likes tea", "Hates rain"]  # type: ignore[index]
    assert (
        m.add({"role": "user", "content": "One dict"}, user_id="u1", infer=False)["results"][0][
            "memory"
        ]
        == "One dict"
    )


def test_item_and_history_shapes_field_by_field(m: Memory) -> None:
    (added,) = m.add("Likes green tea", user_id="u1", run_id="r1", infer=False,
                     metadata={"source": "chat"})["results"]  # fmt: skip
    got = m.get(added["id"])
    assert got is not None and set(got) == ITEM_KEYS | {"user_id", "run_id"}
    assert got["id"] == added["id"] and got["memory"] == "Likes green tea"
    assert got["hash"] == hashlib.md5(b"Likes green tea").hexdigest()  # as mem0 hashes
    assert got["metadata"] == {"source": "chat"}
    assert (got["user_id"], got["run_id"]) == ("u1", "r1")
    assert got["created_at"].endswith("+00:00") and got["updated_at"] >= got["created_at"]
    (listed,) = m.get_all(filters={"user_id": "u1"})["results"]
    assert listed == got  # get_all items carry no score, as in mem0
    (hit,) = m.search("green tea", filters={"user_id": "u1"})["results"]
    assert set(hit) == set(got) | {"score"} and isinstance(hit["score"], float)
    assert {k: v for k, v in hit.items() if k != "score"} == got
    assert m.update(added["id"], text="Likes black tea") == {
        "message": "Memory updated successfully!"
    }
    assert m.update(added["id"], data="Likes oolong") == {"message": "Memory updated successfully!"}
    assert m.delete(added["id"]) == {"message": "Memory deleted successfully!"}
    history = m.history(added["id"])
    assert all(set(h) == HISTORY_KEYS for h in history)
    assert [(h["event"], h["old_memory"], h["new_memory"], h["is_deleted"]) for h in history] == [
        ("ADD", None, "Likes green tea", 0),
        ("UPDATE", "Likes green tea", "Likes black tea", 0),
        ("UPDATE", "Likes black tea", "Likes oolong", 0),
        ("DELETE", "Likes oolong", None, 1),
    ]
    assert m.get(added["id"]) is None  # mem0 returns None for a missing memory
    with pytest.raises(NotFoundError):
        m.delete("mem_unknown")


def test_scopes_users_agents_runs(m: Memory) -> None:
    m.add("alice likes jazz", user_id="alice", infer=False)
    m.add("bob likes jazz", user_id="bob", infer=False)
    m.add("alice's bot prefers short answers", user_id="alice", agent_id="bot", infer=False)
    m.add("bot's own rule: be brief", agent_id="bot", infer=False)
    m.add("alice in run 7", user_id="alice", run_id="r7", infer=False)

    def texts(result: dict[str, Any]) -> set[str]:
        return {r["memory"] for r in result["results"]}

    assert texts(m.get_all(filters={"user_id": "bob"})) == {"bob likes jazz"}
    # mem0 1.x top-level ids are accepted as well as 2.x filters
    assert texts(m.get_all(user_id="alice", run_id="r7")) == {"alice in run 7"}
    assert texts(m.get_all(filters={"user_id": "alice", "run_id": "r7"})) == {"alice in run 7"}
    # as in mem0, agent_id selects the memories stored with that agent, whatever the user
    assert texts(m.get_all(filters={"agent_id": "bot"})) == {
        "bot's own rule: be brief", "alice's bot prefers short answers",
    }  # fmt: skip
    assert texts(m.get_all(filters={"user_id": "alice", "agent_id": "bot"})) == {
        "alice's bot prefers short answers"
    }
    assert texts(m.search("jazz", filters={"user_id": "bob"})) == {"bob likes jazz"}
    assert texts(m.search("jazz", user_id="bob", top_k=5)) == {"bob likes jazz"}
    with pytest.raises(ValueError, match="user_id or agent_id"):
        m.get_all(filters={"run_id": "r7"})
    with pytest.raises(ValueError, match="user_id or agent_id"):
        m.add("orphan", infer=False)
    assert m.delete_all(user_id="alice", run_id="r7") == {
        "message": "Memories deleted successfully!"
    }
    assert "alice in run 7" not in texts(m.get_all(user_id="alice"))
    assert len(m.get_all(user_id="alice")["results"]) == 2
    m.delete_all(agent_id="bot")
    assert m.get_all(agent_id="bot")["results"] == []
    assert texts(m.get_all(user_id="bob")) == {"bob likes jazz"}
    assert texts(m.get_all(user_id="alice", agent_id="bot")) == set()


def test_filters_in_mem0_syntax_and_limits(m: Memory) -> None:
    for text, category, priority in [
        ("Dentist on Monday", "health", 3),
        ("Team sync on Monday", "work", 1),
        ("Gym on Monday", "health", 1),
    ]:
        m.add(text, user_id="u", infer=False, metadata={"category": category, "priority": priority})

    def texts(result: dict[str, Any]) -> set[str]:
        return {r["memory"] for r in result["results"]}

    assert texts(m.search("Monday", filters={"user_id": "u", "category": "health"})) == {
        "Dentist on Monday", "Gym on Monday",
    }  # fmt: skip
    assert texts(m.get_all(filters={"user_id": "u", "priority": {"gte": 2}})) == {
        "Dentist on Monday"
    }
    assert texts(m.get_all(filters={"user_id": "u", "NOT": {"category": "health"}})) == {
        "Team sync on Monday"
    }
    assert len(m.search("Monday", filters={"user_id": "u"}, top_k=2)["results"]) == 2
    assert len(m.get_all(user_id="u", limit=1)["results"]) == 1
    assert m.search("Monday", filters={"user_id": "u"}, threshold=1e9)["results"] == []
    with pytest.raises(ValueError, match="top_k"):
        m.search("Monday", filters={"user_id": "u"}, top_k=-1)
    with pytest.raises(ValueError, match="threshold"):
        m.search("Monday", filters={"user_id": "u"}, threshold="high")  # type: ignore[arg-type]


def test_reset_erases_the_tenant_and_only_it(open_m0: Callable[..., Memory]) -> None:
    mine, other = open_m0(), open_m0(tenant="other")
    mine.add("I like tea", user_id="u1", infer=True)
    mine.add("bot rule", agent_id="bot", infer=False)
    other.add("keep me", user_id="u1", infer=False)
    assert mine.reset() is None
    assert mine.get_all(user_id="u1")["results"] == []
    assert mine.get_all(agent_id="bot")["results"] == []
    assert mine.mnemo.messages(user_id="u1") == [] and mine.mnemo.users() == []
    assert [r["memory"] for r in other.get_all(user_id="u1")["results"]] == ["keep me"]


def test_bad_input_is_a_clear_error_and_changes_nothing(m: Memory) -> None:
    with pytest.raises(ValueError, match="messages must be"):
        m.add(42, user_id="u")
    with pytest.raises(ValueError, match="mem0 features"):
        m.add("x", user_id="u", memory_type="procedural_memory")
    with pytest.raises(ValueError, match="At least one"):
        m.update("mem_x")
    with pytest.raises(ValueError, match="different values"):
        m.get_all(user_id="a", filters={"user_id": "b"})
    assert m.mnemo.list() == [] and m.mnemo.messages() == []


def test_from_config_takes_mnemo_settings_and_refuses_mem0s(target: dict[str, str]) -> None:
    with Memory.from_config({**target, "embedder": "hashing"}) as m:
        m.add("x likes y", user_id="u", infer=False)
        assert isinstance(m.mnemo, Mnemo) and m.settings.embedder == "hashing"
    with pytest.raises(ConfigError, match="vector_store"):
        Memory.from_config({"vector_store": {"provider": "qdrant"}})
    with pytest.raises(ConfigError, match="embedder"):
        Memory.from_config({"embedder": {"provider": "openai"}})
    # mem0's API version, which mem0 configs commonly carry: accepted and ignored
    with Memory.from_config({**target, "embedder": "hashing", "version": "v1.1"}) as m:
        assert m.search("likes", user_id="u")["results"][0]["memory"] == "x likes y"
    with pytest.raises(ConfigError, match=r"\['llm'\] configure mem0's own providers"):
        Memory.from_config({"version": "v1.1", "llm": {"provider": "openai"}})
    with pytest.raises(ValidationError, match="not both"):
        Memory(memory=Mnemo(":memory:", embedder="hashing"), path="x.db")


def test_async_memory_is_generated_from_memory(target: dict[str, str]) -> None:
    sync_api = set(public_methods(Memory))
    assert sync_api <= set(public_methods(AsyncMemory))
    for name in sync_api - {"close", "from_config"}:
        twin = getattr(AsyncMemory, name)
        assert inspect.iscoroutinefunction(twin), name
        assert inspect.signature(twin) == inspect.signature(getattr(Memory, name)), name

    async def main() -> None:
        async with AsyncMemory(**target, embedder="hashing") as a:
            added = await a.add("I like tea", user_id="u1", infer=False)
            (hit,) = (await a.search("tea", filters={"user_id": "u1"}))["results"]
            assert hit["id"] == added["results"][0]["id"]
            got = await a.get(hit["id"])
            assert got is not None and got["memory"] == "I like tea"
            learned = await a.add("I live in Lisbon", user_id="u1")
            assert [r["event"] for r in learned["results"]] == ["ADD"]
            listed = {r["memory"] for r in (await a.get_all(user_id="u1"))["results"]}
            assert {"I like tea", "User lives in Lisbon"} <= listed
            assert "I live in Lisbon" not in listed  # an inferred add lists what it inferred
            await a.delete_all(user_id="u1")
            assert (await a.get_all(user_id="u1"))["results"] == []

    asyncio.run(main())
    a = AsyncMemory.from_config({**target, "embedder": "hashing"})
    assert isinstance(a, AsyncMemory) and isinstance(a.sync, Memory)
    asyncio.run(a.close())


def test_events_report_a_delete_only_for_a_memory_that_is_gone(m: Memory) -> None:
    kept = m.mnemo.add("Likes tea", "u1")
    gone = m.mnemo.add("Likes coffee", "u1")
    before = {kept.id: kept, gone.id: gone}
    m.mnemo.delete(gone.id)
    # kept is missing from the later snapshot only (as past a listing window): no event for it
    assert m._changes(before, {}) == [{"id": gone.id, "memory": "Likes coffee", "event": "DELETE"}]
