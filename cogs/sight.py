"""/los: the line of sight between two hexes as the bot reads the map (bot/core/sight.py), with a picture.

It changes nothing and rolls nothing: anyone may ask, the answer goes to the channel (the table
discusses it). The picture is the battlefield map (bot/pictures) with the line drawn from hex centre
to hex centre, the hexes that block it crossed out, those that hinder it ringed, those of unknown
terrain marked "?". A /fire reads the same line (the game option ``los``).
"""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.commands import Suggest
from bot.core.rulesets import get_ruleset
from bot.core.sight import read_sight
from bot.pictures import sight_png
from bot.render import sight_embeds
from cogs._common import Choices, ruleset_suggestions

SIGHT_FILE = "los.png"


async def location_autocomplete(interaction: Interaction, current: str) -> Choices:
    return await ruleset_suggestions(interaction, current, Suggest("location"), several=False)


class SightCog(commands.Cog):
    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @app_commands.command(name="los", description="The line of sight between two hexes as the bot reads the map, "
                                                  "with a picture", extras={"heavy": True})
    @app_commands.guild_only()
    @app_commands.rename(source="from", target="to")
    @app_commands.describe(source="The hex the line starts from (the firer's), e.g. D4",
                           target="The hex the line goes to (the target's), e.g. H2")
    @app_commands.autocomplete(source=location_autocomplete, target=location_autocomplete)
    async def los(self, interaction: Interaction, source: app_commands.Range[str, 1, 24],
                  target: app_commands.Range[str, 1, 24]) -> None:
        game = await interaction.client.referee.game(interaction.channel_id)
        ruleset = get_ruleset(game.ruleset)
        line = read_sight(ruleset.grid, ruleset.sight_terrain, game, source.strip(), target.strip())
        picture = await asyncio.to_thread(sight_png, game, line)
        embeds = sight_embeds(game, line, SIGHT_FILE)
        await interaction.response.send_message(
            embed=embeds[0], file=discord.File(io.BytesIO(picture.png), filename=SIGHT_FILE,
                                               description=f"Line of sight {line.source} to {line.target}"))
        for more in embeds[1:]:
            await interaction.followup.send(embed=more)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(SightCog(bot))
