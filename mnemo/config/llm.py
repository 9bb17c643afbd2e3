"""LLM settings: the chat model that does memory work on the write path.

Names in this group: ``llm_base_url``, ``llm_model``, ``llm_api_key``, ``llm_timeout_s``,
``llm_max_retries``, ``llm_backoff_cap_s`` (all ``llm_``). The proxy's ``upstream_*`` settings
belong to :mod:`mnemo.config.server`.
"""

from __future__ import annotations

from pydantic import Field

from mnemo.config.bounds import positive, retries
from mnemo.config.group import SettingsGroup


class LLMSettings(SettingsGroup):
    """The chat LLM: endpoint, model, key, timeout and retries."""

    llm_base_url: str | None = Field(
        None, description="OpenAI-compatible chat base URL; unset means rule-based fallbacks."
    )
    llm_model: str = Field("gpt-4o-mini", description="Chat model used for memory work.")
    llm_api_key: str | None = Field(None, description="API key for `llm_base_url`.")
    llm_timeout_s: float = positive(60.0, "Timeout of one chat request, seconds.")
    llm_max_retries: int = retries(3, "Retries of a chat request after a timeout, 429 or 5xx.")
    llm_backoff_cap_s: float = positive(
        30.0, "Longest wait between chat retries, also caps `Retry-After`."
    )

    @property
    def llm_enabled(self) -> bool:
        """True when an LLM base URL is configured."""
        return bool(self.llm_base_url)


__all__ = ["LLMSettings"]
