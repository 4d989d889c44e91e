"""Settings read from CORRIDOR_* environment variables."""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Annotated

import limits
from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from corridor.kit import secretbox
from corridor.kit.secretbox import SecretBox

DEFAULT_DATA_DIRECTORY = Path(".corridor")


class Environment(StrEnum):
    SANDBOX = "sandbox"
    PRODUCTION = "production"


class EvmTokenSetting(BaseModel):
    """An ERC-20 stablecoin contract on one chain."""

    address: str = Field(pattern=r"^0x[0-9a-fA-F]{40}$")
    decimals: int = Field(default=6, ge=0, le=36)


class EvmChainSetting(BaseModel):
    """A chain paid on a real node (docs/rails.md, "The EVM rail")."""

    rpc_url: str
    chain_id: int = Field(ge=1)
    # Blocks on top of a transfer's block before its leg settles; None: the chain's
    # figure of rails/chains.py (Ethereum 64, Base 300, Polygon 128).
    confirmations: int | None = Field(default=None, ge=1, le=10_000)
    tokens: dict[str, EvmTokenSetting] = Field(default_factory=dict)  # currency → contract
    # The first block the deposit scan reads.
    deposit_start_block: int = Field(default=0, ge=0)
    # A transaction sent this long ago and still in no block is sent again on its nonce
    # with higher fees.
    replace_after_s: int = Field(default=180, ge=1, le=86_400)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CORRIDOR_", env_file=".env", extra="ignore")

    env: Environment = Environment.SANDBOX
    database_url: str = Field(
        default=f"sqlite+aiosqlite:///{DEFAULT_DATA_DIRECTORY / 'corridor.db'}",
        description="SQLAlchemy async URL; SQLite file by default, postgresql+asyncpg in production.",
    )
    # Connections each process keeps to PostgreSQL, and how many more it may open under load
    # (each closed again when given back while the kept ones are idle: opened and closed over
    # and over under a load just past the kept ones, so none by default).
    # The defaults keep several API processes and a worker under PostgreSQL's default of 100
    # connections: (pool_size + pool_overflow) × processes ≤ 100 (docs/decisions.md).
    database_pool_size: int = Field(default=12, ge=1, le=200)
    database_pool_overflow: int = Field(default=0, ge=0, le=200)
    # How long a request waits for a free connection before it is answered 503.
    database_pool_timeout_s: float = Field(default=5, gt=0, le=120)
    # The express create+submit (transfers/express): a create+submit by an organization key
    # from a balance account to the customer's own bank account runs as two hand-written
    # statements instead of the general path's ORM unit of work; PostgreSQL only. Off: every
    # request goes the general way (the express path answers byte for byte alike).
    express_submit: bool = True
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
    # The guide's built site (`make docs`), served at /guide; unset: the checkout's site/.
    guide_directory: Path | None = None
    # Documents (docs/decisions.md "Documents"): files in a `documents` folder beside the
    # SQLite database (or under .corridor/) by default; S3-compatible storage when a bucket
    # is set (credentials from these settings or the usual AWS_* variables).
    documents_directory: Path | None = None
    documents_s3_bucket: str | None = None
    documents_s3_endpoint: str | None = None
    documents_s3_region: str = "us-east-1"
    documents_s3_access_key_id: str | None = None
    documents_s3_secret_access_key: SecretStr | None = None
    # The HMAC key of the upload URLs Corridor signs itself. Unset: a random key kept in the
    # data directory; set it when API processes run on more than one machine.
    signing_key: SecretStr | None = None

    # The assistant: `sandbox` (built in, needs no key), `anthropic` or `openai` with the
    # provider's key; the model name defaults per provider.
    assistant_provider: str = Field(default="sandbox", pattern="^(sandbox|anthropic|openai)$")
    assistant_model: str | None = Field(default=None, max_length=100)
    anthropic_api_key: SecretStr | None = None
    openai_api_key: SecretStr | None = None
    # Where the provider's API is (a proxy, or a recorded-answer server in tests).
    assistant_provider_base_url: str | None = None
    assistant_run_tool_calls_max: int = Field(default=20, ge=1, le=200)
    assistant_run_tokens_max: int = Field(default=200_000, ge=1000, le=10_000_000)
    # A running run's worker renews this lease each step; past it, another worker resumes.
    assistant_run_lease_s: float = Field(default=120, gt=0, le=3600)
    assistant_thread_retention_days: int = Field(default=90, ge=1, le=3650)
    # The request log of API keys and OAuth tokens (GET /v1/request-logs): whether it is
    # written, and how many days of it the workers keep.
    request_log_enabled: bool = True
    request_log_retention_days: int = Field(default=7, ge=1, le=365)
    # How long a write tool call waits for a person's confirmation (and an owner's console
    # approval stays usable): its MCP requestState expires with it (issue 26).
    tool_confirmation_ttl_s: int = Field(default=600, ge=1, le=7 * 24 * 3600)
    # OAuth for MCP clients (docs/mcp.md): an access token lives 15 minutes, a refresh
    # token 30 days (each refresh gives a new one and retires the old).
    oauth_access_token_ttl_s: int = Field(default=900, ge=60, le=24 * 3600)
    oauth_refresh_token_ttl_s: int = Field(default=30 * 24 * 3600, ge=3600, le=365 * 24 * 3600)

    # The key that encrypts webhook signing secrets at rest (a Fernet key, see
    # docs/decisions.md "Security"). Unset: a key generated on first run into the data
    # folder (`secret.key` beside the SQLite file, `.corridor/` otherwise). Every process
    # of one deployment must share it. Retired keys (comma-separated) still decrypt.
    secret_key: SecretStr | None = None
    secret_keys_retired: SecretStr = SecretStr("")

    # Rate limits (docs/decisions.md "Security"): moving windows in memory, or in Redis
    # shared by every process when redis_url is set. Limits are `limits` strings
    # ("10 per 15 minutes"). The per-key rate applies to organizations that set none; the
    # maximum caps what an organization may set for itself.
    rate_limits_enabled: bool = True
    redis_url: str | None = None
    rate_limit_requests_per_key: int = Field(default=300, ge=1, le=1_000_000)
    rate_limit_requests_per_key_max: int = Field(default=3000, ge=1, le=1_000_000)
    rate_limit_sign_in_failures_per_email: str = "10 per 15 minutes"
    rate_limit_sign_in_failures_per_address: str = "50 per 15 minutes"
    rate_limit_authentication_failures_per_address: str = "30 per minute"

    # Operations (docs/deployment.md). GET /metrics (Prometheus text): open in sandbox;
    # with a token set, only to `Authorization: Bearer <token>`; in production without a
    # token, 404. With metrics_port set, the metrics are served on that port alone (open:
    # keep it off the public network) and /metrics on the API's port answers 404.
    # metrics_enabled false: 404 everywhere, and no request metrics are taken.
    metrics_enabled: bool = True
    metrics_token: SecretStr | None = None
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    metrics_host: str = "127.0.0.1"
    # Traces (OpenTelemetry): None exports by OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or
    # OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set and traces nothing otherwise; true or
    # false decides (true without an endpoint sends to the OTLP default, localhost:4318).
    tracing_enabled: bool | None = None
    # A read replica (PostgreSQL streaming standby): lists, history, statements, console
    # charts and exports read from it while it is at most replica_lag_max_s behind.
    database_replica_url: str | None = None
    database_replica_lag_max_s: float = Field(default=5, gt=0, le=3600)
    # Workers write a heartbeat this often; readiness wants one younger than the stale age.
    worker_heartbeat_s: float = Field(default=5, gt=0, le=300)
    worker_heartbeat_stale_s: float = Field(default=30, gt=0, le=3600)
    # On SIGTERM: an API process stops accepting and gives the requests in flight this
    # long; a worker stops claiming and gives its running work this long.
    shutdown_grace_s: float = Field(default=30, ge=0, le=600)
    # How long `corridor serve` keeps an idle HTTP connection open for the client's next
    # request. Longer than the clients and proxies in front keep theirs (httpx 5 s,
    # aiohttp 15 s, Go 90 s, load balancers often 60 s): when the server closes first, a
    # request the client is sending on it meets a closed connection (docs/decisions.md,
    # "Keep-alive", issue 30). uvicorn's own default is 5 s.
    http_keep_alive_s: int = Field(default=120, ge=1, le=3600)

    # Bank files (docs/rails.md): the rails paid through files exchanged with a bank
    # (comma-separated, of ACH, ACH_SAME_DAY, SEPA, SWIFT; empty: every rail simulated),
    # who Corridor is in them, and the bank connection (SFTP) they travel over. Without
    # a host, files are written and read back through the API and `corridor bank-files`.
    bank_file_rails: str = ""
    bank_odfi_routing_number: str = Field(default="123456780", pattern=r"^\d{9}$")
    bank_odfi_name: str = "Corridor Sandbox Bank"
    bank_company_id: str = Field(default="1234567890", min_length=1, max_length=10)
    bank_debtor_name: str = "Corridor Payments"
    bank_debtor_iban: str = "DE89370400440532013000"
    bank_debtor_bic: str = "CRDRUS30"
    bank_sftp_host: str | None = None
    bank_sftp_port: int = Field(default=22, ge=1, le=65535)
    bank_sftp_user: str = "corridor"
    # The client's private key (OpenSSH or PEM text), and the bank's host public key as a
    # known_hosts line; without a host key only the sandbox may connect.
    bank_sftp_key: SecretStr | None = None
    bank_sftp_host_key: str | None = None
    bank_sftp_outbox: str = "outbox"
    bank_sftp_inbox: str = "inbox"
    bank_sftp_archive: str = "archive"
    bank_sftp_timeout_s: float = Field(default=30, gt=0, le=600)
    bank_upload_retry_s: float = Field(default=60, gt=0, le=86_400)
    bank_upload_attempts_max: int = Field(default=20, ge=1, le=1000)

    # The EVM stablecoin rail (docs/rails.md): chains paid on a real node, as JSON
    # ({"ETHEREUM": {"rpc_url", "chain_id", "confirmations", "tokens": {"USDC":
    # {"address", "decimals"}}}}); every chain not named stays simulated. The hot wallet's
    # private key, encrypted with the server key (`corridor evm encrypt-key`).
    evm_chains: dict[str, EvmChainSetting] = Field(default_factory=dict)
    evm_signer_key: SecretStr | None = None
    # The deposit addresses' seed phrase (BIP-39), encrypted with the server key; without
    # it deposit wallets keep the sandbox's made-up addresses.
    evm_deposit_mnemonic: SecretStr | None = None

    @field_validator(
        "rate_limit_sign_in_failures_per_email",
        "rate_limit_sign_in_failures_per_address",
        "rate_limit_authentication_failures_per_address",
    )
    @classmethod
    def _a_limit(cls, value: str) -> str:
        try:
            limits.parse(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a rate limit such as '10 per 15 minutes'") from None
        return value

    @field_validator("evm_chains")
    @classmethod
    def _evm_chains(cls, value: dict[str, EvmChainSetting]) -> dict[str, EvmChainSetting]:
        unknown = set(value) - {"ETHEREUM", "BASE", "POLYGON"}
        if unknown:
            raise ValueError(f"not EVM chains: {', '.join(sorted(unknown))}")
        return value

    @field_validator("bank_file_rails")
    @classmethod
    def _file_rails(cls, value: str) -> str:
        known = {"ACH", "ACH_SAME_DAY", "SEPA", "SWIFT"}
        unknown = {name.strip().upper() for name in value.split(",") if name.strip()} - known
        if unknown:
            raise ValueError(f"not rails paid through files: {', '.join(sorted(unknown))}")
        return value

    @model_validator(mode="after")
    def _lease_outlasts_an_attempt(self) -> Settings:
        if self.webhook_claim_lease_s <= self.webhook_timeout_s:
            raise ValueError("webhook_claim_lease_s must be longer than webhook_timeout_s")
        if self.worker_heartbeat_stale_s <= self.worker_heartbeat_s:
            raise ValueError("worker_heartbeat_stale_s must be longer than worker_heartbeat_s")
        if self.database_replica_url is not None and self.is_sqlite:
            raise ValueError("database_replica_url needs a PostgreSQL database_url")
        return self

    def secret_box(self) -> SecretBox:
        """The box that encrypts and decrypts secrets kept at rest (kit/secretbox.py)."""
        return secretbox.load(
            secret_key=self.secret_key.get_secret_value() or None if self.secret_key else None,
            retired=self.secret_keys_retired.get_secret_value().split(","),
            database_url=self.database_url,
        )

    @property
    def file_rails(self) -> frozenset[str]:
        return frozenset(
            name.strip().upper() for name in self.bank_file_rails.split(",") if name.strip()
        )

    @property
    def is_sandbox(self) -> bool:
        return self.env is Environment.SANDBOX

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def data_directory(self) -> Path:
        """Where the embedded default keeps its files: beside the SQLite database."""
        prefix = "sqlite+aiosqlite:///"
        if self.database_url.startswith(prefix):
            path = self.database_url[len(prefix) :].split("?", 1)[0]
            if path and path != ":memory:":
                return Path(path).parent
        return DEFAULT_DATA_DIRECTORY

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
