"""Memory.audit on both stores: a user the tenant holds nothing of is not found (not audited as
an empty one), and facts that name a person are judged as "User ..." facts are: by the name
the store knows for the user (their turns' name, the profile's, the user id) they are the
user's, by any other leading name that person's."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo import Memory, NotFoundError

JAN, FEB, MAR = "2024-01-01T10:00:00Z", "2024-02-01T10:00:00Z", "2024-03-01T10:00:00Z"


def found(report: Any) -> set[tuple[str, str, bool]]:
    return {(f.kind, f.detail, f.fix.safe) for f in report.findings}


def test_an_unknown_user_is_not_found(mem: Memory) -> None:
    mem.add("User lives in Leeds", user_id="u1")
    with pytest.raises(NotFoundError, match="no user 'nobody' in tenant 'default'"):
        mem.audit(user_id="nobody")
    with pytest.raises(NotFoundError, match="no user 'nobody'"):
        mem.audit(user_id="nobody", fix=True)
    mem.add_messages([{"role": "user", "content": "hello"}], user_id="talker")
    gone = mem.add("User likes tea", user_id="gone")
    mem.delete(gone.id)
    for user_id in ("talker", "gone"):  # a turn, or a deleted memory: the user is there
        report = mem.audit(user_id=user_id)
        assert report.users == 1 and report.facts == 0 and report.findings == []
    assert mem.audit().users == 3  # every user: the tenant's own list


def test_a_fact_naming_the_user_is_about_the_user(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "hi", "name": "Kim", "created_at": JAN}], "k1")
    mem.add("User lives in Leeds", user_id="k1", created_at=JAN)
    mem.add("Kim moved to Bristol", user_id="k1", created_at=FEB)  # the turns' name
    assert found(mem.audit(user_id="k1")) == {("stale", "home: Leeds -> Bristol", True)}

    mem.add("Jo lives in Leeds", user_id="jo", created_at=JAN)  # the user id is the name
    mem.add("Jo lives in Bristol", user_id="jo", created_at=FEB)
    assert found(mem.audit(user_id="jo")) == {("stale", "home: Leeds -> Bristol", True)}
    fixed = mem.audit(user_id="jo", fix=True)
    assert fixed.applied == 1
    assert [m.content for m in mem.list(user_id="jo")] == ["Jo lives in Bristol"]


def test_the_profiles_name_makes_a_fact_the_users(mem: Memory) -> None:
    mem.add_messages(
        [{"role": "user", "content": "My name is Sam.", "created_at": JAN}], user_id="u7"
    )
    mem.drain()
    assert [p.value for p in mem.profile(user_id="u7") if p.key == "name"] == ["Sam"]
    mem.add("User is from Leeds", user_id="u7", created_at=FEB)
    mem.add("Sam is from York", user_id="u7", created_at=MAR)
    assert ("contradiction", "origin: Leeds -> York", False) in found(mem.audit(user_id="u7"))


def test_another_persons_values_are_theirs_alone(mem: Memory) -> None:
    for text, at in (
        ("User lives in Leeds", JAN),
        ("Raj lives in Leeds", JAN),
        ("Raj moved to Bristol", FEB),
        ("Raj's birthday is May 1", JAN),
        ("Raj's birthday is June 2", FEB),
        ("The office moved to Leeds", JAN),  # no name: no subject
        ("The office moved to York", FEB),
    ):
        mem.add(text, user_id="u", created_at=at)
    assert found(mem.audit(user_id="u")) == {
        ("stale", "Raj's home: Leeds -> Bristol", False),  # a person decides: two Rajs?
        ("contradiction", "Raj's birthday: May 1 -> June 2", False),
    }
