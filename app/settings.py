"""Settings: one `Settings` object built by `get_settings()`, read from `STUDIO_*` variables and `.env`.

Nothing reads the environment at import time; call `get_settings()` (or build `Settings(...)` in tests).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class ReviewThresholds(BaseSettings):
    """Minimum scores (0..1) a package needs on each review dimension, and overall, to pass."""

    model_config = SettingsConfigDict(extra="forbid")

    overall: float = Field(0.72, ge=0, le=1)
    info_density: float = Field(0.6, ge=0, le=1)
    text_image_alignment: float = Field(0.6, ge=0, le=1)
    style_consistency: float = Field(0.6, ge=0, le=1)
    readability: float = Field(0.6, ge=0, le=1)
    platform_fit: float = Field(0.6, ge=0, le=1)


class ProviderSettings(BaseSettings):
    """One provider's endpoint and key, keyed by litellm's provider prefix:
    `STUDIO_PROVIDERS__DEEPSEEK__API_KEY`, `STUDIO_PROVIDERS__OPENAI__API_BASE`."""

    model_config = SettingsConfigDict(extra="forbid")

    api_base: str | None = None
    api_key: str | None = None


class Settings(BaseSettings):
    """Every setting of the studio. See `.env.example` for the documented list."""

    model_config = SettingsConfigDict(
        env_prefix="STUDIO_",
        env_file=".env",
        env_file_encoding="utf-8",
        env_nested_delimiter="__",
        extra="ignore",
        hide_input_in_errors=True,  # a bad setting's error names it, never echoes it (URLs, keys: secrets)
    )

    # --- storage -------------------------------------------------------------------------------------
    data_dir: Path = Field(
        Path(".studio"), description="Where the database, checkpoints, store and images live."
    )
    database_url: str | None = Field(
        None,
        description="sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE (the studio picks the "
        "driver); default: SQLite in the data dir.",
    )
    checkpoint_db: Path | None = Field(
        None, description="LangGraph checkpoint SQLite file; default in data dir."
    )

    # --- models --------------------------------------------------------------------------------------
    llm_model: str = Field(
        "studio/offline", description="Any litellm model name, e.g. deepseek/deepseek-chat."
    )
    llm_api_base: str | None = Field(None, description="The text model's API base (e.g. an Ollama server).")
    llm_api_key: str | None = Field(None, description="The text model's API key.")
    llm_temperature: float = Field(0.7, ge=0, le=2)
    llm_timeout_s: float = Field(60.0, gt=0, description="Timeout of one LLM call.")
    llm_max_retries: int = Field(2, ge=0, le=10, description="Retries on transient errors (with backoff).")
    llm_max_reasks: int = Field(1, ge=0, le=5, description="Re-asks with the validation error on bad output.")
    vision_model: str | None = Field(
        None,
        description="litellm model for reference images; unset: the text model when it can see images, "
        "else offline pixel analysis.",
    )
    vision_api_base: str | None = None
    vision_api_key: str | None = None
    providers: dict[str, ProviderSettings] = Field(
        default_factory=dict,
        description="Per-provider API base and key, keyed by litellm's prefix (openai, deepseek…).",
    )
    max_run_cost_usd: float | None = Field(
        None, gt=0, description="Spending cap per run in USD (known prices only); unset: no cap."
    )
    offline_latency_ms: float = Field(0.0, ge=0, description="Simulated latency per offline LLM call.")
    offline_failure_rate: float = Field(0.0, ge=0, le=1, description="Share of offline calls that fail.")
    offline_first_token_ms: float | None = Field(
        None,
        ge=0,
        description="Simulated time to the offline model's first streamed chunk; unset: a fifth of "
        "offline_latency_ms.",
    )
    offline_chars_per_s: float | None = Field(
        None,
        gt=0,
        description="Simulated streaming rate of the offline model; unset: the rest of "
        "offline_latency_ms spread over the answer.",
    )
    offline_image_latency_ms: float = Field(0.0, ge=0, description="Simulated latency per offline image.")
    offline_image_failure_rate: float = Field(
        0.0, ge=0, le=1, description="Share of offline images that fail."
    )

    # --- images --------------------------------------------------------------------------------------
    image_provider: str = Field("offline", description="'offline' or a litellm image model, e.g. dall-e-3.")
    image_api_base: str | None = None
    image_api_key: str | None = None
    image_concurrency: int = Field(4, ge=1, le=16)
    render_workers: int = Field(
        2,
        ge=0,
        le=32,
        description="Worker processes that draw offline cards (0: threads inside the studio process).",
    )
    image_timeout_s: float = Field(120.0, gt=0)
    image_max_bytes: int = Field(10 * 1024 * 1024, gt=0, description="Largest accepted reference image.")
    allow_private_image_urls: bool = Field(False, description="Tests only: allow loopback/private URLs.")

    # --- research ------------------------------------------------------------------------------------
    web_search_model: str | None = Field(None, description="litellm model with web search; off if unset.")
    web_search_api_base: str | None = None
    web_search_api_key: str | None = None

    # --- workflow ------------------------------------------------------------------------------------
    hitl_default: bool = Field(True, description="Pause at the checkpoints unless a request says otherwise.")
    max_review_rounds: int = Field(3, ge=1, le=10)
    max_iterations: int = Field(40, ge=5, le=200, description="Hard cap on supervisor decisions per run.")
    node_timeout_s: float = Field(300.0, gt=0, description="Timeout of one agent step.")
    review: ReviewThresholds = Field(default_factory=ReviewThresholds)
    sequential_baseline: bool = Field(
        False,
        description="Benchmarks only: run the original single-chain design (a supervisor LLM call before "
        "every step, research then reference, one image at a time).",
    )

    # --- server --------------------------------------------------------------------------------------
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    on_disconnect: Literal["continue", "abort"] = "continue"
    max_body_bytes: int = Field(25 * 1024 * 1024, gt=0, description="Largest accepted request body.")
    heartbeat_s: float = Field(15.0, gt=0)
    run_lease_s: float = Field(
        30.0,
        ge=1,
        le=3600,
        description="How long a run's lease lasts unrenewed: a worker that dies leaves its runs to a peer "
        "(or the next start) this long after its last renewal (at once on the same machine).",
    )
    run_tick_s: float = Field(
        1.0,
        gt=0,
        le=60,
        description="How often a process looks at its leases, cancels asked by other processes and runs "
        "left by dead workers.",
    )
    max_runs_per_process: int | None = Field(
        None,
        ge=1,
        le=10000,
        description="Runs one server process runs at once; more are queued and started by whichever "
        "process has room first (unset: no limit).",
    )
    queue_revisions: bool = Field(
        False,
        description="A new message for a thread that is running or paused waits its turn — its stream says "
        "so first, and it starts once the thread has finished — instead of a 409 THREAD_BUSY.",
    )
    follow_poll_s: float = Field(
        0.2,
        gt=0,
        le=10,
        description="How often a follower of a run another process runs looks for new events.",
    )

    # --- accounts and browser security ------------------------------------------------------------------
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers to, besides the bind address, localhost and 127.0.0.1 "
        "(DNS-rebinding guard); '*' allows any.",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins (scheme://host[:port]) allowed to send state-changing requests, besides the "
        "server's own.",
    )
    cors_origins: list[str] = Field(
        default_factory=list,
        description="Origins that may call the API from their pages (CORS); off when empty.",
    )
    session_ttl_hours: float = Field(24 * 7, gt=0, description="How long a web login lasts.")
    login_link_ttl_minutes: float = Field(
        60 * 24, gt=0, description="How long the one-time login URL printed at start-up stays valid."
    )
    allow_model_override: bool = Field(
        False, description="Let every role (not only admins) choose a run's model per request."
    )
    max_concurrent_runs_per_user: int = Field(
        4, ge=1, le=1000, description="Runs one user may have going at once (429 past it)."
    )
    max_starts_per_minute: int = Field(
        12, ge=1, le=10000, description="Runs one user may start or resume per minute (429 past it)."
    )

    @field_validator("database_url")
    @classmethod
    def _with_the_studios_driver(cls, url: str | None) -> str | None:
        if url is None:
            return None
        from tools.database import database_url  # SQLAlchemy, imported only for a URL that was set

        return database_url(url)

    @model_validator(mode="after")
    def _fill_paths(self) -> Settings:
        self.data_dir = self.data_dir.expanduser()
        if self.database_url is None:
            self.database_url = f"sqlite+aiosqlite:///{(self.data_dir / 'studio.db').as_posix()}"
        if self.checkpoint_db is None:
            self.checkpoint_db = self.data_dir / "checkpoints.db"
        return self

    @property
    def db_url(self) -> str:
        assert self.database_url is not None
        return self.database_url

    @property
    def store_dir(self) -> Path:
        return self.data_dir / "lancedb"

    @property
    def assets_dir(self) -> Path:
        return self.data_dir / "assets"

    def ensure_dirs(self) -> None:
        for path in (self.data_dir, self.store_dir, self.assets_dir):
            path.mkdir(parents=True, exist_ok=True)


def get_settings(**overrides: object) -> Settings:
    """Build settings from the environment and `.env`, with explicit overrides on top."""
    return Settings(**overrides)  # type: ignore[arg-type]
