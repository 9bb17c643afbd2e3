"""The ranking signals are one list, and each seed preset switches off every signal it does
not use: a new signal whose default is on fails here until the seeds turn it off (or a seed's
own design uses it and the table below says so)."""

from __future__ import annotations

import json
from pathlib import Path

from mnemo import Memory
from mnemo.config.presets import PRESETS
from mnemo.config.search import RetrievalSettings
from mnemo.config.settings import Settings
from mnemo.retrieval.ranker_model import load
from mnemo.retrieval.rerank import create_reranker
from mnemo.retrieval.signals import signals_for

#: The reference presets: one per published design (docs/presets.md).
SEEDS = ("llmplatform", "llm-managed", "agent-cli", "tiered")

#: The signals each seed preset really uses. Every seed ranks by its own formula (cosine,
#: recency and MMR for `agent-cli`), none of mnemo's signals; `agent-cli`'s reranker is a
#: signal only once a reranker is configured (below).
USED: dict[str, set[str]] = {seed: set() for seed in SEEDS}

#: The signals of mnemo's default preset (docs/evaluation.md measures each).
DEFAULT_SIGNALS = {"neighbours", "speakers", "dates", "turn_kinds", "sessions"}


def active(settings: Settings) -> set[str]:
    """The names of the signals ``settings`` switch on."""
    return {s.name for s in signals_for(settings, create_reranker(settings)) if s.active}


def test_the_seed_presets_are_every_preset_but_default_and_topics() -> None:
    assert set(PRESETS) - {"default", "topics"} == set(SEEDS)


def test_every_signal_is_off_under_every_seed_preset_unless_the_seed_uses_it() -> None:
    for seed in SEEDS:
        assert active(Settings(preset=seed)) == USED[seed], seed


def test_each_signal_is_switched_on_by_its_settings(tmp_path: Path) -> None:
    # without this, a signal that is never active would pass the guard above
    assert active(Settings()) == active(Settings(preset="topics")) == DEFAULT_SIGNALS
    assert active(Settings(session_weight=0)) == DEFAULT_SIGNALS - {"sessions"}
    assert active(Settings(neighbor_weight=0, reply_weight=0)) == DEFAULT_SIGNALS - {"neighbours"}
    model = tmp_path / "cross-encoder"  # a model directory; nothing is loaded to build it
    model.mkdir()
    (model / "config.json").write_text(json.dumps({}), encoding="utf-8")
    configured = {"reranker": "cross-encoder", "reranker_model": str(model)}
    assert active(Settings(preset="agent-cli", **configured)) == {"rerank"}


def test_the_learned_stage_is_on_by_default_with_a_model_and_off_in_every_seed() -> None:
    model = load("onnx:all-MiniLM-L6-v2-q8")
    assert model is not None

    def on(settings: Settings) -> set[str]:
        return {s.name for s in signals_for(settings, None, model) if s.active}

    assert on(Settings()) == DEFAULT_SIGNALS | {"learned"}
    assert on(Settings(ranker_depth=0)) == DEFAULT_SIGNALS
    for seed in SEEDS:
        assert "learned" not in on(Settings(preset=seed)), seed


def test_every_signal_names_its_switches_and_has_a_formula() -> None:
    signals = signals_for(Settings(), None)
    assert len({s.name for s in signals}) == len(signals)
    for signal in signals:
        assert signal.switches, signal.name
        assert set(signal.switches) <= set(RetrievalSettings.model_fields), signal.name
        assert "rel'" in (type(signal).__doc__ or ""), f"{signal.name}: no formula"


def test_the_pipeline_runs_the_list_and_reads_turn_kinds_only_for_a_signal(db_path: str) -> None:
    with Memory(db_path, embedder="hashing") as mem:
        names = [s.name for s in mem.pipeline.signals]
        assert names == [s.name for s in signals_for(mem.settings, None)]
        assert mem.pipeline.uses_kinds
    for seed in SEEDS:
        with Memory(db_path, embedder="hashing", preset=seed) as mem:
            assert not mem.pipeline.uses_kinds, seed
    with Memory(db_path, embedder="hashing", preset="llmplatform", reply_weight=0.5) as mem:
        assert mem.pipeline.uses_kinds  # a reply is found by the question before it
