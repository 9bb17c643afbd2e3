"""Memory.audit and AsyncMemory.audit on both stores: the findings of a seeded user, the
safe fixes through history, a person's fix by id, every user at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from audit_support import AFTER_FIX, EXPECTED, seed

from mnemo import AsyncMemory, Memory, ValidationError


def found(report: Any) -> set[tuple[str, str, bool]]:
    return {(f.kind, f.detail, f.fix.safe) for f in report.findings}


def test_the_audit_reports_each_kind_and_changes_nothing(mem: Memory) -> None:
    ids = seed(mem)
    report = mem.audit(user_id="u1")
    assert found(report) == EXPECTED
    assert report.counts == {"duplicate": 1, "contradiction": 1, "stale": 1, "junk": 2}
    assert report.users == 1 and report.facts == 10 and report.applied == 0
    stale = next(f for f in report.findings if f.kind == "stale")
    assert stale.memory_ids == [ids["User lives in Berlin"], ids["User lives in Madrid"]]
    assert stale.fix.action == "supersede" and stale.fix.remove == [ids["User lives in Berlin"]]
    dup = next(f for f in report.findings if f.kind == "duplicate")
    assert dup.fix.keep == ids["User loves jazz"]  # the oldest copy stays
    assert len(mem.list(user_id="u1", limit=100)) == 10
    assert mem.audit(user_id="u1").findings == report.findings  # same ids run after run


def test_fix_applies_the_safe_fixes_through_history(mem: Memory) -> None:
    ids = seed(mem)
    report = mem.audit(user_id="u1", fix=True)
    assert report.applied == 3
    assert {f.kind for f in report.findings if f.applied} == {"junk", "duplicate", "stale"}
    assert {m.content for m in mem.list(user_id="u1", limit=100)} == AFTER_FIX
    history = mem.history(ids["User lives in Berlin"])
    assert [h.event for h in history] == ["ADD", "DELETE"]
    assert history[-1].actor == "audit"
    again = mem.audit(user_id="u1", fix=True)
    assert found(again) == {
        ("junk", "question", False),
        ("contradiction", "origin: Leeds -> York", False),
    }
    assert again.applied == 0


def test_apply_makes_a_persons_choice_by_finding_id(mem: Memory) -> None:
    ids = seed(mem)
    contradiction = next(f for f in mem.audit(user_id="u1").findings if f.kind == "contradiction")
    report = mem.audit(user_id="u1", apply=[contradiction.id])
    assert report.applied == 1 and report.not_found == []
    assert mem.audit(user_id="u1", apply=[contradiction.id]).not_found == [contradiction.id]
    left = {m.content for m in mem.list(user_id="u1", limit=100)}
    assert "User is from Leeds" not in left and "User is from York" in left
    assert mem.history(ids["User is from Leeds"])[-1].actor == "audit"


def test_a_stale_profile_value_is_superseded_by_the_newer_fact(mem: Memory) -> None:
    mem.add_messages(
        [{"role": "user", "content": "I live in Berlin.", "created_at": "2024-01-01T10:00:00Z"}],
        user_id="u2",
    )
    mem.drain()
    mem.add("User lives in Lisbon", user_id="u2", created_at="2024-09-01T10:00:00Z")
    report = mem.audit(user_id="u2")
    stale = [f for f in report.findings if f.kind == "stale"]
    assert [f.detail for f in stale] == ["home: Berlin -> Lisbon"] * len(stale)
    profile = next(f for f in stale if f.memory_ids[0].startswith("pf_"))
    assert not profile.fix.safe and profile.fix.value == "Lisbon"
    mem.audit(user_id="u2", apply=[profile.id])
    [value] = [p for p in mem.profile(user_id="u2") if p.key == "location"]
    assert value.value == "Lisbon"
    assert mem.history(value.id)[-1].actor == "audit"
    assert mem.history(value.id)[-1].event == "UPDATE"
    [old] = [p for p in mem.profile(user_id="u2", include_inactive=True) if not p.active]
    assert old.value == "Berlin" and old.superseded_at is not None
    assert old.superseded_at.year == 2024  # when Lisbon was said, not when the fix ran


def test_every_user_with_a_progress_bar(mem: Memory) -> None:
    seed(mem, "u1")
    seed(mem, "u3")
    steps: list[tuple[str, int]] = []
    done: list[int] = []

    class Bar:
        def __enter__(self) -> Callable[[int], None]:
            return done.append

        def __exit__(self, *exc: object) -> None:
            return None

    def bar(label: str, total: int) -> Bar:
        steps.append((label, total))
        return Bar()

    report = mem.audit(progress=bar)
    assert report.users == 2 and report.counts["duplicate"] == 2
    assert {f.user_id for f in report.findings} == {"u1", "u3"}
    assert steps == [("audit", 2)] and sum(done) == 2


def test_bad_arguments_are_refused(mem: Memory) -> None:
    with pytest.raises(ValidationError):
        mem.audit(user_id="")
    with pytest.raises(ValidationError):
        mem.audit(user_id="u1", apply=["mem_1"])
    with pytest.raises(ValidationError):
        mem.audit(user_id="u1", fix="yes")  # type: ignore[arg-type]


def test_the_async_twin(target: dict[str, str]) -> None:
    async def run() -> None:
        async with AsyncMemory(**target, embedder="hashing") as amem:
            for text, at in (("User likes tea", "2024-01-01"), ("User likes tea.", "2024-01-02")):
                await amem.add(text, user_id="u1", created_at=at)
            report = await amem.audit(user_id="u1", fix=True)
            assert report.counts["duplicate"] == 1 and report.applied == 1
            assert len(await amem.list(user_id="u1")) == 1

    asyncio.run(run())
