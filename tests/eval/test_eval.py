"""The evaluation harness: metrics, LoCoMo and LongMemEval loaders, ingest, evaluation, CLI.

Everything runs on tiny synthetic files written to tmp_path with the hashing embedder.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.eval import app
from mnemo.eval import DatasetError, ingest_state
from mnemo.eval.locomo import (
    clean_evidence,
    evaluate_locomo,
    ingest_locomo,
    load_locomo,
    normalize_dia_id,
    parse_locomo_date,
)
from mnemo.eval.longmemeval import (
    evaluate_longmemeval,
    ingest_longmemeval,
    latest_evidence,
    load_longmemeval,
    parse_lme_date,
)
from mnemo.eval.metrics import (
    aggregate,
    all_at_k,
    all_in_first,
    latest_first,
    ndcg_at_k,
    percentile,
    question_metrics,
    recall_at_k,
)

LOG2_3 = math.log2(3)
REPORT_KEYS = {
    "benchmark", "dataset", "embedder", "settings", "ks", "metrics", "groups", "counts",
    "overall", "questions", "skipped", "notes", "ingest", "search_p50_ms", "search_p95_ms",
    "search_limit", "eval_seconds", "wall_seconds", "cpu", "per_question",
}  # fmt: skip


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read MNEMO_* variables; keep the developer's environment out of these tests."""
    for key in list(os.environ):
        if key.startswith("MNEMO_"):
            monkeypatch.delenv(key)


# ---- metrics -------------------------------------------------------------------------------
def test_recall_and_all_at_k() -> None:
    ranked = ["a", "b", "c", "d"]
    assert recall_at_k(ranked, {"a", "c", "x"}, 1) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, {"a", "c", "x"}, 3) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, {"c"}, 2) == 0.0
    assert all_at_k(ranked, {"a", "c"}, 2) == 0.0
    assert all_at_k(ranked, {"a", "c"}, 3) == 1.0
    assert all_at_k(ranked, {"a", "x"}, 20) == 0.0
    # None is a hit that maps to no item: it takes a rank but never counts.
    assert recall_at_k([None, "a"], {"a"}, 1) == 0.0
    assert recall_at_k([None, "a"], {"a"}, 2) == 1.0
    with pytest.raises(ValueError):
        recall_at_k(ranked, set(), 5)


def test_ndcg_binary_relevance() -> None:
    # DCG = 1/log2(3) + 1/log2(5); IDCG = 1 + 1/log2(3)
    expected = (1 / LOG2_3 + 1 / math.log2(5)) / (1 + 1 / LOG2_3)
    assert ndcg_at_k(["x", "a", "y", "b"], {"a", "b"}, 10) == pytest.approx(expected)
    assert ndcg_at_k(["a", "b"], {"a", "b"}, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "a"], {"a"}, 1) == 0.0
    # a repeated id is relevant only once
    assert ndcg_at_k(["a", "a"], {"a", "b"}, 10) == pytest.approx(1 / (1 + 1 / LOG2_3))
    # IDCG is capped at k evidence items
    assert ndcg_at_k(["a"], {"a", "b", "c"}, 1) == pytest.approx(1.0)


def test_sessions_all_in_first_distinct() -> None:
    sessions = ["s1", "s1", "s2", None, "s1", "s3"]
    assert all_in_first(sessions, {"s2", "s3"}, 2) == 0.0
    assert all_in_first(sessions, {"s2", "s3"}, 3) == 1.0
    assert all_in_first(sessions, {"s1"}, 1) == 1.0


def test_percentile_and_aggregate() -> None:
    assert percentile([4, 1, 3, 2], 50) == pytest.approx(2.5)
    assert percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert percentile([7.0], 95) == 7.0
    assert math.isnan(percentile([], 50))
    rows = [("a", {"R@1": 1.0}), ("a", {"R@1": 0.0}), ("b", {"R@1": 1.0})]
    groups, overall, counts = aggregate(rows)
    assert groups == {"a": {"R@1": 0.5}, "b": {"R@1": 1.0}}
    assert overall["R@1"] == pytest.approx(2 / 3)  # question-weighted, not mean of groups
    assert counts == {"a": 2, "b": 1}
    m = question_metrics(["a", "b"], {"b"}, [1, 5])
    assert m == {"R@1": 0.0, "R@5": 1.0, "All@1": 0.0, "All@5": 1.0,
                 "NDCG@10": pytest.approx(1 / LOG2_3)}  # fmt: skip


