"""/notify: how a player is told it is their move, on every server at once.

``/notify dm:yes`` sends the hand-off mention (your move), a reaction window (Fire or No fire) and a
reminder of a silent game (with its deadline) by direct message too, with a link to the game's channel; ``dm:no`` (the default) keeps them in the
channel only. A DM Discord refuses (the player's DMs closed to the bot) is dropped silently: the
channel's mention always stands (bot/replies.py). Kept per user by the store, answered privately.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.replies import send_ephemeral


class Notify(commands.Cog):
    """A player's notifications."""

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @app_commands.command(name="notify", description="Be told of your move by direct message too (only you see it)")
    @app_commands.describe(dm="yes: your moves, reaction windows and reminders by DM too, with a link; no: in the "
                              "channel only")
    async def notify(self, interaction: Interaction, dm: bool) -> None:
        await interaction.client.referee.set_notify(interaction.user.id, dm)
        await send_ephemeral(interaction, content=(
            "Your moves, reaction windows and reminders now reach you by DM too, with a link to the game's channel "
            "(if your DMs are closed to the bot, the channel's mention is all you get)" if dm else
            "Your moves, reaction windows and reminders reach you in the game's channel only (no DM)"))


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(Notify(bot))
