"""Settings from the environment (pydantic-settings), every name prefixed ``REFEREE_``.

The token is also read from ``DISCORD_TOKEN``, the name most hosting guides use. The database
lives outside the repository by default (``$XDG_DATA_HOME/referee/referee.sqlite3``), so a
``git clean`` or a reinstall never takes the games with it; the Docker image sets
``REFEREE_DATABASE=/data/referee.sqlite3`` on a volume.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.shards import Shards

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# A game whose log reached this many entries takes no more commands: a bound on one game's
# disk use and on the time verify needs (Issue 6). A real game has a few thousand. The host
# may set another (REFEREE_MAX_LOG_ENTRIES); the stores take it when opened.
MAX_LOG_ENTRIES = 100_000
# The state after every this many entries is kept beside the log (issue 14): an undo proposal, the
# Odds button of an old result and a verify from a point replay at most this many entries. Each
# costs one compressed state (a few KB at most: tens of bytes per entry). REFEREE_CHECKPOINT_EVERY.
CHECKPOINT_EVERY = 100


@dataclass(frozen=True)
class Rate:
    """At most ``count`` in any ``seconds`` (a sliding window); ``count`` 0 turns the quota off.
    Written ``30/60`` in the environment, or ``off``."""

    count: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> "Rate":
        text = text.strip().lower()
        if text in ("off", "none", "0"):
            return cls(0, 1.0)
        count, slash, seconds = text.partition("/")
        try:
            rate = cls(int(count), float(seconds)) if slash else None
        except ValueError:
            rate = None
        if rate is None or rate.count < 0 or not 0 < rate.seconds <= 7 * 86_400:
            raise ValueError("write COUNT/SECONDS (e.g. 30/60: at most 30 in any 60 seconds), or off")
        return rate

    @property
    def off(self) -> bool:
        return self.count == 0

    def __str__(self) -> str:
        return "off" if self.off else f"{self.count}/{self.seconds:g}"

    @property
    def window_words(self) -> str:
        """The window as players read it: 60 -> "minute", 300 -> "5 minutes", 86400 -> "day"."""
        for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60)):
            if self.seconds >= size and self.seconds % size == 0:
                count = int(self.seconds // size)
                return unit if count == 1 else f"{count} {unit}s"
        return f"{self.seconds:g} seconds"


class ConfigError(Exception):
    """A setting is invalid; the message is one line naming the environment variable."""


def default_database() -> Path:
    """``$XDG_DATA_HOME/referee/referee.sqlite3``, else ``~/.local/share/referee/referee.sqlite3``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "referee" / "referee.sqlite3"


POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def database_path_or_url(text: str) -> Path | str:
    """A database as given (REFEREE_DATABASE, the sandbox's --database): a PostgreSQL server's URL
    stays a URL, anything else is an SQLite file's path. A URL must never become a path: made into
    folders, ``postgresql://user:password@host/db`` left the password on the disk."""
    return text if text.startswith(POSTGRES_SCHEMES) else Path(text)


# PostgreSQL (bot/store/postgres.py): each bot process keeps a pool of connections, a command in flight
# holding one (its channel's advisory lock is on it). REFEREE_DATABASE_POOL_MIN/MAX; every process's
# pool together must fit the server's max_connections, which the store reads at start-up.
POOL_MIN, POOL_MAX = 1, 20
POOL_LIMIT = 1_000  # the most either may be set to
# The longest one statement may run on PostgreSQL before the server ends it (its order refused,
# nothing changed): REFEREE_DATABASE_STATEMENT_TIMEOUT, seconds. A command's statements take
# milliseconds; a channel's lock waited for longer than this means the command holding it is stuck.
STATEMENT_TIMEOUT = 30.0
STATEMENT_TIMEOUT_RANGE = (1.0, 3_600.0)