# ---- synthetic files ---------------------------------------------------------------------------
FILLER = [
    "The weather was cloudy this morning",
    "I had toast for breakfast",
    "Work has been busy lately",
    "We watched a movie last night",
    "My neighbour mowed the lawn",
    "Traffic was heavy on Monday",
    "I am reading a long novel",
    "The coffee shop was crowded",
    "I should call my aunt soon",
    "It rained again in the evening",
    "The train was late today",
    "I bought new running shoes",
]


def locomo_sample() -> list[dict[str, Any]]:
    s2 = [{"speaker": "Alice" if i % 2 else "Bob", "dia_id": f"D2:{i + 2}", "text": t}
          for i, t in enumerate(FILLER)]  # fmt: skip
    conv_a = {
        "speaker_a": "Alice",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Alice", "dia_id": "D1:1", "text": "Hey Bob, how are you?"},
            {"speaker": "Bob", "dia_id": "D1:2",
             "text": "I adopted a greyhound named Zephyrine from the shelter"},
            {"speaker": "Alice", "dia_id": "D1:3", "text": "Look at my painting",
             "blip_caption": "a photo of a sunset over a lake", "img_url": ["http://x"]},
        ],
        "session_2_date_time": "10:05 am on 2 June, 2023",
        "session_2": [{"speaker": "Alice", "dia_id": "D2:1",
                       "text": "I went kayaking on Lake Wobegon"}, *s2],
        "session_3_date_time": "9:00 pm on 3 June, 2023",  # date without a session: skipped
    }  # fmt: skip
    conv_b = {
        "speaker_a": "Carol",
        "speaker_b": "Dan",
        "session_1_date_time": "12:30 am on 1 January, 2022",
        "session_1": [
            {"speaker": "Carol", "dia_id": "D1:1", "text": "My tortoise Quillon turned eighty"},
            {"speaker": "Dan", "dia_id": "D1:2", "text": "Happy birthday to Quillon"},
        ],
    }
    return [
        {"sample_id": "conv-a", "conversation": conv_a, "qa": [
            {"question": "What is the name of Bob's greyhound Zephyrine?", "answer": "Zephyrine",
             "evidence": ["D1:02"], "category": 4},
            {"question": "Where did Alice go kayaking and what did she paint?", "answer": "x",
             "evidence": ["D1:03; D2:1 D9:99"], "category": 1},
            {"question": "Unanswerable?", "answer": "x", "evidence": ["D1:1"], "category": 5},
            {"question": "When?", "answer": "x", "evidence": ["D7:1"], "category": 2},
            {"question": "Open?", "answer": "x", "evidence": [], "category": 3},
        ]},
        {"sample_id": "conv-b", "conversation": conv_b, "qa": [
            {"question": "How old is the tortoise Quillon?", "answer": "80",
             "evidence": ["D1:1"], "category": 2},
        ]},
    ]  # fmt: skip


