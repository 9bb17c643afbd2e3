"""A `mnemo export` file merges into a store that already holds data (a per-user export into
a live store, a restore of a user who kept writing): what the store lacks is added with new
rowids, what it has is kept, a conflict writes nothing, and a second run adds nothing. On both
stores."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mnemo import Memory, ValidationError
from mnemo.ops.export import export_store
from mnemo.ops.restore import import_store
from mnemo.storage.base import NewProfileFact
from mnemo.storage.ports.conversation import ProfileQuery

QUIET: dict[str, Any] = {
    "fact_extraction": "off",
    "profile_enabled": False,
    "episodes_enabled": False,
}
NOW = datetime(2030, 1, 1, tzinfo=UTC)


def export_text(location: str, user: tuple[str, str] | None = None) -> str:
    out = io.StringIO()
    export_store(location, out, user)
    return out.getvalue()


def put_fact(mem: Memory, user: str, value: str) -> None:
    row = NewProfileFact(
        id=f"pf_{user}_{value}",
        tenant="default",
        user_id=user,
        category="preference",
        key="drink",
        value=value,
        confidence=1.0,
        importance=0.9,
        source_message_ids=[],
    )
    mem.store.conversation.put_profile_fact(
        row, "test", lambda current, seq: "ADD" if current is None else "UPDATE"
    )


def seed_alice(path: str) -> None:
    """Alice's data in a store of her own: turns, tagged memories, a document, a fact."""
    with Memory(path, embedder="hashing", **QUIET) as mem:
        mem.add_messages(
            [{"role": "user", "content": f"alice talks about hiking trip {i}"} for i in range(6)],
            "alice",
            "s1",
        )
        mem.add("alice loves green tea", user_id="alice", tags=["drink", "pref"])
        mem.add("alice owns a red bike", user_id="alice", tags=["stuff"])
        mem.attach_document("Alice's allergy: peanuts.", "alice", title="notes")
        put_fact(mem, "alice", "tea")


@pytest.fixture
def location(target: dict[str, str]) -> str:
    """A live store with other users' data (its rowids overlap the file's)."""
    with Memory(**target, embedder="hashing", **QUIET) as mem:
        for u in ("bob", "carol"):
            mem.add_messages(
                [{"role": "user", "content": f"{u} writes about chess {i}"} for i in range(8)], u
            )
            mem.add(f"{u} plays chess", user_id=u, tags=["drink"])
            mem.attach_document(f"{u}'s notes about chess.", u, title=f"{u}-notes")
    return target.get("path") or target["url"]


def view(location: str, user: str) -> dict[str, Any]:
    """What a user sees: turns, memories by tag, documents and their text, search hits."""
    kw = {"url": location} if "://" in location else {"path": location}
    with Memory(**kw, embedder="hashing", **QUIET) as mem:
        return {
            "turns": [m.content for m in mem.messages(user, limit=100)],
            "drink": sorted(m.content for m in mem.list(user_id=user, tag="drink")),
            "all": sorted(m.content for m in mem.list(user_id=user)),
            "docs": [(d.title, d.content) for d in mem.documents(user)],
            "profile": [
                (f.key, f.value, f.active)
                for f in mem.store.conversation.profile_facts(
                    ProfileQuery("default", user, include_inactive=True)
                )
            ],
            "hits": [
                h.content for h in mem.search("hiking trip tea", user_id=user, limit=5, now=NOW)
            ],
        }


def test_a_per_user_export_merges_into_a_live_store(location: str, tmp_path: Path) -> None:
    src = str(tmp_path / "alice.db")
    seed_alice(src)
    text = export_text(src, ("default", "alice"))
    others = {u: view(location, u) for u in ("bob", "carol")}
    report = import_store(location, io.StringIO(text))
    assert report.rows["messages"] == 6 and report.rows["memory_tags"] == 3
    assert report.kept == {}
    assert view(location, "alice") == view(src, "alice")  # tags and chunks follow their rows
    assert {u: view(location, u) for u in ("bob", "carol")} == others  # untouched
    again = import_store(location, io.StringIO(text))  # a second run adds nothing
    assert again.total == 0 and again.kept["messages"] == 6 and again.kept["memory_tags"] == 3
    assert view(location, "alice") == view(src, "alice")


def test_a_user_who_kept_writing_keeps_the_new_rows(location: str, tmp_path: Path) -> None:
    src = str(tmp_path / "alice.db")
    seed_alice(src)
    text = export_text(src, ("default", "alice"))
    import_store(location, io.StringIO(text))
    kw = {"url": location} if "://" in location else {"path": location}
    with Memory(**kw, embedder="hashing", **QUIET) as mem:
        item = mem.list(user_id="alice", tag="pref")[0]
        mem.update(item.id, content="alice now prefers black coffee", tags=["drink"])
        mem.add_messages([{"role": "user", "content": "alice went climbing"}], "alice", "s1")
        put_fact(mem, "alice", "coffee")  # the active drink is now coffee
    after = view(location, "alice")
    report = import_store(location, io.StringIO(text))  # the old backup, restored
    assert report.total == 0 and report.kept["memories"] == 2 and report.kept["history"] >= 2
    assert view(location, "alice") == after  # nothing of the newer state is lost


def test_an_active_profile_fact_clash_is_imported_inactive(location: str, tmp_path: Path) -> None:
    src = str(tmp_path / "alice.db")
    seed_alice(src)
    kw = {"url": location} if "://" in location else {"path": location}
    with Memory(**kw, embedder="hashing", **QUIET) as mem:
        put_fact(mem, "alice", "water")
    import_store(location, io.StringIO(export_text(src, ("default", "alice"))))
    facts = view(location, "alice")["profile"]
    assert ("drink", "water", True) in facts and ("drink", "tea", False) in facts


def test_an_id_of_another_user_is_a_conflict(location: str, tmp_path: Path) -> None:
    src = str(tmp_path / "alice.db")
    seed_alice(src)
    text = export_text(src, ("default", "alice"))
    lines = [json.loads(x) for x in text.splitlines()]
    kw = {"url": location} if "://" in location else {"path": location}
    with Memory(**kw, embedder="hashing", **QUIET) as mem:
        bobs = mem.list(user_id="bob")[0].id
    row = next(x["row"] for x in lines if x.get("table") == "memories")
    row["id"] = bobs  # the file claims bob's memory for alice
    before = export_text(location)
    with pytest.raises(ValidationError, match="already belongs to another user"):
        import_store(location, io.StringIO("".join(json.dumps(x) + "\n" for x in lines)))
    assert export_text(location) == before
    twice = text + text.splitlines()[-1] + "\n"
    with pytest.raises(ValidationError, match="in the file twice"):
        import_store(location, io.StringIO(twice))
    assert export_text(location) == before


def test_a_whole_store_export_merges_too(location: str, tmp_path: Path) -> None:
    src = str(tmp_path / "alice.db")
    seed_alice(src)
    import_store(location, io.StringIO(export_text(src)))
    assert view(location, "alice") == view(src, "alice")
    assert view(location, "bob")["all"] == ["bob plays chess"]
