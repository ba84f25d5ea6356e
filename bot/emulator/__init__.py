"""A loopback Discord (gateway + REST on 127.0.0.1) for end-to-end tests and the sandbox.

    async with running(bot) as (fake, bot):
        reply = await fake.send_command("fire", {"unit": "A1", "target": "B2"})
        assert reply.embeds[0]["title"] == ...

A file a user attaches to an attachment option (type 11) is given as a ``SentFile``:
``fake.send_command("scenario load", {"file": SentFile("s.yaml", None, data)})`` sends its id in the
option and its attachment object in ``resolved.attachments``, as Discord does, and serves the file on
loopback (``/ephemeral-attachments/{id}/{filename}``) for the bot to download.

Direct messages: the bot opens a user's DM channel (``POST /users/@me/channels``) and posts to it;
``fake.dm_messages(user_id)`` lists what it sent. A user in ``fake.closed_dms`` has his DMs closed to
the bot: the channel opens, the message is refused with 403 code 50007, as Discord does.
"""

from bot.emulator.harness import running
from bot.emulator.patch import API_ENV, GATEWAY_ENV, apply_env_endpoints, pointed_at
from bot.emulator.payloads import (
    MANAGE_CHANNELS, PLAYER_PERMISSIONS, AppSpec, ChannelSpec, GuildSpec, UserSpec, default_guild,
)
from bot.emulator.records import Callback, InteractionRecord, Reply, SentFile, StoredMessage
from bot.emulator.server import FakeDiscord

__all__ = [
    "API_ENV", "GATEWAY_ENV", "MANAGE_CHANNELS", "PLAYER_PERMISSIONS", "AppSpec", "Callback", "ChannelSpec",
    "FakeDiscord", "GuildSpec", "InteractionRecord", "Reply", "SentFile", "StoredMessage", "UserSpec",
    "apply_env_endpoints", "default_guild", "pointed_at", "running",
]
