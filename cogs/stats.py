"""/stats dice: the game's dice against fair dice, per player or per side, with a chart; /stats pace: how
long each side takes to answer.

Counts, means, the observed distribution against the expected one per die family (d6 faces,
d10 faces, 2d6 totals), a chi-square p-value and a PNG chart attached to the embed. What counts
and why (the actor's dice, undone entries included, manual dice apart) is in bot/stats.py.
"""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.errors import InvalidOrder
from bot.pace import side_waits
from bot.render import CHART, breakdown_block, message_groups, pace_embed, safe, stats_embeds
from bot.pictures import chart_png
from bot.stats import tally
from cogs._common import side_autocomplete

def side_of(record: dict, name: str) -> int:
    """A side of the exported game (the active one or the last ended) by name, or by number 1/2."""
    sides = record["entries"][0]["order"].get("sides") or []
    for i, side in enumerate(sides):
        if side.casefold() == name.strip().casefold():
            return i
    if name.strip() in ("1", "2"):
        return int(name.strip()) - 1
    raise InvalidOrder(f"no side '{name[:40]}' in this game (sides: {', '.join(sides)})", field="side")


class StatsCog(commands.Cog):
    # heavy (bot/limits.py): statistics read the whole log
    stats = app_commands.Group(name="stats", description="Numbers about this channel's game", guild_only=True,
                               extras={"heavy": True})

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @stats.command(name="dice", description="Dice counts, means, expected vs observed, chi-square and a chart")
    @app_commands.describe(player="Only the dice of this player's commands", side="Only the dice rolled for this side")
    @app_commands.autocomplete(side=side_autocomplete)
    async def dice(self, interaction: Interaction, player: discord.User | None = None,
                   side: str | None = None) -> None:
        record = await interaction.client.referee.export(interaction.channel_id)
        number = side_of(record, side) if side is not None else None
        stats = tally(record["entries"], player=player.id if player else None, side=number)
        who = [safe(player.display_name)] if player else []
        who += [safe(record["entries"][0]["order"]["sides"][number])] if number is not None else []
        sides = record["entries"][0]["order"].get("sides") or []
        breakdown = breakdown_block(record["entries"], sides) if not who else None
        groups = message_groups(stats_embeds(stats, " · ".join(who) or "everyone", breakdown))
        chart = discord.File(io.BytesIO(await asyncio.to_thread(chart_png, stats)), filename=CHART)
        await interaction.response.send_message(embeds=groups[0], file=chart)
        for group in groups[1:]:
            await interaction.followup.send(embeds=group)


    @stats.command(name="pace", description="How long each side takes to answer: median and longest wait")
    async def pace(self, interaction: Interaction) -> None:
        record = await interaction.client.referee.export(interaction.channel_id)
        sides = record["entries"][0]["order"].get("sides") or []
        await interaction.response.send_message(embed=pace_embed(side_waits(record["entries"]), sides))


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(StatsCog(bot))