def lme_sample() -> list[dict[str, Any]]:
    def filler(tag: str) -> list[dict[str, Any]]:
        return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{t} ({tag})"}
                for i, t in enumerate(FILLER[:6])]  # fmt: skip

    dog = [
        {"role": "user", "content": "Can you suggest a dog bed?", "has_answer": False},
        {"role": "assistant", "content": "   ", "has_answer": False},  # empty: skipped
        {"role": "user", "content": "My greyhound Zephyrine sleeps all day", "has_answer": True},
    ]
    car = [
        {"role": "user", "content": "I sold my old bicycle to Bartholomew", "has_answer": True},
        {"role": "assistant", "content": "Great, that should free up space.", "has_answer": False},
    ]
    dates = ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 10:00", "2023/05/22 (Mon) 11:00"]
    return [
        {"question_id": "q1", "question_type": "single-session-user",
         "question": "What is my greyhound Zephyrine doing?",
         "question_date": "2023/05/30 (Tue) 23:29",
         "answer": "sleeping", "answer_session_ids": ["dog"],
         "haystack_session_ids": ["f1", "dog", "f2"], "haystack_dates": dates,
         "haystack_sessions": [filler("one"), dog, filler("two")]},
        {"question_id": "q2", "question_type": "multi-session",
         "question": "Who bought my bicycle and what is my greyhound called?",
         "question_date": "2023/06/01 (Thu) 09:00", "answer": "x",
         "answer_session_ids": ["dog", "car"],
         "haystack_session_ids": ["f1", "dog", "car"], "haystack_dates": dates,
         "haystack_sessions": [filler("one"), dog, car]},
        {"question_id": "q3_abs", "question_type": "single-session-user",
         "question": "Nothing?", "question_date": "2023/06/01 (Thu) 09:00", "answer": "x",
         "answer_session_ids": [], "haystack_session_ids": ["f2"],
         "haystack_dates": dates[:1], "haystack_sessions": [filler("two")]},
    ]  # fmt: skip


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(locomo_sample()), encoding="utf-8")
    return path


@pytest.fixture
def lme_file(tmp_path: Path) -> Path:
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(lme_sample()), encoding="utf-8")
    return path


# ---- LoCoMo ------------------------------------------------------------------------------------
def test_locomo_cleaning_helpers() -> None:
    assert normalize_dia_id("D30:05") == "D30:5"
    assert normalize_dia_id("D:11:26") is None
    kept, dropped = clean_evidence(["D1:03; D2:1 D9:99", "D1:3", "D"], {"D1:3", "D2:1"})
    assert kept == ["D1:3", "D2:1"] and dropped == ["D9:99", "D"]
    assert parse_locomo_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert parse_locomo_date("12:30 am on 1 January, 2022") == datetime(2022, 1, 1, 0, 30)
    with pytest.raises(DatasetError):
        parse_locomo_date("yesterday")


def test_locomo_load(locomo_file: Path) -> None:
    ds = load_locomo(str(locomo_file))
    assert [c.sample_id for c in ds.conversations] == ["conv-a", "conv-b"]
    assert [s.id for s in ds.conversations[0].sessions] == ["session_1", "session_2"]
    assert ds.turn_count == 3 + 13 + 2
    assert [q.evidence for q in ds.questions] == [["D1:2"], ["D1:3", "D2:1"], ["D1:1"]]
    assert [q.group for q in ds.questions] == ["single-hop", "multi-hop", "temporal"]
    assert ds.skipped == {"category_5": 1, "no_evidence": 2}
    assert ds.dropped_evidence == ["conv-a:D9:99", "conv-a:D7:1"]
    head = ds.head(1)
    assert len(head.questions) == 1 and [c.sample_id for c in head.conversations] == ["conv-a"]


