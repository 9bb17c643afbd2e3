"""Settings: the one home of mnemo's defaults (the presets that reproduce each seed design are
in :mod:`mnemo.config.presets`).

Precedence, highest first: constructor arguments > ``MNEMO_*`` environment variables > the TOML
file named by ``config_file`` (env ``MNEMO_CONFIG_FILE``) > the chosen preset > the defaults below.
The environment is read when a ``Settings`` is built, never at import time.

Every field's description is its documentation; ``docs/configuration.md`` lists them all and a
test keeps the two in step. The env var of field ``foo_bar`` is ``MNEMO_FOO_BAR``.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, model_validator

from mnemo.config.presets import PRESETS, PresetName
from mnemo.errors import ConfigError

ENV_PREFIX = "MNEMO_"


class Settings(BaseModel):
    """All of mnemo's configuration, frozen once built.

    >>> Settings(embedder="hashing").embedder
    'hashing'
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    # --- where data lives ---------------------------------------------------------------
    path: str = Field("mnemo.db", description="SQLite database file of the embedded store.")
    database_url: str | None = Field(
        None, description="postgresql://... URL; when set, PostgreSQL is used instead of SQLite."
    )
    database_pool_size: int = Field(
        10, ge=1, le=1000, description="Most PostgreSQL connections one process keeps open."
    )
    tenant: str = Field("default", description="Tenant every row is written under locally.")
    preset: PresetName = Field(
        "default",
        description="Named bundle of defaults: default, llmplatform, llm-managed, agent-cli, "
        "tiered or topics (one per seed design).",
    )
    config_file: str | None = Field(
        None, description="Optional TOML file whose keys are settings (below the env vars)."
    )

    files_dir: str | None = Field(
        None,
        description="Folder of seed 002's Markdown file store: every fact, turn and summary also "
        "as a file, kept in step both ways (None: off). See docs/files.md.",
    )
    reembed_on_open: bool = Field(
        False,
        description="When the store holds vectors of another embedder, re-embed them as the "
        "Memory opens (seed 001) instead of raising SchemaError. Resumable if interrupted.",
    )
    repair_on_open: bool = Field(
        False,
        description="Run seed 001's sync-on-startup repair as the Memory opens: re-sync "
        "full-text rows, embed rows without a vector, restore missing users rows.",
    )
    files_reconcile_on_open: bool = Field(
        True,
        description="With files_dir, reconcile files and store when a Memory opens (apply "
        "offline edits and deletions, write missing files).",
    )
    files_debounce_ms: int = Field(
        100, ge=1, le=60_000, description="The file watcher's debounce window, milliseconds."
    )

    # --- embedders ----------------------------------------------------------------------
    embedder: str = Field("local", description="Embedder name: local, openai or hashing.")
    embedder_model: str | None = Field(
        None,
        description="Model for the embedder: a local model directory for `local` (default: the "
        "bundled all-MiniLM-L6-v2), a model name for `openai`.",
    )
    embedder_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible /v1/embeddings endpoint."
    )
    embedder_api_key: str | None = Field(None, description="API key for `embedder_base_url`.")
    embedder_dim: int = Field(384, ge=8, le=8192, description="Vector size of `hashing`.")
    embed_batch_size: int = Field(64, ge=1, le=4096, description="Texts per embedding batch.")
    embed_threads: int | None = Field(
        None,
        ge=1,
        le=256,
        description="CPU threads of the local embedder (torch); unset keeps torch's default.",
    )
    embed_precision: Literal["auto", "float32", "bfloat16"] = Field(
        "auto",
        description="Local embedder arithmetic: bfloat16 is ~1.7x faster on CPUs with native "
        "bf16 (vectors within cosine 0.9999 of float32); auto uses it only there.",
    )
    embed_timeout_s: float = Field(30.0, gt=0, description="Timeout of one embedding request.")
    embed_max_retries: int = Field(3, ge=0, le=20, description="Retries of a failed request.")
    query_cache_size: int = Field(
        2048, ge=0, description="Query embeddings kept in memory (LRU); 0 disables."
    )

    # --- LLM (write path and proxy) -------------------------------------------------------
    llm_base_url: str | None = Field(
        None, description="OpenAI-compatible chat base URL; unset means rule-based fallbacks."
    )
    llm_model: str = Field("gpt-4o-mini", description="Chat model used for memory work.")
    llm_api_key: str | None = Field(None, description="API key for `llm_base_url`.")
    upstream_base_url: str | None = Field(
        None, description="The proxy's upstream chat URL; defaults to `llm_base_url`."
    )
    llm_timeout_s: float = Field(60.0, gt=0, description="Timeout of one chat request, seconds.")
    llm_max_retries: int = Field(
        3, ge=0, le=20, description="Retries of a chat request after a timeout, 429 or 5xx."
    )
    llm_backoff_cap_s: float = Field(
        30.0, gt=0, description="Longest wait between chat retries, also caps `Retry-After`."
    )

    # --- background jobs ---------------------------------------------------------------------
    job_lease_s: float = Field(
        300.0,
        gt=0,
        description="A running job whose worker stops renewing it for this long (killed) is "
        "claimed again.",
    )
    job_max_attempts: int = Field(
        5, ge=1, le=100, description="Tries of a failing job before it is marked dead."
    )
    worker_poll_s: float = Field(
        1.0, gt=0, description="How often an idle worker looks for ready jobs, seconds."
    )

    upstream_api_key: str | None = Field(
        None,
        description="Key the proxy sends upstream; unset forwards the client's bearer token "
        "(never a mnemo API key), else `llm_api_key`.",
    )
    upstream_timeout_s: float = Field(
        120.0, gt=0, description="Timeout of one upstream request of the proxy, in seconds."
    )

    # --- server ----------------------------------------------------------------------------
    host: str = Field(
        "127.0.0.1",
        description="Address `mnemo serve` binds; anything but loopback needs API keys.",
    )
    port: int = Field(8000, ge=0, le=65535, description="Port `mnemo serve` listens on.")
    serve_worker: bool = Field(
        True, description="Run the job worker in a thread inside `mnemo serve`."
    )
    context_budget_tokens: int = Field(
        1500, ge=50, le=1_000_000, description="Token budget of the memory a prompt gets."
    )

    # --- storage ---------------------------------------------------------------------------
    busy_timeout_ms: int = Field(
        30_000, ge=0, description="How long a writer waits for SQLite's lock before retrying."
    )
    synchronous: Literal["OFF", "NORMAL", "FULL", "EXTRA"] = Field(
        "FULL", description="SQLite PRAGMA synchronous; FULL survives power loss, not just kills."
    )
    max_content_chars: int = Field(
        100_000, ge=1, description="Longest message or memory accepted, in characters."
    )

    # --- search -------------------------------------------------------------------------
    search_limit: int = Field(10, ge=1, le=1000, description="Hits returned when no limit given.")
    pool_factor: int = Field(
        3, ge=1, le=100, description="Candidates per retriever and scope = limit x pool_factor."
    )
    min_pool: int = Field(50, ge=1, description="Candidates per retriever and scope, at least.")
    cross_session_threshold: int = Field(
        50, ge=0, description="A session with fewer items also searches the user's other sessions."
    )
    global_user_id: str | None = Field(
        "global", description="User whose items every search also sees; empty disables."
    )
    fusion: Literal["rrf", "blend"] = Field(
        "blend",
        description="How lexical and dense results are fused: blend (min-max normalised scores, "
        "weighted) or rrf (reciprocal rank fusion).",
    )
    rrf_k: float = Field(60.0, gt=0, description="Reciprocal rank fusion constant k.")
    lexical_weight: float = Field(
        1.0, ge=0, description="Weight of the BM25 ranking in fusion; 0 means dense only."
    )
    dense_weight: float = Field(
        1.0, ge=0, description="Weight of the embedding ranking in fusion; 0 means lexical only."
    )
    neighbor_weight: float = Field(
        0.3,
        ge=0,
        le=1,
        description="A turn gains this share of its best same-session neighbour's relevance; "
        "0 turns it off.",
    )
    neighbor_span: int = Field(1, ge=1, le=5, description="How many turns away a neighbour is.")
    speaker_weight: float = Field(
        0.5,
        ge=0,
        description="Turns by the speakers a query names (else by the user, or by the assistant "
        "when the query recalls what it said) get relevance x (1 + this); 0 turns it off.",
    )
    date_weight: float = Field(
        0.5,
        ge=0,
        description='Turns written inside the time window of a date the query names ("in '
        'June", "on 1 February, 2023", "last week"; see retrieval.dates) get relevance '
        "x (1 + this); 0 turns it off.",
    )
    strip_speaker_names: bool = Field(
        True,
        description="Cut the speaker names a query mentions from the text embedded for the "
        "dense side (turns are embedded without their speaker name).",
    )
    session_weight: float = Field(
        0.0,
        ge=0,
        le=1,
        description="A turn gains this share of its session's normalised top-3 relevance; "
        "0 turns session aggregation off.",
    )
    key_chunk_words: int = Field(
        64,
        ge=0,
        description="A user turn longer than this many words also gets extra index keys: runs "
        "of whole sentences of at most this many words, each embedded (see retrieval.keys); "
        "0 writes no keys. Applies to turns written afterwards; `mnemo repair` fills in turns "
        "that have no keys yet.",
    )
    fact_keys: bool = Field(
        True,
        description='Every turn also gets the facts the rules find in it ("I adopted a beagle '
        'called Biscuit" inside a longer message) as extra index keys (see retrieval.keys).',
    )
    key_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="A keyed turn's cosine is (1 - w) x its own + w x max(its own, its best "
        "key's); 0 ignores keys.",
    )
    min_similarity: float = Field(
        0.0, ge=-1, le=1, description="Dense candidates below this cosine are dropped."
    )
    score_threshold: float = Field(
        0.0, ge=0, le=1, description="Hits whose normalised relevance is below this are dropped."
    )
    recency_weight: float = Field(
        0.15,
        ge=0,
        le=1,
        description="w in total = (1-w)*relevance + w*exp(-age_days/tau); 0 turns recency off. "
        "A newer statement wins over an older one of equal relevance (knowledge updates).",
    )
    recency_tau_days: float = Field(30.0, gt=0, description="Recency decay constant tau, in days.")
    reranker: str | None = Field(
        None,
        description="Rerank the best fused candidates with this model kind: cross-encoder "
        "(needs `reranker_model`); unset turns reranking off.",
    )
    reranker_model: str | None = Field(
        None,
        description="Local directory of the reranker's model (a sentence-transformers / "
        "Hugging Face cross-encoder with one output); none is bundled or downloaded.",
    )
    rerank_top_n: int = Field(
        30,
        ge=1,
        le=1000,
        description="How many candidates of highest fused relevance the reranker rescores.",
    )
    rerank_weight: float = Field(
        1.0,
        ge=0,
        le=1,
        description="w in rel' = (1-w)*rel + w*rerank, the reranker score mapped onto the "
        "rescored set's relevance range; 1 orders that set by the reranker alone.",
    )
    rerank_batch_size: int = Field(
        32, ge=1, le=1024, description="(query, passage) pairs per reranker model pass."
    )
    use_mmr: bool = Field(False, description="Diversify the final hits with MMR.")
    mmr_lambda: float = Field(
        0.7, ge=0, le=1, description="MMR trade-off: lambda*score - (1-lambda)*redundancy."
    )

    # --- profile, episodes and summaries (seeds 000, 002, 003) ------------------------------
    profile_enabled: bool = Field(
        True, description="Distil structured profile facts from user turns (job turns.profile)."
    )
    profile_min_confidence: float = Field(
        0.4, ge=0, le=1, description="Profile candidates below this confidence are dropped."
    )
    profile_min_importance: float = Field(
        0.2, ge=0, le=1, description="Profile candidates below this importance are dropped."
    )
    profile_context_min_importance: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Stage 1 of retrieval: active profile facts at or above this importance.",
    )
    episodes_enabled: bool = Field(
        True,
        description="Compress the short-term window of each session into episodes "
        "(job turns.episodes).",
    )
    window_max_turns: int = Field(
        20, ge=2, le=10_000, description="Short-term window size that triggers compression."
    )
    window_keep_turns: int = Field(
        10, ge=1, le=10_000, description="Most recent turns the window keeps after compression."
    )
    session_summary_enabled: bool = Field(
        False, description="Write a session summary every `summary_interval` pairs (seed 000)."
    )
    summary_interval: int = Field(
        10, ge=1, le=10_000, description="Message pairs between two session summaries."
    )
    summary_messages: int = Field(
        12, ge=2, le=1000, description="Latest messages a session summary covers."
    )
    summary_max_tokens: int = Field(
        120, ge=16, le=4096, description="Token limit of an LLM session summary (4-6 bullets)."
    )
    summary_temperature: float = Field(
        0.2, ge=0, le=2, description="Sampling temperature of LLM summaries."
    )
    rolling_summary_enabled: bool = Field(
        False, description="Keep one rolling summary per conversation (seed 002)."
    )
    rolling_summary_max_points: int = Field(
        12, ge=1, le=200, description="Key points a rule-based rolling summary keeps."
    )
    max_entries: int | None = Field(
        None,
        ge=1,
        description="Per-conversation cap on turns and facts in the working set; the oldest are "
        "evicted from search (turns stay stored). Unset: no eviction.",
    )
    # --- facts (write path) -----------------------------------------------------------------
    fact_extraction: Literal["single", "atomic", "off"] = Field(
        "atomic",
        description="How facts are drawn from turns: atomic (0-3 facts from each user message, "
        "seed 002), single (one fact or nothing per user/assistant exchange, seed 001) or off.",
    )
    fact_max_per_turn: int = Field(
        3, ge=1, le=20, description="Most facts taken from one user message in atomic mode."
    )
    fact_min_chars: int = Field(10, ge=1, description="Shorter extracted facts are discarded.")
    fact_max_chars: int = Field(500, ge=10, description="Longer extracted facts are discarded.")
    fact_dedupe_threshold: float = Field(
        0.90,
        ge=0,
        le=1,
        description="A new fact whose cosine with an existing fact or a document chunk reaches "
        "this is a duplicate and is not stored.",
    )
    fact_context_k: int = Field(
        8, ge=0, le=100, description="Existing facts shown to the single-fact extractor."
    )
    fact_reconcile_k: int = Field(
        5, ge=1, le=50, description="Nearest existing facts each new fact is reconciled against."
    )
    document_chunk_words: int = Field(
        150,
        ge=10,
        le=5000,
        description="Words per chunk of an attached document (fits the embedder's window).",
    )
    document_chunk_overlap: int = Field(
        25, ge=0, le=1000, description="Words shared by neighbouring document chunks."
    )
    max_document_chars: int = Field(
        1_000_000, ge=1, description="Longest context document accepted, in characters."
    )
    # --- topics (seed 004) ----------------------------------------------------------------
    topics_enabled: bool = Field(
        False,
        description="Match every turn written by add_messages to a topic (a turns.topics job); "
        "the topic API (add_user_message...) matches inline either way.",
    )
    topic_similarity_threshold: float = Field(
        0.7, ge=-1, le=1, description="A user turn joins its best topic when cosine > this."
    )
    topic_title_chars: int = Field(80, ge=1, description="A new topic's title: first N chars.")
    topic_default_importance: float = Field(
        0.5, ge=0, le=1, description="Importance of a new topic when none is given."
    )
    topic_max_messages_per_topic: int = Field(
        12, ge=1, description="Active messages above which a topic is compacted."
    )
    topic_recent_message_keep: int = Field(
        4, ge=0, description="Most recent messages a compaction keeps active."
    )
    topic_max_topics: int = Field(
        20, ge=1, description="Working-set topics per conversation above which decay runs."
    )
    topic_min_priority: float = Field(
        0.05, ge=0, le=1, description="Decay removes topics whose priority is below this."
    )
    topic_base_half_life_seconds: float = Field(
        86_400.0, gt=0, description="Half-life of a short-term topic (1 day)."
    )
    topic_max_half_life_seconds: float = Field(
        2_592_000.0, gt=0, description="Longest half-life of a long-term topic (30 days)."
    )
    topic_access_threshold_for_lt: int = Field(
        5, ge=1, description="The half-life doubles every this many accesses."
    )
    topic_merge_threshold: float | None = Field(
        0.85,
        ge=-1,
        le=1,
        description="Two topics of a conversation merge when their embeddings' cosine exceeds "
        "this; 1 or unset disables merging.",
    )
    topic_incremental_summary: bool = Field(
        True,
        description="A compaction extends the previous summary with the newly compacted "
        "messages instead of summarising the whole history again.",
    )
    topic_summary_max_chars: int = Field(
        1200, ge=80, description="Longest rule-based topic summary, in characters."
    )
    topic_feedback_rate: float = Field(
        0.2, gt=0, le=1, description="How far one feedback signal moves a topic's importance."
    )

    @model_validator(mode="before")
    @classmethod
    def _layer_sources(cls, data: Any) -> Any:
        """Merge defaults < preset < TOML < environment < constructor arguments."""
        explicit = dict(data) if isinstance(data, dict) else {}
        env = read_env(os.environ)
        config_file = explicit.get("config_file") or env.get("config_file")
        layered: dict[str, Any] = read_toml(config_file) if config_file else {}
        layered.update(env)
        layered.update(explicit)
        preset = layered.get("preset", "default")
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset {preset!r}; choose one of {sorted(PRESETS)}")
        return {**PRESETS[preset], **layered}

    @model_validator(mode="after")
    def _check_window(self) -> Settings:
        """The window must keep fewer turns than the size that triggers compression."""
        if self.window_keep_turns >= self.window_max_turns:
            raise ValueError("window_keep_turns must be smaller than window_max_turns")
        return self

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            raise ConfigError(_describe(exc)) from None

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied and validated (the environment is not re-read)."""
        merged = self.model_dump()
        merged.update(changes)
        return Settings(**merged)

    @property
    def llm_enabled(self) -> bool:
        """True when an LLM base URL is configured."""
        return bool(self.llm_base_url)


def read_env(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """The ``MNEMO_*`` variables that name a setting, keyed by field name."""
    fields = Settings.model_fields
    out: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith(ENV_PREFIX):
            name = key[len(ENV_PREFIX) :].lower()
            if name in fields:
                out[name] = value
    return out


def read_toml(path: str | Path) -> dict[str, Any]:
    """Settings from a TOML file: top-level keys, or a ``[mnemo]`` table."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {p} is not valid TOML: {exc}") from None
    table = data.get("mnemo", data)
    unknown = sorted(set(table) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"config file {p}: unknown settings {unknown}")
    return dict(table)


def _describe(exc: pydantic.ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "settings"
        parts.append(f"{loc}: {err['msg']}")
    return "invalid settings: " + "; ".join(parts)


__all__ = ["PRESETS", "Settings"]
