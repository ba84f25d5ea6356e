"""/games: every game the player plays in, on every server the bot shares with them, privately.

Each game with its channel as a link, its rules and scenario, whose move it is and since when (its
newest entry); ``mine:yes`` keeps only those waiting for the player (their move, or their answer to
a reaction window). The store reads them through its seats index (``Store.player_games``): the cost
follows the player's own games, not the thousands the bot may referee.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.render import player_games_embeds
from bot.replies import send_embeds


class MyGames(commands.Cog):
    """A player's games across servers."""

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @app_commands.command(name="games", description="Your games on every server: where, whose move, since when "
                                                    "(only you see it)")
    @app_commands.describe(mine="yes: only the games waiting for your move")
    async def games(self, interaction: Interaction, mine: bool = False) -> None:
        referee = interaction.client.referee
        seated = await referee.player_games(interaction.user.id, mine=mine)
        away = (await referee.away_now([interaction.user.id])).get(interaction.user.id)
        await send_embeds(interaction, player_games_embeds(seated, mine=mine, away=away), ephemeral=True)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(MyGames(bot))