def test_locomo_end_to_end(locomo_file: Path, tmp_path: Path) -> None:
    ds = load_locomo(str(locomo_file))
    with Memory(str(tmp_path / "m.db"), embedder="hashing") as mem:
        assert ingest_state(mem, ds.expected_turns()) == "empty"
        seen: list[int] = []
        stats = ingest_locomo(mem, ds, seen.append)
        assert (stats.users, stats.sessions, stats.turns) == (2, 3, 18) and sum(seen) == 18
        st = mem.stats()
        assert (st.users, st.sessions, st.messages) == (2, 3, 18)
        assert ingest_state(mem, ds.expected_turns()) == "complete"
        turns = mem.messages(user_id="conv-a", session_id="session_1")
        assert [t.metadata["dia_id"] for t in turns] == ["D1:1", "D1:2", "D1:3"]
        assert [t.role for t in turns] == ["user", "assistant", "user"]
        assert [t.name for t in turns] == ["Alice", "Bob", "Alice"]
        assert turns[2].content == "Look at my painting [image: a photo of a sunset over a lake]"
        assert [t.created_at for t in turns] == [
            datetime(2023, 5, 8, 13, 56, s, tzinfo=UTC) for s in range(3)
        ]
        report = evaluate_locomo(mem, ds, ks=[1, 5, 10])
    assert report.questions == 3 and report.counts == {
        "multi-hop": 1, "temporal": 1, "single-hop": 1}  # fmt: skip
    assert list(report.groups) == ["multi-hop", "temporal", "single-hop"]
    first = report.per_question[0]
    assert first.id == "conv-a#0" and first.metrics["R@10"] == 1.0  # rare words: Zephyrine
    assert report.per_question[2].metrics["R@1"] == 1.0  # Quillon, in its own conversation
    data = json.loads(report.to_json())
    assert set(data) == REPORT_KEYS
    assert set(data["overall"]) == {"R@1", "R@5", "R@10", "All@1", "All@5", "All@10", "NDCG@10"}
    assert data["embedder"] == "hashing:384" and data["search_limit"] == 10


# ---- LongMemEval --------------------------------------------------------------------------------
def test_lme_load(lme_file: Path) -> None:
    assert parse_lme_date("2023/05/20 (Sat) 02:21") == datetime(2023, 5, 20, 2, 21)
    ds = load_longmemeval(str(lme_file))
    assert [q.question_id for q in ds.questions] == ["q1", "q2"]
    assert ds.skipped == {"no_evidence": 1, "empty_turns": 2}
    assert ds.questions[0].evidence == ["dog#2"]
    assert ds.questions[1].evidence == ["dog#2", "car#0"]
    assert ds.questions[1].evidence_sessions == ["dog", "car"]
    assert ds.expected_turns() == {"q1": 6 + 2 + 6, "q2": 6 + 2 + 2}


def test_lme_end_to_end(lme_file: Path, tmp_path: Path) -> None:
    ds = load_longmemeval(str(lme_file))
    with Memory(str(tmp_path / "m.db"), embedder="hashing") as mem:
        stats = ingest_longmemeval(mem, ds)
        assert (stats.users, stats.sessions, stats.turns) == (2, 6, 24)
        st = mem.stats()
        assert (st.users, st.messages) == (2, 24)
        dog = mem.messages(user_id="q1", session_id="dog")
        assert [t.metadata for t in dog] == [
            {"has_answer": False, "turn_index": 0},
            {"has_answer": True, "turn_index": 2},
        ]
        assert dog[1].created_at == datetime(2023, 5, 21, 10, 0, 2, tzinfo=UTC)
        report = evaluate_longmemeval(mem, ds)
    assert report.counts == {"single-session-user": 1, "multi-session": 1}
    assert report.search_limit == 50
    q1 = report.per_question[0].metrics
    assert q1["R@10"] == 1.0 and q1["AllSess@5"] == 1.0
    data = json.loads(report.to_json())
    assert set(data) == REPORT_KEYS and "AllSess@5" in data["metrics"]


# ---- CLI -----------------------------------------------------------------------------------------
def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_cli_locomo_json_and_reuse(locomo_file: Path, tmp_path: Path) -> None:
    out, db = tmp_path / "report.json", tmp_path / "keep.db"
    base = ["locomo", "--data", str(locomo_file), "--embedder", "hashing", "--db", str(db)]
    res = _invoke(*base, "--json", str(out), "--k", "1,10", "--set", "rrf_k=30")
    assert res.exit_code == 0, res.output
    assert "multi-hop" in res.output and "overall" in res.output
    data = json.loads(out.read_text())
    assert set(data) == REPORT_KEYS and data["ingest"]["turns"] == 18
    assert data["ks"] == [1, 10] and data["settings"]["rrf_k"] == 30.0
    again = _invoke(*base)
    assert again.exit_code == 2 and "--reuse" in again.output
    reused = _invoke(*base, "--reuse", "--json", str(out))
    assert reused.exit_code == 0, reused.output
    ingest = json.loads(out.read_text())["ingest"]
    assert ingest["reused"] is True and (ingest["sessions"], ingest["turns"]) == (3, 18)
    other = _invoke(*base, "--reuse", "--set", "embedder_dim=64")
    assert other.exit_code == 2 and "error:" in other.output and "Traceback" not in other.output


