"""Chat replay: questions asked through the proxy's path, stored with a scripted reply, asked
again and scored (tiny synthetic LoCoMo file, hashing embedder)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mnemo import Memory
from mnemo.cli.eval import app
from mnemo.eval import replay
from mnemo.eval.locomo import asks_locomo, ingest_locomo, load_locomo

TOPICS = [
    ("I adopted a greyhound named Zephyrine", "What is the name of Bob's greyhound?", "Zephyrine"),
    ("I went kayaking on Lake Wobegon", "Where did Bob go kayaking?", "Lake Wobegon"),
    ("My sister Ottilie moved to Reykjavik", "Where did Bob's sister Ottilie move?", "Reykjavik"),
    ("I started learning the bassoon in March", "Which instrument is Bob learning?", "the bassoon"),
]
FILLER = ["The weather was cloudy this morning", "Work has been busy lately",
          "We watched a movie last night", "Traffic was heavy on Monday"]  # fmt: skip


def sample() -> list[dict[str, Any]]:
    turns = []
    for i, (fact, _, _) in enumerate(TOPICS):
        turns.append({"speaker": "Bob", "dia_id": f"D1:{2 * i + 1}", "text": fact})
        turns.append({"speaker": "Alice", "dia_id": f"D1:{2 * i + 2}", "text": FILLER[i]})
    conv = {"speaker_a": "Alice", "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": turns}  # fmt: skip
    qa = [{"question": q, "answer": a, "evidence": [f"D1:{2 * i + 1}"], "category": 4}
          for i, (_, q, a) in enumerate(TOPICS)]  # fmt: skip
    return [{"sample_id": "conv-a", "conversation": conv, "qa": qa}]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("MNEMO_"):
            monkeypatch.delenv(key)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(sample()), encoding="utf-8")
    return path


def test_replay_stores_each_exchange_through_the_proxy_path(data: Path, tmp_path: Path) -> None:
    dataset = load_locomo(str(data))
    with Memory(str(tmp_path / "m.db"), embedder="hashing") as mem:
        ingest_locomo(mem, dataset)
        asks = asks_locomo(dataset)
        replay.replay_round(mem, asks, "answer", 1)
        replayed = [
            m for m in mem.messages(user_id="conv-a", limit=100) if m.session_id != "session_1"
        ]
        assert len(replayed) == 2 * len(asks) == 8
        assert {m.metadata["source"] for m in replayed} == {"replay"}
        first = sorted((m for m in replayed if m.content == TOPICS[0][1]), key=lambda m: m.seq)
        reply = next(
            m for m in replayed if m.session_id == first[0].session_id and m.role == "assistant"
        )
        assert reply.content == "Zephyrine" and asks[0].replies == [reply.id]
        # dated at the question's time (the conversation's end), the reply a second later
        assert (reply.created_at - first[0].created_at).total_seconds() == 1
        # user turn and reply written in one batch: one fact job sees both
        jobs = [j for j in mem.store.jobs.list_jobs(limit=100) if j.kind == "turns.facts"]
        assert any(set(j.payload["message_ids"]) == {first[0].id, reply.id} for j in jobs)


def test_cli_replay_reports_every_mode_and_round(data: Path, tmp_path: Path) -> None:
    out, png = tmp_path / "replay.json", tmp_path / "replay.png"
    args = ["locomo", "--data", str(data), "--embedder", "hashing", "--replay",
            "--replay-rounds", "2", "--json", str(out), "--plot", str(png)]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "chat replay" in res.output
    report = json.loads(out.read_text())
    runs = [(r["mode"], r["round"]) for r in report["results"]]
    assert runs == [
        ("fresh", 0),
        ("non_answer", 1),
        ("non_answer", 2),
        ("answer", 1),
        ("answer", 2),
    ]
    fresh = report["results"][0]["overall"]
    assert fresh["R@10"] == 1.0
    for r in report["results"]:
        assert r["overall"]["Dup"] == 0.0 and r["overall"]["CtxOver"] == 0.0
        assert r["overall"]["R@10"] == fresh["R@10"]  # stored talk takes no evidence's place
    assert all(r["overall"]["Ans|Ev@3"] == 1.0 for r in report["results"] if r["mode"] == "answer")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--database-url", "postgresql://x@127.0.0.1:9/db"], "--replay runs on copies"),
        (["--replay-rounds", "0"], "--replay-rounds"),
        (["--budget", "10"], "--budget"),
    ],
)
def test_cli_replay_bad_options_exit_2(data: Path, extra: list[str], message: str) -> None:
    res = CliRunner().invoke(
        app, ["locomo", "--data", str(data), "--embedder", "hashing", "--replay", *extra]
    )
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


def test_duplicate_texts_are_counted_on_words(data: Path) -> None:
    assert replay.has_duplicate_texts(["I'm not sure.", "i'm NOT sure!"])
    assert not replay.has_duplicate_texts(["a b", "a c"])
    ask = asks_locomo(load_locomo(str(data)))[0]
    assert replay.reply_for(ask, "non_answer") == replay.NON_ANSWER
    assert replay.reply_for(ask, "answer") == "Zephyrine"
