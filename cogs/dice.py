"""/dice: the committed dice (docs/dice.md). Each side may add its own contribution to every die.

Every die derives from the game turn's secret seed, whose SHA-256 was posted before any die of the
turn was drawn, and from what exists only once an order is given: its log entry, its Discord
interaction and each side's contribution. A side that changes its contribution changes every die
drawn after it, so not even the bot's host can have worked them out in advance.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.replies import reply_outcome
from cogs._common import actor_of, side_autocomplete, side_index


class DiceCog(commands.Cog):
    dice = app_commands.Group(name="dice", description="The committed dice: anyone can check them (docs/dice.md)",
                              guild_only=True)

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @dice.command(name="contribute",
                  description="Add your side's own words to every die drawn from now on (set or change it)")
    @app_commands.describe(text="Any words of your choosing: the dice derive from their SHA-256 (the text stays "
                                "yours; the log shows its hash)",
                           side="Game master only: the side whose contribution this is")
    @app_commands.autocomplete(side=side_autocomplete)
    async def contribute(self, interaction: Interaction, text: app_commands.Range[str, 1, 200],
                         side: str | None = None) -> None:
        referee = interaction.client.referee
        index = side_index(await referee.game(interaction.channel_id), side) if side else None
        acted = await referee.contribute(interaction.channel_id, actor_of(interaction), text, index,
                                         interaction_id=interaction.id)
        await reply_outcome(interaction, acted)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(DiceCog(bot))
