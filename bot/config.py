"""Settings from the environment (pydantic-settings), every name prefixed ``REFEREE_``.

The token is also read from ``DISCORD_TOKEN``, the name most hosting guides use. The database
lives outside the repository by default (``$XDG_DATA_HOME/referee/referee.sqlite3``), so a
``git clean`` or a reinstall never takes the games with it; the Docker image sets
``REFEREE_DATABASE=/data/referee.sqlite3`` on a volume.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(Exception):
    """A setting is invalid; the message is one line naming the environment variable."""


def default_database() -> Path:
    """``$XDG_DATA_HOME/referee/referee.sqlite3``, else ``~/.local/share/referee/referee.sqlite3``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "referee" / "referee.sqlite3"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="REFEREE_", extra="ignore", frozen=True,
                                      populate_by_name=True)

    # SecretStr keeps the token out of reprs, logs and tracebacks
    token: SecretStr | None = Field(default=None,
                                    validation_alias=AliasChoices("REFEREE_TOKEN", "DISCORD_TOKEN"))
    database: Path = Field(default_factory=default_database)
    dev_guild: int | None = Field(default=None, gt=0)  # sync commands to this guild only (instant)
    log_level: str = "INFO"
    # the terminal sandbox (`python -m bot sandbox`): where it keeps its games, and an optional
    # seed so a sandbox session's dice can be replayed
    sandbox_database: Path | None = None  # None: a fresh temporary database per session
    sandbox_seed: int | None = None
    # rolling commands (fire, morale, rally, ...) per player in a sliding window (bot.limits)
    roll_limit: int = Field(default=20, ge=1, le=10_000)
    roll_window: float = Field(default=60.0, gt=0, le=86_400)  # seconds

    @field_validator("token", mode="before")
    @classmethod
    def _blank_token_is_none(cls, value: Any) -> Any:
        # an exported but empty DISCORD_TOKEN means "no token", not a token of ""
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @field_validator("dev_guild", mode="before")
    @classmethod
    def _blank_guild_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_level(cls, value: Any) -> str:
        level = str(value).strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
        return level

    @property
    def has_token(self) -> bool:
        return self.token is not None

    @property
    def log_level_number(self) -> int:
        return logging.getLevelNamesMapping()[self.log_level]


def _env_name(field: str) -> str:
    if field == "token":
        return "REFEREE_TOKEN (or DISCORD_TOKEN)"
    return f"REFEREE_{field.upper()}"


def load_settings(**overrides: Any) -> Settings:
    """Read the settings; an invalid value raises ``ConfigError`` with a one-line message."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err.get("loc") else "settings"
        message = err.get("msg", "is invalid").removeprefix("Value error, ")
        given = err.get("input")
        shown = f" (got {given!r})" if isinstance(given, (str, int)) and field != "token" else ""
        raise ConfigError(f"invalid setting {_env_name(field)}: {message}{shown}") from None