# read as text ("30/60", "off"), not as JSON, then parsed by Settings._rate
RateSetting = Annotated[Rate, NoDecode]
AUTO_SHARDS = 0  # REFEREE_SHARD_COUNT=auto, as held in Settings.shard_count
# read as text ("0,1"), not as JSON, then parsed by Settings._shard_list
ShardIds = Annotated[tuple[int, ...] | None, NoDecode]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="REFEREE_", extra="ignore", frozen=True,
                                      populate_by_name=True)

    # SecretStr keeps the token out of reprs, logs and tracebacks
    token: SecretStr | None = Field(default=None,
                                    validation_alias=AliasChoices("REFEREE_TOKEN", "DISCORD_TOKEN"))
    # an SQLite file's path, or a PostgreSQL server's URL (postgresql://user@host/dbname, for
    # several bot processes on one database: bot/store/postgres.py)
    database: Path | str = Field(default_factory=default_database)
    # PostgreSQL only: the pool's size per process and the statement timeout (above)
    database_pool_min: int = Field(default=POOL_MIN, ge=0, le=POOL_LIMIT)
    database_pool_max: int = Field(default=POOL_MAX, ge=1, le=POOL_LIMIT)
    database_statement_timeout: float = Field(default=STATEMENT_TIMEOUT, ge=STATEMENT_TIMEOUT_RANGE[0],
                                              le=STATEMENT_TIMEOUT_RANGE[1])
    # a file holding the PostgreSQL password (a Docker secret): put into ``database``'s URL
    # percent-encoded, so a password with @, / or : (anything) reaches the server as it is
    database_password_file: Path | None = None
    dev_guild: int | None = Field(default=None, gt=0)  # sync commands to this guild only (instant)
    log_level: str = "INFO"
    # the terminal sandbox (`python -m bot sandbox`): where it keeps its games, and an optional
    # seed so a sandbox session's dice can be replayed
    sandbox_database: Path | str | None = None  # None: a fresh temporary database per session
    sandbox_seed: int | None = None
    # rolling commands (fire, morale, rally, ...) per player in a sliding window (bot.limits)
    roll_limit: int = Field(default=20, ge=1, le=10_000)
    roll_window: float = Field(default=60.0, gt=0, le=86_400)  # seconds
    # quotas on every command and button press (bot.limits.Quotas), "COUNT/SECONDS" or "off":
    # per user, per channel and per server; the heavy ones (exports, verifies, statistics, undo
    # proposals, odds, previews, maps) count again against their own, smaller quotas, sized so a game
    # master can run the statistics, one of each export and a verify in one sitting (refused ones
    # are taken back)
    quota_user: RateSetting = Rate(30, 60)
    quota_channel: RateSetting = Rate(90, 60)
    quota_server: RateSetting = Rate(600, 60)
    quota_heavy_user: RateSetting = Rate(12, 300)
    quota_heavy_channel: RateSetting = Rate(20, 300)
    quota_heavy_server: RateSetting = Rate(60, 300)
    # games per server: at most this many running at once, and this many started in a day
    max_games_per_server: int = Field(default=100, ge=1, le=100_000)
    new_games_per_server: RateSetting = Rate(100, 86_400)
    max_log_entries: int = Field(default=MAX_LOG_ENTRIES, ge=100, le=1_000_000)  # per game
    checkpoint_every: int = Field(default=CHECKPOINT_EVERY, ge=10, le=100_000)  # entries between checkpoints
    # sharding (several bot processes on one PostgreSQL): this process connects as shard
    # ``shard_id`` of ``shard_count``, or as each of the shards ``shard_ids`` ("0,1": one gateway
    # connection per shard, discord.py's AutoShardedBot); Discord sends a shard the servers whose
    # id >> 22 % count is its id. All unset: one process, Discord's default (one shard). Also
    # `python -m bot run --shard 0/2` (or `--shard 0,1/4`).
    # REFEREE_SHARD_COUNT=auto: this one process holds every shard, as many as Discord recommends for
    # the bot's servers (GET /gateway/bot, read by discord.py's AutoShardedBot at each start)
    shard_id: int | None = Field(default=None, ge=0, le=100_000)
    shard_ids: ShardIds = None
    shard_count: int | None = Field(default=None, ge=AUTO_SHARDS, le=100_000)

    @field_validator("shard_count", mode="before")
    @classmethod
    def _auto_count(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() == "auto":
            return AUTO_SHARDS
        if value == AUTO_SHARDS or (isinstance(value, str) and value.strip() == str(AUTO_SHARDS)):
            raise ValueError("must be at least 1 (or auto: as many shards as Discord recommends, in this one process)")
        return value

    @property
    def auto_shards(self) -> bool:
        """REFEREE_SHARD_COUNT=auto: every shard in this process, the count Discord's."""
        return self.shard_count == AUTO_SHARDS

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = [part.strip() for part in value.split(",")]
            if not all(part.isdigit() for part in parts):
                raise ValueError("write the shard numbers (from 0) separated by commas, e.g. 0,1")
            return tuple(int(part) for part in parts)
        return value

    @model_validator(mode="after")
    def _shards_together(self) -> "Settings":
        if self.shard_id is not None and self.shard_ids is not None:
            raise ValueError("set REFEREE_SHARD_ID (one shard) or REFEREE_SHARD_IDS (several), not both")
        shards = self.shards
        if self.auto_shards:
            if shards is not None:
                raise ValueError("REFEREE_SHARD_COUNT=auto runs every shard in this one process, as many as Discord "
                                 "recommends: give it no REFEREE_SHARD_ID(S); several processes need a count of "
                                 "their own, the same in each")
            return self
        if (shards is None) != (self.shard_count is None):
            raise ValueError("set REFEREE_SHARD_ID (or REFEREE_SHARD_IDS) and REFEREE_SHARD_COUNT together "
                             "(e.g. 0 and 2), or neither")
        if shards is not None and self.shard_count is not None:
            if not shards or len(set(shards)) != len(shards):
                raise ValueError(f"REFEREE_SHARD_IDS {','.join(map(str, shards))} must name each shard once")
            if max(shards) >= self.shard_count:
                name = "REFEREE_SHARD_ID" if self.shard_ids is None else "REFEREE_SHARD_IDS"
                raise ValueError(f"{name} {','.join(map(str, shards))} must be below REFEREE_SHARD_COUNT "
                                 f"{self.shard_count} (shards are numbered from 0)")
        return self

    @model_validator(mode="after")
    def _pool_in_order(self) -> "Settings":
        if self.database_pool_min > self.database_pool_max:
            raise ValueError(f"REFEREE_DATABASE_POOL_MIN {self.database_pool_min} is above REFEREE_DATABASE_POOL_MAX "
                             f"{self.database_pool_max}: the pool keeps at least MIN connections and opens at most MAX")
        return self

    @property
    def processes(self) -> int:
        """How many bot processes share the database, as this one's shards tell (each holding as many
        shards as this one): 1 unsharded. What the store checks the server's max_connections against."""
        if self.shards is None or self.shard_count is None:
            return 1
        return -(-self.shard_count // len(self.shards))

    def pool(self) -> dict[str, Any]:
        """The PostgreSQL store's pool settings (``open_store``'s keywords)."""
        return {"pool_min": self.database_pool_min, "pool_max": self.database_pool_max,
                "statement_timeout": self.database_statement_timeout, "processes": self.processes}

    @model_validator(mode="after")
    def _password_into_the_url(self) -> "Settings":
        """``database_password_file``'s password in ``database``'s URL, percent-encoded."""
        if self.database_password_file is None:
            return self
        if not isinstance(self.database, str):
            raise ValueError("REFEREE_DATABASE_PASSWORD_FILE is the password of a PostgreSQL server: set "
                             "REFEREE_DATABASE to its postgresql:// URL (an SQLite file has none)")
        parts = urlsplit(self.database)
        user, at, place = parts.netloc.rpartition("@")
        if not at or not user:
            raise ValueError("REFEREE_DATABASE names no user for REFEREE_DATABASE_PASSWORD_FILE's password: "
                             "postgresql://user@host/dbname")
        if ":" in user:
            raise ValueError("REFEREE_DATABASE holds a password already: give it there or in "
                             "REFEREE_DATABASE_PASSWORD_FILE, not both")
        try:
            password = self.database_password_file.read_text(encoding="utf-8").rstrip("\r\n")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise ValueError(f"REFEREE_DATABASE_PASSWORD_FILE {self.database_password_file} cannot be read "
                             f"({reason})") from None
        if not password:
            raise ValueError(f"REFEREE_DATABASE_PASSWORD_FILE {self.database_password_file} is empty")
        url = urlunsplit(parts._replace(netloc=f"{user}:{quote(password, safe='')}@{place}"))
        self.__dict__["database"] = url  # a frozen model: set once, here, as validation ends
        return self

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The shards this process connects as (sorted), or None: unsharded."""
        if self.shard_ids is not None:
            return tuple(sorted(self.shard_ids))
        return None if self.shard_id is None else (self.shard_id,)

    def sharding_refused(self) -> str | None:
        """Why this process may not start as the shards it is given on its database (None when it
        may): an SQLite file is one process's, so a process that is one shard among several (the
        others another process's, writing the same file under locks of their own) is refused at
        start-up. One process holding every shard is one process."""
        shards, count = self.shards, self.shard_count
        if shards is None or count is None or not isinstance(self.database, Path) or set(shards) == set(range(count)):
            return None
        given = (f"REFEREE_SHARD_IDS {','.join(map(str, shards))}" if self.shard_ids is not None
                 else f"REFEREE_SHARD_ID {shards[0]}")
        return (f"{given} of REFEREE_SHARD_COUNT {count} makes this process one of several, but REFEREE_DATABASE is "
                f"an SQLite file ({self.database}), which one process alone may write: set REFEREE_DATABASE to a "
                f"postgresql:// URL for several processes, or run one process with every shard "
                f"(REFEREE_SHARD_IDS={','.join(map(str, range(count)))}), or none")

    @property
    def own_shards(self) -> Shards | None:
        """The shards this process serves when it is one of several (None: it serves every server)."""
        if self.shard_count is None or self.shards is None:
            return None
        own = Shards(self.shards, self.shard_count)
        return None if own.every else own

    def serves_guild(self, guild_id: int | None) -> bool:
        """Is the server ``guild_id`` this process's (Discord's rule: (id >> 22) % shard count is the
        shard)? Direct messages (no server) are shard 0's. Every server is, without sharding."""
        own = self.own_shards
        return own is None or own.serves(guild_id)
    # the gateway's state for the health check (bot/gateway_watch.py): the bot writes it to this file,
    # `python -m bot health` fails when a shard has been down (or its heartbeat unanswered) longer than
    # gateway_down_seconds; unset: the check sees the database alone
    gateway_state: Path | None = None
    gateway_down_seconds: float = Field(default=120.0, ge=1, le=86_400)
    # long work (verify, exports, statistics, undo proposals, the Odds button, previews) runs in
    # worker processes (bot/work.py): at most this many at once, each within this many seconds
    long_work_seconds: float = Field(default=60.0, gt=0, le=3_600)
    long_work_processes: int = Field(default=2, ge=1, le=32)

    @field_validator("quota_user", "quota_channel", "quota_server", "quota_heavy_user", "quota_heavy_channel",
                     "quota_heavy_server", "new_games_per_server", mode="before")
    @classmethod
    def _rate(cls, value: Any) -> Any:
        return Rate.parse(value) if isinstance(value, str) else value

    @field_validator("database", "sandbox_database", mode="before")
    @classmethod
    def _path_or_url(cls, value: Any) -> Any:
        return database_path_or_url(value) if isinstance(value, str) else value

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
        if not err.get("loc"):  # a rule across settings (the shards): its message names them
            raise ConfigError(f"invalid settings: {message}") from None
        given = err.get("input")
        shown = f" (got {given!r})" if isinstance(given, (str, int)) and field != "token" else ""
        raise ConfigError(f"invalid setting {_env_name(field)}: {message}{shown}") from None
