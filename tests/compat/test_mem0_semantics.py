"""mnemo.compat.mem0 gives mem0's answers (issue 33), on both backends with the hashing embedder.

mem0 keeps ``user_id``, ``agent_id`` and ``run_id`` in each memory's payload and a filter is a
conjunction over it (mem0/memory/main.py: ``_build_filters_and_metadata``, ``search``,
``get_all``): ``run_id`` narrows a search as it narrows ``get_all``; ``agent_id`` is exactly
the memories stored with that agent; every other filter key is a metadata key, and a filtered
search ranks the whole filtered set. Messages are conversation turns, each with a memory
standing for it, whose id works everywhere an id is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mnemo import Memory as Mnemo
from mnemo.compat.mem0 import Memory
from mnemo.errors import ValidationError


@pytest.fixture
def m(open_mem: Callable[..., Mnemo]) -> Memory:
    """A compat Memory on a fresh store of each backend (closed by ``open_mem``)."""
    return Memory(memory=open_mem())


def texts(result: dict[str, Any]) -> list[str]:
    return [r["memory"] for r in result["results"]]


def test_run_id_narrows_search_as_it_narrows_get_all(m: Memory) -> None:
    m.add("I like jazz music", user_id="sam", run_id="r1", infer=False)
    m.add("I play jazz guitar", user_id="sam", run_id="r2", infer=False)
    nowhere = {"user_id": "sam", "run_id": "nonexistent-run"}
    assert m.search("jazz", filters=nowhere)["results"] == []
    assert m.get_all(filters=nowhere)["results"] == []
    assert texts(m.search("jazz", filters={"user_id": "sam", "run_id": "r2"})) == [
        "I play jazz guitar"
    ]
    assert texts(m.search("jazz", user_id="sam", run_id="r1")) == ["I like jazz music"]
    assert len(m.search("jazz", filters={"user_id": "sam"})["results"]) == 2


def test_agent_id_is_the_memories_stored_with_that_agent(m: Memory) -> None:
    m.add("alice likes running shoes", user_id="alice", infer=False)
    m.add("coach: alice runs 5k on running days", user_id="alice", agent_id="coach", infer=False)
    m.add("coach: bob runs on running tracks", user_id="bob", agent_id="coach", infer=False)
    m.add("coach rule: running plans are weekly", agent_id="coach", infer=False)
    both = {"user_id": "alice", "agent_id": "coach"}
    assert texts(m.search("running", filters=both)) == ["coach: alice runs 5k on running days"]
    assert texts(m.get_all(filters=both)) == ["coach: alice runs 5k on running days"]
    everywhere = {
        "coach: alice runs 5k on running days",
        "coach: bob runs on running tracks",
        "coach rule: running plans are weekly",
    }
    assert set(texts(m.get_all(agent_id="coach"))) == everywhere
    assert set(texts(m.search("running", filters={"agent_id": "coach"}))) == everywhere
    assert len(texts(m.search("running", filters={"agent_id": "coach"}, top_k=2))) == 2
    assert len(texts(m.get_all(filters={"user_id": "alice"}))) == 2  # the user: all of it
    m.delete_all(agent_id="coach")  # as in mem0: every memory stored with the agent
    assert texts(m.get_all(filters={"user_id": "alice"})) == ["alice likes running shoes"]
    assert m.get_all(filters={"user_id": "bob"})["results"] == []


def test_an_inferred_add_with_metadata_has_one_add_in_history(m: Memory) -> None:
    (fact,) = m.add("I live in Paris", user_id="u", metadata={"source": "chat"})["results"]
    assert fact["event"] == "ADD"
    assert [(h["event"], h["new_memory"]) for h in m.history(fact["id"])] == [
        ("ADD", fact["memory"])
    ]
    got = m.get(fact["id"])
    assert got is not None and got["metadata"] == {"source": "chat"}


def test_engine_keys_stay_out_of_the_callers_metadata(m: Memory) -> None:
    (fact,) = m.add("I live in Paris", user_id="u")["results"]
    (said,) = m.add("Plays chess on Sundays", user_id="u", infer=False)["results"]
    shown = [m.get(fact["id"]), m.get(said["id"])]
    shown += m.get_all(filters={"user_id": "u"})["results"]
    shown += m.search("Paris chess", filters={"user_id": "u"})["results"]
    assert len(shown) >= 4 and all(r is not None and r["metadata"] is None for r in shown)
    assert m.mnemo.get_memory(fact["id"]).metadata["extracted_by"] == "rules"  # still there
    m.update(said["id"], metadata={"topic": "games"})
    assert m.get(said["id"])["metadata"] == {"topic": "games"}  # type: ignore[index]
    assert said["id"] in {r["id"] for r in m.search("chess", filters={"user_id": "u"})["results"]}


def test_a_filter_or_metadata_that_is_not_a_dict_is_mnemos_validation_error(m: Memory) -> None:
    with pytest.raises(ValidationError, match="filters must be an object"):
        m.search("x", user_id="u", filters="category=work")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="filters must be an object"):
        m.get_all(user_id="u", filters="category=work")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="metadata must be an object"):
        m.add("x", user_id="u", metadata="x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="metadata must be an object"):
        m.add("x", user_id="u", metadata="x", infer=False)  # type: ignore[arg-type]
    assert m.mnemo.list() == [] and m.mnemo.messages() == []


def test_a_filtered_search_ranks_the_whole_filtered_set(m: Memory) -> None:
    m.add("Quarterly report due Friday", user_id="kim", infer=False, metadata={"tags": "work"})
    m.add("I prefer green tea", user_id="kim", infer=False, metadata={"tags": "home"})
    found = m.search("preferences", filters={"user_id": "kim", "tags": "work"})["results"]
    assert texts({"results": found}) == ["Quarterly report due Friday"]
    assert texts(m.get_all(filters={"user_id": "kim", "tags": {"in": ["work"]}})) == [
        "Quarterly report due Friday"
    ]


def test_every_id_returned_works_with_get_update_delete_history(m: Memory) -> None:
    said = [
        {"role": "user", "content": "Caroline went to the LGBTQ support group yesterday"},
        {"role": "assistant", "content": "That sounds like a meaningful afternoon"},
    ]
    m.add(said, user_id="mel", run_id="conv-1", metadata={"dia_id": "D1:1"})
    found = m.search("support group", filters={"user_id": "mel"})["results"]
    turn = next(r for r in found if r["memory"] == said[0]["content"])
    assert turn["metadata"] == {"dia_id": "D1:1"} and turn["run_id"] == "conv-1"
    assert m.get(turn["id"]) == {k: v for k, v in turn.items() if k != "score"}
    assert [h["event"] for h in m.history(turn["id"])] == ["ADD"]
    (msg,) = [t for t in m.mnemo.messages(user_id="mel") if t.content == said[0]["content"]]
    assert m.get(msg.id) == m.get(turn["id"])  # the turn's own id finds its stand-in
    m.update(turn["id"], text="Caroline went to a support group")
    assert m.get(turn["id"])["memory"] == "Caroline went to a support group"  # type: ignore[index]
    again = m.search("support group", filters={"user_id": "mel"})["results"]
    assert [r["memory"] for r in again if r["id"] == turn["id"]] == [
        "Caroline went to a support group"
    ]
    m.delete(turn["id"])
    assert m.get(turn["id"]) is None
    gone = m.search("LGBTQ support group yesterday", filters={"user_id": "mel"})["results"]
    assert turn["id"] not in {r["id"] for r in gone}
    assert [h["event"] for h in m.history(turn["id"])] == ["ADD", "UPDATE", "DELETE"]


def test_turns_carry_speaker_time_and_session_and_threshold_cuts_on_score(m: Memory) -> None:
    m.add(
        [{"role": "user", "name": "Mel", "content": "I painted a sunrise",
          "created_at": "2023-05-08T13:56:00+00:00"}],
        user_id="mel", run_id="conv-1", infer=False,
    )  # fmt: skip
    (turn,) = m.mnemo.messages(user_id="mel")
    assert (turn.name, turn.session_id, turn.created_at.year) == ("Mel", "conv-1", 2023)
    (hit,) = m.search("sunrise", filters={"user_id": "mel"})["results"]
    assert hit["created_at"].startswith("2023-05-08")
    assert m.search("sunrise", filters={"user_id": "mel"}, threshold=hit["score"])["results"]
    above = m.search("sunrise", filters={"user_id": "mel"}, threshold=hit["score"] + 1e-6)
    assert above["results"] == []
