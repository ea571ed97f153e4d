"""Settings: one typed object from an optional TOML file and the environment."""

from familiars.config._ablation import ABLATE_ENV, FileKnob, RecallKnob
from familiars.config._errors import UserFacingError
from familiars.config._settings import (
    DEFAULT_CONFIG_PATH,
    AccessSettings,
    AgentSettings,
    APISettings,
    ConfigError,
    DiscordSettings,
    EmbeddingSettings,
    FilesSettings,
    GateSettings,
    LLMSettings,
    MemorySettings,
    PrivacySettings,
    ProviderSettings,
    RecallSettings,
    SchedulerSettings,
    Settings,
    TelegramSettings,
    load_settings,
)

__all__ = [
    "ABLATE_ENV",
    "DEFAULT_CONFIG_PATH",
    "APISettings",
    "AccessSettings",
    "AgentSettings",
    "ConfigError",
    "DiscordSettings",
    "EmbeddingSettings",
    "FileKnob",
    "FilesSettings",
    "GateSettings",
    "LLMSettings",
    "MemorySettings",
    "PrivacySettings",
    "ProviderSettings",
    "RecallKnob",
    "RecallSettings",
    "SchedulerSettings",
    "Settings",
    "TelegramSettings",
    "UserFacingError",
    "load_settings",
]
