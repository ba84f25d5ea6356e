"""/scenario: set a whole game up from a scenario file, and write the game back as one.

A scenario file (docs/scenarios.md) is attached to ``/scenario load`` (or to ``/game new`` as
``file:``); it is checked whole before anything is saved, and the game is created with its whole
set-up in one log entry, so a bad file creates nothing and its refusal names the line and the
field. ``/scenario export`` attaches the channel's game as a file that loads into the same game.
"""

from __future__ import annotations

import io
import re

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.scenario import write
from cogs._common import actor_of, reply_new_game, scenario_file


class ScenarioCog(commands.Cog):
    scenario = app_commands.Group(name="scenario", description="Set up a game from a scenario file, or save one",
                                  guild_only=True)

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    # heavy (bot/limits.py): a file is downloaded and a whole game set up or written, so they count
    # against the smaller quotas of the commands that may take long
    @scenario.command(name="load", description="Start this channel's game from a scenario file (YAML), "
                                               "set up whole in one step", extras={"heavy": True})
    @app_commands.describe(file="The scenario file (YAML, docs/scenarios.md; /scenario export writes one)")
    async def load(self, interaction: Interaction, file: discord.Attachment) -> None:
        setup = await scenario_file(interaction, file)
        acted = await interaction.client.referee.new_game(
            interaction.channel_id, interaction.guild_id, actor_of(interaction), setup.ruleset,
            [side.name for side in setup.sides], interaction_id=interaction.id, setup=setup)
        await reply_new_game(interaction, acted)

    @scenario.command(name="export", description="Attach this channel's game as a scenario file that sets it up "
                                                 "again", extras={"heavy": True})
    async def export(self, interaction: Interaction) -> None:
        game, revealed, sealed = await interaction.client.referee.revealed_hidden(interaction.channel_id)
        name = re.sub(r"[^a-z0-9]+", "-", game.scenario.casefold()).strip("-")[:60] or "scenario"
        text = write(game, hidden=revealed)
        left_out = (f"; the hidden part of {' and '.join(game.side_name(i) for i in sealed)} is still sealed and left "
                    "out (/reveal it first to include it)" if sealed else "")
        await interaction.response.send_message(
            content=f"{game.scenario or 'This game'}: {len(game.units)} units, {len(game.locations)} Locations "
                    f"(load it with /scenario load){left_out}",
            file=discord.File(io.BytesIO(text.encode("utf-8")), filename=f"{name}.yaml"),
            allowed_mentions=discord.AllowedMentions.none())


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(ScenarioCog(bot))
