"""Server settings: ``mnemo serve``, its chat proxy and the context it hands out.

Names in this group: ``host``, ``port``, ``serve_worker``, ``context_budget_tokens``,
``upstream_base_url``, ``upstream_api_key``, ``upstream_timeout_s``, ``proxy_default_user``,
``allowed_hosts``, ``metrics_public``, ``max_request_bytes``.
The proxy's upstream falls back to the LLM group's ``llm_base_url`` / ``llm_api_key``
(:mod:`mnemo.config.llm`).
"""

from __future__ import annotations

from pydantic import Field, field_validator

from mnemo.config.bounds import positive
from mnemo.config.group import SettingsGroup


class ServerSettings(SettingsGroup):
    """The HTTP server: bind address, worker thread, context budget and the upstream proxy."""

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
    upstream_base_url: str | None = Field(
        None,
        description="The proxy's upstream chat URL; defaults to `llm_base_url`. `echo` is a "
        "built-in demo upstream that answers without a model, quoting what mnemo sent it "
        "(its replies are not stored).",
    )
    upstream_api_key: str | None = Field(
        None,
        description="Key the proxy sends upstream; unset forwards the client's bearer token "
        "(never a mnemo API key), else `llm_api_key`.",
    )
    upstream_timeout_s: float = positive(
        120.0, "Timeout of one upstream request of the proxy, in seconds."
    )
    proxy_default_user: str | None = Field(
        None,
        description="User id of a proxy request that has no `user` field; unset (the default) "
        "refuses such a request with 422, so users who give no id never share one memory "
        "(the single-user `agent-cli` preset sets `default`).",
    )
    allowed_hosts: str = Field(
        "",
        description="Comma-separated host names the server answers for while it has no API "
        "keys, besides localhost and loopback addresses (DNS-rebinding protection).",
    )
    metrics_public: bool = Field(
        False,
        description="Serve `/metrics` without an API key even while keys are in use (for a "
        "scraper on a private network); by default it needs a key then, like every route.",
    )
    max_request_bytes: int = Field(
        16 * 1024 * 1024,
        ge=1024,
        description="Largest HTTP request body `mnemo serve` reads, in bytes; a larger one is "
        "refused with 413 before it is read.",
    )

    @field_validator("proxy_default_user")
    @classmethod
    def _a_user_id(cls, value: str | None) -> str | None:
        """A default user is a user id: not blank, at most 256 characters."""
        if value is not None and not value.strip():
            raise ValueError(
                "must not be blank: a user id, or unset to refuse requests without one"
            )
        if value is not None and len(value) > 256:
            raise ValueError("is longer than 256 characters (a user id)")
        return value


__all__ = ["ServerSettings"]
