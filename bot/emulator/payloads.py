"""The JSON objects the fake Discord serves: users, guilds, channels, members, messages.

Only the keys discord.py 2.7 reads are produced; a missing required key would kill the
client's gateway read loop silently (notes/discord-emulator.md), so every builder here
fills each key the client indexes directly rather than with ``.get``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

# Discord's permission bits used by the defaults (the bot checks Manage Channels for GMs)
MANAGE_CHANNELS = 1 << 4
ADMINISTRATOR = 1 << 3
# what an ordinary player may do in a game channel: view, send messages, embed links,
# read history, use application commands (Discord's documented bit positions)
PLAYER_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 16) | (1 << 31)
EPHEMERAL = 1 << 6

TEXT_CHANNEL = 0
PUBLIC_THREAD = 11


@dataclass(frozen=True)
class UserSpec:
    id: int
    name: str
    bot: bool = False


@dataclass(frozen=True)
class ChannelSpec:
    id: int
    name: str
    type: int = TEXT_CHANNEL
    parent_id: int | None = None  # set for threads: the text channel they hang from

    @property
    def is_thread(self) -> bool:
        return self.type in (10, 11, 12)


@dataclass(frozen=True)
class GuildSpec:
    id: int
    name: str
    owner_id: int
    channels: tuple[ChannelSpec, ...]
    members: tuple[UserSpec, ...] = ()


@dataclass(frozen=True)
class AppSpec:
    """The bot's application; its id is also the bot user's id, as on Discord."""

    id: int = 1_000_000_000_000_000_001
    name: str = "Referee"
    owner: UserSpec = field(default_factory=lambda: UserSpec(2_000_000_000_000_000_001, "owner"))

    @property
    def bot_user(self) -> UserSpec:
        return UserSpec(self.id, self.name, bot=True)


def default_guild() -> GuildSpec:
    """One guild with two game channels, a thread under the first, and three players."""
    players = (UserSpec(2_000_000_000_000_000_001, "alice"), UserSpec(2_000_000_000_000_000_002, "bob"),
               UserSpec(2_000_000_000_000_000_003, "gm"))
    channels = (ChannelSpec(3_000_000_000_000_000_001, "general"),
                ChannelSpec(3_000_000_000_000_000_002, "game-1"),
                ChannelSpec(3_000_000_000_000_000_003, "game-thread", PUBLIC_THREAD,
                            parent_id=3_000_000_000_000_000_001))
    return GuildSpec(4_000_000_000_000_000_001, "Referee Test Guild", owner_id=players[2].id,
                     channels=channels, members=players)


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat()


def user_json(user: UserSpec) -> dict[str, Any]:
    return {"id": str(user.id), "username": user.name, "global_name": user.name, "discriminator": "0",
            "avatar": None, "bot": user.bot, "public_flags": 0}


def member_json(user: UserSpec, *, permissions: int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"user": user_json(user), "roles": [], "joined_at": "2024-01-01T00:00:00+00:00",
                            "deaf": False, "mute": False, "flags": 0, "nick": None, "avatar": None}
    if permissions is not None:
        data["permissions"] = str(permissions)  # only interaction members carry it
    return data


def channel_json(channel: ChannelSpec, guild: GuildSpec, position: int = 0) -> dict[str, Any]:
    if channel.is_thread:
        return thread_json(channel, guild)
    return {"id": str(channel.id), "type": channel.type, "guild_id": str(guild.id), "name": channel.name,
            "position": position, "permission_overwrites": [], "nsfw": False, "parent_id": None,
            "topic": None, "last_message_id": None, "rate_limit_per_user": 0}


def thread_json(channel: ChannelSpec, guild: GuildSpec) -> dict[str, Any]:
    return {"id": str(channel.id), "type": channel.type, "guild_id": str(guild.id), "name": channel.name,
            "parent_id": str(channel.parent_id), "owner_id": str(guild.owner_id), "last_message_id": None,
            "rate_limit_per_user": 0, "message_count": 0, "member_count": 1, "flags": 0,
            "thread_metadata": {"archived": False, "auto_archive_duration": 1440, "locked": False,
                                "archive_timestamp": "2024-01-01T00:00:00+00:00"}}


def role_everyone(guild: GuildSpec) -> dict[str, Any]:
    # @everyone has the guild's id; it grants the players' ordinary permissions
    return {"id": str(guild.id), "name": "@everyone", "color": 0, "hoist": False, "position": 0,
            "permissions": str(PLAYER_PERMISSIONS), "managed": False, "mentionable": False, "flags": 0}


def guild_create_json(guild: GuildSpec, app: AppSpec) -> dict[str, Any]:
    channels = [channel_json(c, guild, i) for i, c in enumerate(guild.channels) if not c.is_thread]
    threads = [thread_json(c, guild) for c in guild.channels if c.is_thread]
    members = [member_json(app.bot_user)] + [member_json(u) for u in guild.members]
    return {"id": str(guild.id), "name": guild.name, "owner_id": str(guild.owner_id), "icon": None,
            "splash": None, "discovery_splash": None, "features": [], "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0, "mfa_level": 0,
            "system_channel_id": None, "system_channel_flags": 0, "rules_channel_id": None,
            "vanity_url_code": None, "description": None, "banner": None, "premium_tier": 0,
            "preferred_locale": "en-US", "public_updates_channel_id": None, "nsfw_level": 0,
            "premium_progress_bar_enabled": False, "large": False, "unavailable": False,
            "member_count": len(members), "joined_at": "2024-01-01T00:00:00+00:00",
            "roles": [role_everyone(guild)], "channels": channels, "threads": threads, "members": members,
            "emojis": [], "stickers": [], "voice_states": [], "presences": [], "stage_instances": [],
            "guild_scheduled_events": [], "soundboard_sounds": []}


def ready_json(app: AppSpec, guilds: list[GuildSpec], session_id: str, resume_url: str,
               shard: tuple[int, int] = (0, 1)) -> dict[str, Any]:
    user = user_json(app.bot_user) | {"verified": True, "mfa_enabled": False, "flags": 0}
    return {"v": 10, "user": user, "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session_id, "session_type": "normal", "resume_gateway_url": resume_url,
            "application": {"id": str(app.id), "flags": 0}, "shard": list(shard), "private_channels": [],
            "relationships": [], "presences": [], "guild_join_requests": [], "geo_ordered_rtc_regions": []}


def application_json(app: AppSpec) -> dict[str, Any]:
    return {"id": str(app.id), "name": app.name, "description": "", "icon": None, "bot_public": False,
            "bot_require_code_grant": False, "owner": user_json(app.owner), "verify_key": "0" * 64,
            "flags": 0, "team": None, "summary": "", "rpc_origins": [], "tags": []}
