"""Settings read from CORRIDOR_* environment variables."""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIRECTORY = Path(".corridor")


class Environment(StrEnum):
    SANDBOX = "sandbox"
    PRODUCTION = "production"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CORRIDOR_", env_file=".env", extra="ignore")

    env: Environment = Environment.SANDBOX
    database_url: str = Field(
        default=f"sqlite+aiosqlite:///{DEFAULT_DATA_DIRECTORY / 'corridor.db'}",
        description="SQLAlchemy async URL; SQLite file by default, postgresql+asyncpg in production.",
    )
    host: str = "127.0.0.1"
    port: int = 8000
    public_base_url: str | None = None
    log_format: str = Field(default="console", pattern="^(console|json)$")
    log_level: str = "INFO"
    # None means: run the workers inside `corridor serve` when the database is embedded SQLite.
    run_workers_in_process: bool | None = None
    console_session_lifetime_s: int = 12 * 60 * 60
    idempotency_key_lifetime_s: int = 24 * 60 * 60
    request_body_bytes_max: int = 1024 * 1024
    # How long a quote's rate stays locked (POST /v1/quotes, quoting an intent).
    quote_lifetime_s: int = Field(default=60, ge=5, le=3600)
    # Webhook delivery (API.md section 7). The schedule is the wait after each failed attempt
    # (at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); the scale shrinks it in tests.
    webhook_retry_schedule_s: list[Annotated[float, Field(ge=0)]] = Field(
        default=[5, 300, 1800, 7200, 18000, 36000, 36000], max_length=20
    )
    webhook_retry_scale: float = Field(default=1.0, ge=0, le=1000)
    webhook_timeout_s: float = Field(default=15, gt=0, le=120)
    # A claimed attempt whose worker has not recorded a result by then is attempted again.
    webhook_claim_lease_s: float = Field(default=60, gt=0, le=3600)
    webhook_history_enabled: bool = True
    webhook_history_days: int = Field(default=90, ge=1, le=3650)
    webhook_concurrent_attempts_max: int = Field(default=32, ge=1, le=1000)

    @model_validator(mode="after")
    def _lease_outlasts_an_attempt(self) -> Settings:
        if self.webhook_claim_lease_s <= self.webhook_timeout_s:
            raise ValueError("webhook_claim_lease_s must be longer than webhook_timeout_s")
        return self

    @property
    def is_sandbox(self) -> bool:
        return self.env is Environment.SANDBOX

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def workers_in_process(self) -> bool:
        if self.run_workers_in_process is None:
            return self.is_sqlite
        return self.run_workers_in_process

    @property
    def key_environment(self) -> str:
        """The environment word inside API keys: sk_sandbox_… or sk_live_…"""
        return "sandbox" if self.is_sandbox else "live"


@lru_cache
def get_settings() -> Settings:
    return Settings()
