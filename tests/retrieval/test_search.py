"""Search: scopes (session, cross-session, global), kinds, explain, recency and MMR."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mnemo import Memory

OpenMem = Callable[..., Memory]


def turns(*texts: str, **extra: object) -> list[dict]:
    return [{"role": "user", "content": t, **extra} for t in texts]


def test_session_scope_widens_only_for_small_sessions(open_mem: OpenMem) -> None:
    mem = open_mem(cross_session_threshold=3)
    mem.add_messages(turns("the blue lighthouse keeper"), "u1", "old")
    mem.add_messages(turns("lighthouse visit planned"), "u1", "small")
    hits = mem.search("lighthouse", user_id="u1", current_session="small")
    assert {h.session_id for h in hits} == {"small", "old"}  # 1 item < 3: widened
    mem.add_messages(turns("lighthouse photos", "beach walk"), "u1", "small")
    hits = mem.search("lighthouse", user_id="u1", current_session="small")
    assert {h.session_id for h in hits} == {"small"}  # 3 items: session only
    assert {h.session_id for h in mem.search("lighthouse", user_id="u1")} == {"small", "old"}
    mem.close()


def test_global_user_is_shared_and_users_are_isolated(mem: Memory) -> None:
    mem.add("Company holidays are in August", user_id="global")
    mem.add_messages(turns("my holidays start in August"), "alice")
    mem.add_messages(turns("bob's secret holidays plan"), "bob")
    alice = {h.content for h in mem.search("holidays", user_id="alice")}
    assert alice == {"Company holidays are in August", "my holidays start in August"}
    assert "bob's secret holidays plan" not in alice


def test_global_scope_can_be_disabled(open_mem: OpenMem) -> None:
    mem = open_mem(global_user_id="")
    mem.add("shared rule about holidays", user_id="global")
    mem.add_messages(turns("holidays"), "alice")
    assert [h.content for h in mem.search("holidays", user_id="alice")] == ["holidays"]


def test_kinds_filter(mem: Memory) -> None:
    mem.add_messages(turns("tennis on sunday"), "u")
    mem.add("likes tennis", user_id="u", kind="fact")
    mem.add("tennis note", user_id="u", kind="note")
    assert {h.kind for h in mem.search("tennis", user_id="u", kinds=["fact"])} == {"fact"}
    assert {h.kind for h in mem.search("tennis", user_id="u", kinds=["message"])} == {"message"}
    both = mem.search("tennis", user_id="u", kinds=["fact", "note"])
    assert {h.kind for h in both} == {"fact", "note"}


def test_hits_carry_stage_scores_and_explain_adds_ranks(mem: Memory) -> None:
    mem.add_messages(
        turns("Melanie painted a sunrise over the lake", metadata={"dia_id": "D1:2"}), "u"
    )
    [hit] = mem.search("sunrise painting", user_id="u")
    assert hit.metadata == {"dia_id": "D1:2"} and hit.kind == "message" and hit.role == "user"
    assert {"fused", "final", "lexical", "dense"} <= set(hit.scores)
    assert hit.score == hit.scores["final"]
    assert "lexical_rank" not in hit.scores
    [explained] = mem.search("sunrise painting", user_id="u", explain=True)
    assert explained.scores["lexical_rank"] == 1 and explained.scores["dense_rank"] == 1


def test_limit_and_order(mem: Memory) -> None:
    mem.add_messages(turns(*(f"note {i} about gardening" for i in range(30))), "u")
    hits = mem.search("gardening", user_id="u", limit=7)
    assert len(hits) == 7
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_recency_prefers_newer_when_weighted(open_mem: OpenMem) -> None:
    mem = open_mem(recency_weight=0.5)
    mem.add_messages(turns("dentist appointment", created_at="2020-01-01T00:00:00"), "u", "a")
    mem.add_messages(turns("dentist appointment", created_at="2024-01-01T00:00:00"), "u", "b")
    hits = mem.search("dentist appointment", user_id="u", now="2024-01-02T00:00:00")
    older = mem.messages(user_id="u", session_id="a")[0].id
    assert hits[0].session_id == "b" and hits[0].duplicates == [older]  # one hit, the newer
    assert hits[0].scores["recency"] == pytest.approx(2.718281828 ** (-1 / 30), rel=1e-6)


def test_per_call_overrides_equal_the_settings(open_mem: OpenMem) -> None:
    from mnemo.retrieval.searcher import Searcher
    from mnemo.search_query import SearchQuery

    texts = [f"dentist appointment {i}" for i in range(6)]
    plain, tuned = open_mem(), open_mem(recency_weight=0.6, score_threshold=0.3)
    for mem in (plain, tuned):
        for i, text in enumerate(texts):
            mem.add_messages(turns(text, created_at=f"202{i}-01-01T00:00:00"), "u", f"s{i}")
    now = "2026-01-01T00:00:00"
    want = [(h.content, h.scores) for h in tuned.search("dentist", user_id="u", now=now)]
    searcher = Searcher(plain.pipeline, plain.settings)
    q = SearchQuery(query="dentist", user_id="u", now=now, recency_weight=0.6, score_threshold=0.3)
    got = searcher.search(q)
    assert [(h.content, h.scores) for h in got] == want
    assert plain.settings.recency_weight != 0.6  # the override did not touch the settings


def test_mmr_pushes_out_duplicates(open_mem: OpenMem) -> None:
    texts = ["paris trip in june", "our paris trip in june", "paris museum tickets"]
    plain = open_mem()
    plain.add_messages(turns(*texts), "u")
    top2 = [h.content for h in plain.search("paris trip june", user_id="u", limit=2)]
    assert top2 == texts[:2]
    diverse = open_mem(use_mmr=True, mmr_lambda=0.3)
    top2 = [h.content for h in diverse.search("paris trip june", user_id="u", limit=2)]
    assert top2[0] in texts[:2] and top2[1] == "paris museum tickets"


def test_min_similarity_and_dense_only_preset(open_mem: OpenMem) -> None:
    mem = open_mem(preset="llmplatform")
    mem.add_messages(turns("quantum chromodynamics lecture", "weekend bakery visit"), "u")
    hits = mem.search("quantum chromodynamics", user_id="u")
    assert [h.content for h in hits] == ["quantum chromodynamics lecture"]
    assert "lexical" not in hits[0].scores


def test_index_refreshes_across_memory_objects(open_mem: OpenMem) -> None:
    reader = open_mem()
    writer = open_mem()
    writer.add_messages(turns("first kangaroo"), "u")
    assert len(reader.search("kangaroo", user_id="u")) == 1
    writer.add_messages(turns("second kangaroo"), "u")
    assert len(reader.search("kangaroo", user_id="u")) == 2
    item = writer.add("third kangaroo", user_id="u")
    writer.delete(item.id)
    assert len(reader.search("kangaroo", user_id="u")) == 2
    writer.delete_user("u")
    assert reader.search("kangaroo", user_id="u") == []


def test_rows_committed_during_an_index_load_are_held_once(open_mem: OpenMem) -> None:
    reader = open_mem()
    writer = open_mem()
    writer.add_messages(turns("first wombat"), "u")
    real = reader.store.search.load_vectors
    state = {"raced": False}

    def racing_load(*args, **kwargs):  # type: ignore[no-untyped-def]
        if not state["raced"]:  # another process commits between state read and load
            state["raced"] = True
            writer.add_messages(turns("second wombat"), "u")
        return real(*args, **kwargs)

    reader.store.search.load_vectors = racing_load  # type: ignore[method-assign]
    reader.search("wombat", user_id="u")
    hits = reader.search("wombat", user_id="u")
    index = reader.pipeline.indexes.get(reader.store.search, "default", "u", reader.embedder.id)
    pairs = list(
        zip(index.tables[: index.n].tolist(), index.rowids[: index.n].tolist(), strict=True)
    )
    assert len(pairs) == len(set(pairs)) == 2
    assert sorted(h.content for h in hits) == ["first wombat", "second wombat"]


def test_neighbouring_turn_of_a_match_is_recalled(open_mem: OpenMem) -> None:
    convo = [
        {"role": "user", "content": "What instrument did you pick up during the winter?"},
        {"role": "assistant", "content": "The cello, I practise every evening now."},
        {"role": "user", "content": "Lovely weather for a picnic today."},
    ]
    other = [{"role": "user", "content": f"filler note {i} about groceries"} for i in range(20)]
    for weight, expect_reply in ((0.0, False), (0.3, True)):
        mem = open_mem(
            neighbor_weight=weight,
            fusion="blend",
            dense_weight=0.0,
            speaker_weight=0.0,
            question_prior=1.0,
            reply_weight=0.0,
            session_weight=0.0,
        )
        if weight == 0.0:
            mem.add_messages(other, "u", "s0")
            mem.add_messages(convo, "u", "s1")
        hits = mem.search("which instrument during winter", user_id="u", limit=3)
        contents = [h.content for h in hits]
        assert contents[0] == convo[0]["content"]
        assert (convo[1]["content"] in contents) is expect_reply
        if expect_reply:  # the reply borrows 0.3 of the question's relevance
            reply = next(h for h in hits if h.content == convo[1]["content"])
            assert reply.scores["fused"] == pytest.approx(0.3 * hits[0].scores["fused"])
        mem.close()


def test_neighbours_stay_inside_their_session(open_mem: OpenMem) -> None:
    mem = open_mem(neighbor_weight=0.5, dense_weight=0.0)
    mem.add_messages([{"role": "user", "content": "unrelated closing line"}], "u", "a")
    mem.add_messages([{"role": "user", "content": "the submarine sonar report"}], "u", "b")
    hits = mem.search("submarine sonar", user_id="u")
    assert [h.session_id for h in hits] == ["b"]


def test_a_reload_builds_a_new_index_and_leaves_the_old_one_whole(mem: Memory) -> None:
    mem.add_messages(
        [{"role": "user", "content": f"turn {i} about otters"} for i in range(3)], "u1"
    )
    item = mem.add("a fact about otters", user_id="u1")
    cache, args = mem.pipeline.indexes, (mem.store.search, mem.tenant, "u1", mem.embedder.id)
    old = cache.get(*args)
    rows = old.n
    mem.add_messages([{"role": "user", "content": "one more otter turn"}], "u1")
    assert cache.get(*args) is old and old.n == rows + 1  # an insert appends in place
    mem.update(item.id, content="a changed fact about otters")  # a reload
    new = cache.get(*args)
    assert new is not old and new.n == rows + 1
    assert old.n == rows + 1  # a search still holding the old index sees it whole
    assert cache.get(*args) is new
