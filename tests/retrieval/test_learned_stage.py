"""The learned last stage: its model reads the pipeline's features, the features have not
drifted since the model was fitted, it orders the hits by the one relevance, and it is off
where no model or a seed preset says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from mnemo import ConfigError, Memory
from mnemo.cli.demo import sample_path
from mnemo.memory.exchange import Exchange
from mnemo.ops.importers import jsonl_batches
from mnemo.retrieval import pool_features, ranker_model
from mnemo.schemas import Hit

OpenMem = Callable[..., Memory]
DEFAULT_EMBEDDER = "onnx:all-MiniLM-L6-v2-q8"
PROBES = Path(__file__).parent / "data" / "ranker_probes.json"
CHAT = [
    "I adopted a beagle called Biscuit last spring",
    "Biscuit loves the beach and chasing seagulls",
    "I started a new job as a nurse at the city hospital",
    "My sister Anna is visiting us in June",
    "We cooked a big pot of lentil soup on Sunday",
    "I'm training for a half marathon in October",
]


def test_the_shipped_model_reads_the_features_the_pipeline_computes() -> None:
    model = ranker_model.load(DEFAULT_EMBEDDER)
    assert model is not None, "no model shipped for the default embedder"
    # a feature added, removed or reordered in pool_features needs a refit (bench/ranker.py)
    assert model.features == pool_features.FEATURES
    assert model.provenance["embedder"] == DEFAULT_EMBEDDER
    assert {"date", "commit", "data", "cross_validated"} <= set(model.provenance)
    assert ranker_model.load("hashing:384") is None


def test_the_features_of_the_probe_queries_have_not_drifted(tmp_path: Path) -> None:
    """bench/ranker.py --write recorded these rows with the model; an earlier stage that
    changes them (a score, a rank, a signal) fails here until the model is refitted. They are
    recorded with the hashing embedder, whose vectors are the same on every CPU, so that the
    rows match to 1e-4 anywhere; the int8 embedder's own vectors move a little between AVX2
    and AVX-512 CPUs, enough to swap near-equal hits, and are held to theirs by
    tests/embedders/test_vector_drift.py."""
    recorded = json.loads(PROBES.read_text(encoding="utf-8"))
    now = datetime.fromisoformat(recorded["now"])
    assert recorded["embedder"] == "hashing"
    with Memory(
        str(tmp_path / "probes.db"), embedder="hashing", ranker_depth=0, pool_factor=1
    ) as mem:
        for batch in jsonl_batches(sample_path(), "maya", "default"):
            mem.add_messages(batch.turns, user_id="maya", session_id=batch.session_id)
        for probe in recorded["probes"]:
            query = probe["query"]
            hits = mem.search(query, user_id="maya", limit=recorded["depth"], now=now, explain=True)
            assert [h.content for h in hits] == probe["contents"], query
            x = pool_features.matrix(hits, query, mem.pipeline.calibration, recorded["depth"])
            np.testing.assert_allclose(x, np.asarray(probe["x"]), atol=1e-4, err_msg=query)


def tree(feature: int, threshold: float, low: float, high: float) -> dict[str, list[float]]:
    """One split: x[feature] <= threshold gives ``low``, else ``high``."""
    return {"feature": [feature, -2, -2], "threshold": [threshold, -2.0, -2.0],
            "left": [1, -1, -1], "right": [2, -1, -1], "value": [0.0, low, high]}  # fmt: skip


def test_trees_are_evaluated_as_their_json_says() -> None:
    deeper = {"feature": [0, 1, -2, -2, -2], "threshold": [0.5, 0.5, 0, 0, 0],
              "left": [1, 2, -1, -1, -1], "right": [4, 3, -1, -1, -1],
              "value": [0, 0, -2.0, 0.5, 3.0]}  # fmt: skip
    model = ranker_model.RankerModel.from_json(
        {"kind": "trees", "features": ["a", "b"],
         "trees": {"init": 0.25, "rate": 0.5, "depth": 2,
                   "nodes": [tree(0, 0.5, -1.0, 1.0), deeper]}}
    )  # fmt: skip
    x = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.5, 0.9]])
    raw = 0.25 + 0.5 * np.array([-1 - 2.0, -1 + 0.5, 1 + 3.0, -1 + 0.5])
    assert model.probability(x) == pytest.approx(1 / (1 + np.exp(-raw)))
    assert model.probability(np.zeros((0, 2))).shape == (0,)


def test_logistic_models_standardise_then_weigh() -> None:
    model = ranker_model.RankerModel.from_json(
        {"kind": "logistic", "features": ["a", "b"],
         "logistic": {"intercept": -1.0, "coef": [2.0, -1.0], "mean": [1.0, 0.0],
                      "scale": [2.0, 1.0]}}
    )  # fmt: skip
    p = model.probability(np.array([[3.0, 1.0], [1.0, 0.0], [-1e6, 1e6]]))
    assert p[:2] == pytest.approx([1 / (1 + np.exp(-0.0)), 1 / (1 + np.exp(1.0))])
    assert p[2] == 0.0  # no overflow
    with pytest.raises(ConfigError, match="kind"):
        ranker_model.RankerModel.from_json({"kind": "forest", "features": []})


def hit(i: int, content: str, session: str, **scores: float) -> Hit:
    return Hit.model_validate(
        {"id": f"h{i}", "kind": "message", "content": content, "score": scores.get("final", 0),
         "created_at": datetime(2024, 1, 1 + i, tzinfo=UTC), "user_id": "u",
         "session_id": session, "role": "user", "scores": scores}
    )  # fmt: skip


def test_pool_features_follow_the_docstring() -> None:
    hits = [
        hit(0, "Biscuit the beagle loves the beach", "s1", final=1.0, fused=1.2, dense=0.6,
            lexical=8.0, lexical_rank=0, dense_rank=1, speaker_prior=1.5),
        hit(1, "We cooked soup", "s2", final=0.5, fused=0.6, dense=0.3, dense_rank=0),
        hit(2, "the beach was cold", "s1", final=0.25, fused=0.3, lexical=2.0, lexical_rank=1,
            borrowed=0.1, asked=0.6),
    ]  # fmt: skip
    x = pool_features.matrix(hits, "Where does the beagle go, the beach?")
    assert x.shape == (3, len(pool_features.FEATURES))
    col = {name: x[:, i] for i, name in enumerate(pool_features.FEATURES)}
    assert col["final_share"] == pytest.approx([1.0, 0.5, 0.25])
    assert col["gap_prev"] == pytest.approx([0.0, 0.5, 0.25])
    assert col["lexical_share"] == pytest.approx([1.0, 0.0, 0.25])
    assert col["no_lexical"].tolist() == [0, 1, 0] and col["no_dense"].tolist() == [0, 0, 1]
    assert col["dense_rank"] == pytest.approx([np.log(2), 0.0, np.log(4)])  # missing: ln(1+n)
    assert col["names_this"].tolist() == [1, 0, 0] and col["names_other"].tolist() == [0, 1, 1]
    assert col["overlap"] == pytest.approx([2 / 3, 0.0, 1 / 3])  # beagle, beach of go/beagle/beach
    assert col["session_hits"] == pytest.approx([2 / 3, 1 / 3, 2 / 3])
    assert col["session_best"] == pytest.approx([0.0, np.log(2), 0.0])
    assert col["session_place"] == pytest.approx([0.0, 0.0, np.log(2)])
    assert col["age"] == pytest.approx(np.log1p([2.0, 1.0, 0.0]))
    # hits 0 and 2 share session s1, two days apart (more than the one-day cap)
    assert col["near_gap"] == pytest.approx(np.log1p([86400.0] * 3))
    assert col["near_share"] == pytest.approx([0.25, 0.0, 1.0])
    assert col["calibrated"].tolist() == [0, 0, 0]  # no relevance model given
    assert col["borrowed_share"] == pytest.approx([0.0, 0.0, 0.1 / 0.3])
    assert col["reply"].tolist() == [0, 0, 1]
    assert col["asked_share"] == pytest.approx([0.0, 0.0, 0.5])  # 0.6 / the best fused 1.2
    assert set(sum(pool_features.GROUPS.values(), ())) == set(pool_features.FEATURES)
    assert pool_features.matrix([], "q").shape == (0, len(pool_features.FEATURES))


#: Sixty more turns, each about something else, so a search fills the stage's 50-hit pool.
DAYS = [
    f"On day {i} I {verb} the {thing} before {when}"
    for i, (verb, thing, when) in enumerate(
        (v, t, w)
        for v in ("repaired", "painted", "cleaned", "moved", "sold", "measured")
        for t in ("fence", "shed", "bicycle", "bookshelf", "kayak")
        for w in ("lunch", "sunset")
    )
]


def test_the_default_search_is_ordered_by_the_learned_relevance(open_mem: OpenMem) -> None:
    mem = open_mem(embedder="local")  # the bundled embedder and its model, on both stores
    assert mem.pipeline.learned.active
    turns = [{"role": "user", "content": t} for t in CHAT + DAYS]
    mem.add_messages(turns, "u1", "s1")
    hits = mem.search("What is my dog called?", user_id="u1", limit=3)
    assert len(hits) == 3 and "Biscuit" in hits[0].content
    for h in hits:
        assert h.calibrated and h.relevance == h.score == h.scores["learned"]
        assert 0.0 <= h.relevance <= 1.0 and "final" in h.scores
    relevances = [h.relevance for h in hits]
    assert relevances == sorted(relevances, reverse=True)
    # the learned stage only re-orders the pool of the stages before it
    plain = open_mem(embedder="local", ranker_depth=0)
    pool = plain.search("What is my dog called?", user_id="u1", limit=50)
    assert {h.id for h in hits} <= {h.id for h in pool}
    assert all("learned" not in h.scores for h in pool)


#: Questions asked through the proxy, with the reply stored for each.
ASKED = (
    ("Which job did I start?", "Nursing, at the city hospital."),
    ("What did I sell before sunset?", "The kayak and the bookshelf."),
    ("When is the race I am training for?", "October."),
    ("Who is visiting us?", "Anna, your sister."),
    ("What soup did we cook?", "Lentil."),
    ("What does my dog love?", "The beach and seagulls."),
    ("What did I paint on day 14?", "The bicycle."),
    ("What did I repair?", "The fence, the shed and the kayak."),
)


def test_stored_answers_to_the_same_questions_are_recalled_first(open_mem: OpenMem) -> None:
    """Asked through the proxy's path, each question is stored with its reply; asked again,
    the reply (which shares few words with the question) is among the first three hits for
    nearly every question: it borrows the question's relevance (``borrowed``, and ``asked``
    when the question is recognised as one), and the hit says so."""
    mem = open_mem(embedder="local")
    mem.add_messages([{"role": "user", "content": t} for t in CHAT + DAYS], "u1", "s1")
    replies = []
    for n, (question, answer) in enumerate(ASKED):
        ex = Exchange(mem, [{"role": "user", "content": question}], "u1", f"chat-{n}")
        ex.recall()
        replies.append(ex.store(answer)[1])
    first = 0
    for (question, _), reply_id in zip(ASKED, replies, strict=True):
        again = Exchange(mem, [{"role": "user", "content": question}], "u1", "again")
        hits = mem.search(question, "u1", limit=10, exclude=again.request_texts,
                          current_session="again", explain=True)  # fmt: skip
        ids = [h.id for h in hits]
        if reply_id in ids[:3]:
            first += 1
            reply = hits[ids.index(reply_id)]
            assert reply.scores["borrowed"] > 0
    assert first >= 6, first  # the model fitted without the chat replay's pools: 3


def test_a_short_history_keeps_the_earlier_order_and_its_calibrated_relevance(
    open_mem: OpenMem,
) -> None:
    """The model was fitted on full pools: fewer distinct hits than ranker_depth keep the
    hand-tuned order, with the logistic calibration as relevance."""
    mem = open_mem(embedder="local")
    mem.add_messages([{"role": "user", "content": t} for t in CHAT], "u1", "s1")
    hits = mem.search("What is my dog called?", user_id="u1", limit=3)
    plain = open_mem(embedder="local", ranker_depth=0)
    same = plain.search("What is my dog called?", user_id="u1", limit=3)
    assert [h.id for h in hits] == [h.id for h in same]
    assert [h.relevance for h in hits] == [h.relevance for h in same]
    assert all(h.calibrated and "learned" not in h.scores for h in hits)


def test_the_stage_is_off_in_the_seeds_without_a_model_and_at_depth_zero(tmp_path: Path) -> None:
    for n, kwargs in enumerate(
        ({"preset": "llmplatform"}, {"embedder": "hashing"}, {"ranker_depth": 0})
    ):
        with Memory(str(tmp_path / f"{n}.db"), **kwargs) as mem:  # type: ignore[arg-type]
            assert not mem.pipeline.learned.active, kwargs
            mem.add_messages([{"role": "user", "content": t} for t in CHAT], "u1", "s1")
            hits = mem.search("beagle", user_id="u1")
            assert hits and all("learned" not in h.scores for h in hits), kwargs