def test_cli_longmemeval(lme_file: Path) -> None:
    res = _invoke("longmemeval", "--data", str(lme_file), "--embedder", "hashing",
                  "--limit-questions", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "single-session-user" in res.output and "AllSess@5" in res.output


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        (None, [], "data file not found"),
        ("{not json", [], "not valid JSON"),
        ('{"a": 1}', [], "not LoCoMo format"),
        ('[{"sample_id": "x"}]', [], "not LoCoMo format"),
        ("[]", ["--set", "no_such_setting=1"], "not LoCoMo format"),
        (None, ["--k", "0,5"], "--k"),
    ],
)
def test_cli_errors_exit_2(tmp_path: Path, content: str | None, extra: list[str],
                           message: str) -> None:  # fmt: skip
    path = tmp_path / "data.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    res = _invoke("locomo", "--data", str(path), "--embedder", "hashing", *extra)
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_cli_bad_setting(locomo_file: Path) -> None:
    res = _invoke("locomo", "--data", str(locomo_file), "--set", "no_such_setting=1")
    assert res.exit_code == 2 and "no_such_setting" in res.output


def test_cli_real_locomo_smoke() -> None:
    path = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo-dev.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    res = _invoke("locomo", "--data", str(path), "--embedder", "hashing",
                  "--limit-questions", "20")  # fmt: skip
    assert res.exit_code == 0, res.output


def test_cli_ablation_table_json_and_plot(locomo_file: Path, tmp_path: Path) -> None:
    out, png = tmp_path / "ablation.json", tmp_path / "recall.png"
    res = _invoke(
        "locomo", "--data", str(locomo_file), "--embedder", "hashing",
        "--compare", "fusion=rrf,neighbor_weight=0", "--compare", "preset=agent-cli",
        "--json", str(out), "--plot", str(png),
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "ablation" in res.output and "fusion=rrf,neighbor_weight=0" in res.output
    rows = json.loads(out.read_text())
    assert [r["configuration"] for r in rows] == [
        "settings of this run", "fusion=rrf,neighbor_weight=0", "preset=agent-cli"]  # fmt: skip
    assert rows[1]["report"]["settings"]["fusion"] == "rrf"
    assert rows[2]["report"]["settings"]["use_mmr"] is True  # the preset's own values apply
    assert rows[0]["report"]["settings"]["fusion"] == "blend"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = _invoke("locomo", "--data", str(locomo_file), "--embedder", "hashing",
                  "--compare", "fusion")  # fmt: skip
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output


def test_latest_first_is_whether_the_top_evidence_is_what_is_true_now() -> None:
    ranked = ["old#1", None, "new#0", "x"]
    assert latest_first(ranked, {"old#1", "new#0"}, {"new#0"}) == 0.0  # the old value first
    assert latest_first(ranked[1:], {"old#1", "new#0"}, {"new#0"}) == 1.0
    assert latest_first(["x"], {"old#1", "new#0"}, {"new#0"}) == 0.0  # no evidence found


def test_lme_knowledge_updates_report_latest_at_1(lme_file: Path) -> None:
    """Only a knowledge-update question whose evidence sessions have two dates has Latest@1:
    its latest evidence session's turns are the ones that are true now."""
    ds = load_longmemeval(str(lme_file))
    two = replace(ds.questions[1], question_type="knowledge-update")
    assert latest_evidence(ds.questions[1]) is None  # multi-session: not a knowledge update
    assert latest_evidence(two) == [e for e in two.evidence if e.startswith("car#")]
    one = replace(ds.questions[0], question_type="knowledge-update")
    assert latest_evidence(one) is None  # one evidence session: nothing was replaced
