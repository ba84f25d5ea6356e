"""/seal and /reveal: hidden orders committed now and opened later (bot/record/sealing.py).

The channel sees who sealed, when (the log entry) and the commitment, never the text; the sealer
gets a private copy with the nonce, so they can check the reveal themselves. /reveal puts the text
in the log and the bot checks it against the commitment, as every later /log verify does.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.render import safe
from bot.replies import reply_outcome
from cogs._common import actor_of, side_autocomplete, side_index


class SealCog(commands.Cog):
    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @app_commands.command(name="seal", description="Seal a hidden order (orders for the turn, a hidden set-up, a target): "
                                                   "the channel sees only its commitment until /reveal")
    @app_commands.describe(text="The hidden order; only you get a copy until it is revealed",
                           side="Game master only: the side this order is sealed for")
    @app_commands.autocomplete(side=side_autocomplete)
    @app_commands.guild_only()
    async def seal(self, interaction: Interaction, text: app_commands.Range[str, 1, 1500],
                   side: str | None = None) -> None:
        referee = interaction.client.referee
        index = side_index(await referee.game(interaction.channel_id), side) if side else None
        sealed = await referee.seal(interaction.channel_id, actor_of(interaction), text, index,
                                    interaction_id=interaction.id)
        await reply_outcome(interaction, sealed.acted)
        await interaction.followup.send(
            content=(f"Your sealed order #{sealed.acted.seq}, for you only:\n>>> {safe(sealed.text)}\n"
                     f"Nonce: `{sealed.nonce}` (SHA-256 of the nonce's bytes and the text is the commitment "
                     "posted; /reveal opens it)"), ephemeral=True)

    @app_commands.command(name="reveal", description="Open a sealed order: its text is posted and checked against "
                                                     "its commitment")
    @app_commands.describe(sealed="The log entry number of the seal (#N in its reply)")
    @app_commands.guild_only()
    async def reveal(self, interaction: Interaction, sealed: app_commands.Range[int, 1, 1_000_000]) -> None:
        acted = await interaction.client.referee.reveal(interaction.channel_id, actor_of(interaction), sealed,
                                                        interaction_id=interaction.id)
        await reply_outcome(interaction, acted)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(SealCog(bot))
