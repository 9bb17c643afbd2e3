"""Retrieval settings: how a search pools, fuses, weighs, reranks and trims its hits.

Names in this group: ``search_limit``, ``pool_factor``, ``min_pool``,
``cross_session_threshold``, ``global_user_id``, ``fusion``, ``rrf_k``, ``lexical_weight``,
``lexical_coverage_power``, ``dense_weight``, ``neighbor_weight``, ``neighbor_span``,
``speaker_weight``, ``date_weight``, ``strip_speaker_names``, ``speaker_aliases``,
``session_weight``,
``key_chunk_words``, ``fact_keys``, ``key_weight``, ``min_similarity``, ``dense_window``,
``score_threshold``, ``recency_weight``, ``recency_tau_days``, ``reranker``,
``reranker_model``, ``rerank_top_n``, ``rerank_weight``, ``rerank_relevance``,
``rerank_batch_size``, ``use_mmr``, ``mmr_lambda``, ``question_prior``, ``non_answer_prior``,
``greeting_prior``, ``reply_weight``, ``duplicate_similarity``, ``source_similarity``,
``min_relevance``, ``min_expected_evidence``, ``ranker_depth``.

Prefix drift, kept for compatibility: the reranker is chosen by ``reranker`` /
``reranker_model`` but tuned by ``rerank_*``; ``fact_keys`` (rule facts as index keys) shares
the ``fact_`` prefix of :mod:`mnemo.config.facts` but belongs here; ``key_chunk_words`` and
``fact_keys`` are applied on the write path (index.keys) and read by the search.

Each ranking signal (:mod:`mnemo.retrieval.signals`) names the settings here that switch it
on; the seed presets set every one of them off (``_SEED_RANKING`` in
:mod:`mnemo.config.presets`), and ``tests/retrieval/test_signals.py`` fails when a signal is
on under a seed preset that does not use it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mnemo.config.bounds import cosine, count, positive, share, size, weight
from mnemo.config.group import SettingsGroup


class RetrievalSettings(SettingsGroup):
    """The read path: candidate pools, fusion, ranking signals, reranker and MMR."""

    search_limit: int = Field(10, ge=1, le=1000, description="Hits returned when no limit given.")
    pool_factor: int = Field(
        3, ge=1, le=100, description="Candidates per retriever and scope = limit x pool_factor."
    )
    min_pool: int = size(50, "Candidates per retriever and scope, at least.")
    cross_session_threshold: int = count(
        50,
        "The conversation being answered (a search's current_session: context assembly and "
        "the proxy) also searches the user's other sessions while it holds fewer items; a "
        "search's session_id always narrows.",
    )
    global_user_id: str | None = Field(
        "global", description="User whose items every search also sees; empty disables."
    )
    fusion: Literal["rrf", "blend", "cosine"] = Field(
        "blend",
        description="How lexical and dense results are fused: blend (min-max normalised scores, "
        "weighted), rrf (reciprocal rank fusion) or cosine (relevance is the dense cosine "
        "itself, no lexical side: the seed presets, whose scores and thresholds are cosines).",
    )
    rrf_k: float = positive(60.0, "Reciprocal rank fusion constant k.")
    lexical_weight: float = weight(1.0, "Weight of the BM25 ranking in fusion; 0 means dense only.")
    lexical_coverage_power: float = Field(
        0.0,
        ge=0,
        le=4,
        description="Under fusion blend, the BM25 side's normalised scores are multiplied by "
        "min(1, c)^p, c = the best BM25 match's score / the sum of the query terms' idf (the "
        "share of the query it covers; see retrieval.coverage); 0 (default) leaves them plain "
        "min-max (evaluation.md: .33 trades LoCoMo R@1 -1.2 points for All@10 +0.8).",
    )
    dense_weight: float = weight(
        1.0, "Weight of the embedding ranking in fusion; 0 means lexical only."
    )
    neighbor_weight: float = share(
        0.3,
        "A turn gains this share of its best same-session neighbour's relevance; 0 turns it off.",
    )
    neighbor_span: int = Field(1, ge=1, le=5, description="How many turns away a neighbour is.")
    speaker_weight: float = weight(
        0.5,
        "Turns by the speakers a query names (else by the user, or by the assistant "
        "when the query recalls what it said) get relevance x (1 + this); 0 turns it off.",
    )
    date_weight: float = weight(
        0.5,
        'Turns written inside the time window of a date the query names ("in '
        'June", "on 1 February, 2023", "last week"; see retrieval.dates) get relevance '
        "x (1 + this); 0 turns it off.",
    )
    strip_speaker_names: bool = Field(
        True,
        description="Cut the speaker names a query mentions from the text embedded for the "
        "dense side (turns are embedded without their speaker name).",
    )
    speaker_aliases: bool = Field(
        True,
        description="Also know speakers by the names others call them in the conversation "
        '("Hey Jess!", "Thanks, Sam", "call me Jess"; see retrieval.aliases), for the speaker '
        "prior and name cutting.",
    )
    session_weight: float = share(
        0.15,
        "A turn gains this share of its session's normalised top-3 relevance; "
        "0 turns session aggregation off.",
    )
    key_chunk_words: int = count(
        64,
        "A user turn longer than this many words also gets extra index keys: runs "
        "of whole sentences of at most this many words, each embedded (see index.keys); "
        "0 writes no keys. Applies to turns written afterwards; `mnemo repair` fills in turns "
        "that have no keys yet.",
    )
    fact_keys: bool = Field(
        True,
        description='Every turn also gets the facts the rules find in it ("I adopted a beagle '
        'called Biscuit" inside a longer message) as extra index keys (see index.keys).',
    )
    key_weight: float = share(
        0.5,
        "A keyed turn's cosine is (1 - w) x its own + w x max(its own, its best "
        "key's); 0 ignores keys.",
    )
    min_similarity: float = cosine(0.0, "Dense candidates below this cosine are dropped.")
    dense_window: int | None = size(
        None,
        "Dense search compares only this many most recent vectors of each "
        "scope (`llmplatform`'s 200); unset compares them all.",
    )
    score_threshold: float = share(
        0.0,
        "Hits whose relevance is below this are dropped: the fused relevance, or "
        "under fusion cosine the cosine (the reranker's sigmoid with rerank_relevance sigmoid).",
    )
    recency_weight: float = share(
        0.15,
        "w in total = (1-w)*relevance + w*exp(-age_days/tau); 0 turns recency off. "
        "A newer statement wins over an older one of equal relevance (knowledge updates).",
    )
    recency_tau_days: float = positive(30.0, "Recency decay constant tau, in days.")
    ranker_depth: int = count(
        50,
        "The learned last stage re-orders this many distinct candidates by the fitted "
        "probability that each is evidence (mnemo.retrieval.signals.learned); 0 turns it off "
        "(an embedder without a fitted model keeps the earlier order anyway).",
    )
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
    rerank_weight: float = share(
        1.0,
        "w in rel' = (1-w)*rel + w*rerank, the reranker score mapped onto the "
        "rescored set's relevance range; 1 orders that set by the reranker alone.",
    )
    rerank_relevance: Literal["blend", "sigmoid"] = Field(
        "blend",
        description="What the reranker makes of relevance: blend (its score mapped onto the "
        "rescored set's relevance range, blended by rerank_weight) or sigmoid (every candidate "
        "is rescored and its relevance is sigmoid(logit), the scale score_threshold then "
        "applies to: `agent-cli`).",
    )
    rerank_batch_size: int = Field(
        32, ge=1, le=1024, description="(query, passage) pairs per reranker model pass."
    )
    question_prior: float = share(
        0.1,
        "Relevance factor of a turn that asks without telling (\"What is my dog's "
        'name?"); 1 ranks it like any statement (see retrieval.talk).',
    )
    non_answer_prior: float = share(
        0.1,
        "Relevance factor of an assistant turn that only declines or does not know "
        '("I\'m not sure, could you remind me?"); 1 turns it off.',
    )
    greeting_prior: float = share(
        0.2,
        "Relevance factor of a turn of courtesies only (greetings, thanks, "
        "farewells); 1 turns it off.",
    )
    reply_weight: float = share(
        0.8,
        "A turn right after a question turn, by another speaker, gains this share of "
        "the question's relevance (instead of neighbor_weight); 0 turns it off.",
    )
    duplicate_similarity: float = share(
        0.97,
        "Hits whose vectors have at least this cosine (or whose words are equal) "
        "collapse into the best-ranked one, which lists the others in `duplicates`.",
    )
    source_similarity: float = share(
        0.8,
        "A memory and the turn it was distilled from collapse into one hit when "
        "their cosine is at least this.",
    )
    min_relevance: float = share(
        0.004,
        "Context assembly (and so the proxy) injects no hit whose calibrated "
        "relevance (hit.relevance, the fitted probability that it is evidence for the query) "
        "is below this; when E, the sum of the best five hits' relevances (the expected "
        "evidence among them), is under 0.5, the bar rises to this x 0.5 / E: the less the "
        "history has to say, the surer an item must be. Search still returns every hit. "
        "0 turns the floor off (the seed presets).",
    )
    min_expected_evidence: float = share(
        0.08,
        "Context assembly injects no hit at all when E, the sum of the best five hits' "
        "calibrated relevances (the expected number of evidence hits among them), is below "
        "this: a query about something the store never discussed gets an empty context (see "
        "scores.md); 0 turns it off (the seed presets).",
    )
    use_mmr: bool = Field(False, description="Diversify the final hits with MMR.")
    mmr_lambda: float = share(0.7, "MMR trade-off: lambda*score - (1-lambda)*redundancy.")


__all__ = ["RetrievalSettings"]
