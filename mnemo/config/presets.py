"""The presets: each published design's documented numbers, applied over the defaults of
:class:`mnemo.config.settings.Settings` when the preset is chosen (``preset = "agent-cli"``)."""

from __future__ import annotations

from typing import Any, Literal

PresetName = Literal["default", "llmplatform", "llm-managed", "agent-cli", "tiered", "topics"]

#: Each published design's documented numbers, applied over the defaults when the preset is chosen.
# The seeds rank by their own formulas: none of mnemo's context, speaker or turn-kind signals,
# and only exact repeats collapse into one hit (a near-duplicate or a fact and its turn stay two).
# Every ranking signal of mnemo.retrieval.signals is switched off here: a new one's switches
# go here too (tests/retrieval/test_signals.py fails while a seed preset has it on).
_SEED_RANKING: dict[str, Any] = {
    "neighbor_weight": 0.0,
    "session_weight": 0.0,
    "speaker_weight": 0.0,
    "strip_speaker_names": False,
    "key_chunk_words": 0,
    "fact_keys": False,
    "key_weight": 0.0,
    "recency_weight": 0.0,
    "date_weight": 0.0,
    "question_prior": 1.0,
    "non_answer_prior": 1.0,
    "greeting_prior": 1.0,
    "reply_weight": 0.0,
    "duplicate_similarity": 1.0,
    "source_similarity": 1.0,
    "min_relevance": 0.0,
    "min_expected_evidence": 0.0,
    "ranker_depth": 0,
}

#: The settings each preset lays over the defaults, by preset name (``default`` changes none).
PRESETS: dict[str, dict[str, Any]] = {
    # mnemo's measured best: every signal of the read path, facts (atomic), profile, episodes.
    "default": {},
    # `llmplatform`: top-8 by cosine over >= 0.45 (the score is the cosine), among the 200 most
    # recent vectors, cross-session below 50 vectors; a session summary every 10 pairs and
    # key/value user facts (the profile).
    "llmplatform": {
        **_SEED_RANKING,
        "search_limit": 8,
        "min_similarity": 0.45,
        "fusion": "cosine",
        "dense_window": 200,
        "lexical_weight": 0.0,
        "cross_session_threshold": 50,
        "fact_extraction": "off",
        "episodes_enabled": False,
        "session_summary_enabled": True,
    },
    # `llm-managed`: top-5 by cosine over >= 0.5; one fact or NOTHING after each reply, stored as
    # it is (no reconciliation), none without an extractor model; the extractor is shown the
    # top-8 existing facts over 0.5; the store is synced on startup (re-embed and repair).
    "llm-managed": {
        **_SEED_RANKING,
        "search_limit": 5,
        "min_similarity": 0.5,
        "fusion": "cosine",
        "lexical_weight": 0.0,
        "fact_extraction": "single",
        "fact_reconcile": False,
        "fact_rule_fallback": False,
        "fact_context_k": 8,
        "reembed_on_open": True,
        "repair_on_open": True,
        "profile_enabled": False,
        "episodes_enabled": False,
    },
    # `agent-cli`: dense only, pool top_k*3 per scope, scopes = the conversation and `global`;
    # relevance = the cosine, or sigmoid(reranker logit) with a reranker, threshold .35 on it;
    # recency 0.2 over 30 days, MMR lambda 0.7; 0-3 atomic facts per user message, reconciled
    # (no additions -> the originals are added), a rolling summary, 500 entries per
    # conversation (max_entries: agent-cli's configurable cap, 500 chosen here), and the
    # Markdown file store on (files_dir, else beside the database file). One person's proxy:
    # its client sends `memory_id` and no `user`, so requests without one are user `default`.
    "agent-cli": {
        **_SEED_RANKING,
        "fusion": "cosine",
        "lexical_weight": 0.0,
        "rerank_relevance": "sigmoid",
        "files_enabled": True,
        "search_limit": 5,
        "pool_factor": 3,
        "min_pool": 1,
        "cross_session_threshold": 0,
        "recency_weight": 0.2,
        "recency_tau_days": 30.0,
        "use_mmr": True,
        "mmr_lambda": 0.7,
        "score_threshold": 0.35,
        "fact_extraction": "atomic",
        "fact_reconcile_none_adds": True,
        "profile_enabled": False,
        "episodes_enabled": False,
        "rolling_summary_enabled": True,
        "max_entries": 500,
        "proxy_default_user": "default",
    },
    # `tiered`: 3 episodes by cosine distance < 0.4 (similarity > 0.6); structured profile facts
    # and the short-term window compressed into episodes.
    "tiered": {
        **_SEED_RANKING,
        "search_limit": 3,
        "min_similarity": 0.6,
        "fusion": "cosine",
        "lexical_weight": 0.0,
        "fact_extraction": "off",
        "profile_enabled": True,
        "episodes_enabled": True,
    },
    # `topics`: topic memory as written: matching on, no topic merging, summaries regenerated;
    # retrieval keeps the defaults.
    "topics": {
        "fact_extraction": "off",
        "profile_enabled": False,
        "episodes_enabled": False,
        "topics_enabled": True,
        "topic_merge_threshold": None,
        "topic_incremental_summary": False,
    },
}
