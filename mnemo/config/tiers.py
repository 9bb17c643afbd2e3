"""Conversation-tier settings: profile, episodes, summaries and the working-set cap
(`llmplatform`, `agent-cli`, `tiered`).

Names in this group: ``profile_enabled``, ``profile_min_confidence``,
``profile_min_importance``, ``profile_context_min_importance``, ``episodes_enabled``,
``window_max_turns``, ``window_keep_turns``, ``session_summary_enabled``, ``summary_interval``,
``summary_messages``, ``summary_max_tokens``, ``summary_temperature``,
``rolling_summary_enabled``, ``rolling_summary_max_points``, ``max_entries``.

Prefix drift, kept for compatibility: the episode window is ``window_*`` next to
``episodes_enabled``; session summaries are switched by ``session_summary_enabled`` but tuned by
``summary_*``; ``max_entries`` has no prefix. ``profile_context_min_importance`` is meant for
context assembly (stage 1 of retrieval).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from mnemo.config.bounds import share, size
from mnemo.config.group import SettingsGroup


class TierSettings(SettingsGroup):
    """The conversation tiers: profile facts, episode window, summaries and eviction."""

    profile_enabled: bool = Field(
        True, description="Distil structured profile facts from user turns (job turns.profile)."
    )
    profile_min_confidence: float = share(
        0.4, "Profile candidates below this confidence are dropped."
    )
    profile_min_importance: float = share(
        0.2, "Profile candidates below this importance are dropped."
    )
    profile_context_min_importance: float = share(
        0.5, "Stage 1 of retrieval: active profile facts at or above this importance."
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
        False, description="Write a session summary every `summary_interval` pairs (`llmplatform`)."
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
        False, description="Keep one rolling summary per conversation (`agent-cli`)."
    )
    rolling_summary_max_points: int = Field(
        12, ge=1, le=200, description="Key points a rule-based rolling summary keeps."
    )
    max_entries: int | None = size(
        None,
        "Per-conversation cap on turns and facts in the working set; the oldest are "
        "evicted from search (turns stay stored). Unset: no eviction.",
    )

    @model_validator(mode="after")
    def _check_window(self) -> TierSettings:
        """The window must keep fewer turns than the size that triggers compression."""
        if self.window_keep_turns >= self.window_max_turns:
            raise ValueError("window_keep_turns must be smaller than window_max_turns")
        return self


__all__ = ["TierSettings"]
