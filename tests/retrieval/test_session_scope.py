"""``session_id`` narrows a search to one conversation, always; ``current_session`` names the
conversation being answered, which widens to the user's other sessions while it is small
(``cross_session_threshold``), as context assembly and the chat proxy do."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mnemo import Memory, SearchQuery, ValidationError

OpenMem = Callable[..., Memory]


def two_trips(mem: Memory) -> None:
    mem.add_messages([{"role": "user", "content": "My flight to Lisbon leaves from gate B12"}],
                     "al", "r1")  # fmt: skip
    mem.add_messages([{"role": "user", "content": "The Oslo flight boards at gate C7"}],
                     "al", "r2")  # fmt: skip


def test_session_id_narrows_even_a_small_session(open_mem: OpenMem) -> None:
    mem = open_mem()
    two_trips(mem)
    assert mem.settings.cross_session_threshold > 2  # r1 is small: the old rule widened it
    hits = mem.search("which gate?", user_id="al", session_id="r1")
    assert hits and {h.session_id for h in hits} == {"r1"}


def test_current_session_widens_while_it_is_small(open_mem: OpenMem) -> None:
    mem = open_mem()
    two_trips(mem)
    hits = mem.search("which gate?", user_id="al", current_session="r1")
    assert {h.session_id for h in hits} == {"r1", "r2"}
    never = open_mem(cross_session_threshold=0)  # agent-cli's rule: the conversation only
    two_trips(never)
    assert {h.session_id for h in never.search("gate", "al", current_session="r1")} == {"r1"}


def test_context_answers_its_session_and_widens(open_mem: OpenMem) -> None:
    mem = open_mem()
    two_trips(mem)
    bundle = mem.context("which gate?", "al", "r1", min_relevance=0, min_expected_evidence=0)
    assert {i.session_id for i in bundle.hits() if i.kind == "message"} >= {"r1", "r2"}


def test_one_session_argument_at_a_time() -> None:
    with pytest.raises(ValidationError, match="not both"):
        SearchQuery(query="gate", user_id="al", session_id="r1", current_session="r2")
