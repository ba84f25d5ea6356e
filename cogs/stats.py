"""/stats dice: the game's dice against fair dice, per player or per side, with a chart; /stats pace: how
long each side takes to answer.

Counts, means, the observed distribution against the expected one per die family (d6 faces,
d10 faces, 2d6 totals), a chi-square p-value and a PNG chart attached to the embed. What counts
and why (the actor's dice, undone entries included, manual dice apart) is in bot/stats.py.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.errors import InvalidOrder
from bot.pace import SideWaits, side_waits
from bot.record import LogEntry
from bot.render import CHART, Block, breakdown_block, message_groups, pace_embed, safe, stats_embeds
from bot.replies import defer_thinking, send_answer
from bot.pictures import chart_png
from bot.stats import DiceStats, tally

STATS_STEPS = 5  # work steps per log entry of the statistics (bot/work.py)
from cogs._common import side_autocomplete

def side_of(sides: list[str], name: str) -> int:
    """A side of the game (the active one or the last ended) by name, or by number 1/2."""
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
        referee = interaction.client.referee
        stored, entries = await referee.log_snapshot(interaction.channel_id,
                                                     on_long=lambda: defer_thinking(interaction),
                                                     steps_per_entry=STATS_STEPS)
        sides = entries.first.order.get("sides") or []
        number = side_of(sides, side) if side is not None else None
        plain = [player.display_name] if player else []
        plain += [sides[number]] if number is not None else []
        who = [safe(name) for name in plain]
        stats, breakdown, png = await referee.run_long(
            dice_job, entries, player.id if player else None, number, not who, " · ".join(plain) or "everyone",
            cost=len(entries) * STATS_STEPS,
            what=f"counting the statistics of this game's {len(entries):,} log entries", instead="ask for one player's "
            "or one side's dice, or export the dice (/log export format:CSV)")
        groups = message_groups(stats_embeds(stats, " · ".join(who) or "everyone", breakdown))
        chart = discord.File(io.BytesIO(png), filename=CHART)
        await send_groups(interaction, groups, file=chart)

    @stats.command(name="pace", description="How long each side takes to answer: median and longest wait")
    async def pace(self, interaction: Interaction) -> None:
        referee = interaction.client.referee
        stored, entries = await referee.log_snapshot(interaction.channel_id,
                                                     on_long=lambda: defer_thinking(interaction),
                                                     steps_per_entry=STATS_STEPS)
        sides = entries.first.order.get("sides") or []
        waits = await referee.run_long(pace_job, entries, cost=len(entries) * STATS_STEPS,
                                       what=f"measuring the pace of this game's {len(entries):,} log entries",
                                       instead="ask again later")
        await send_groups(interaction, [[pace_embed(waits, sides)]])


async def send_groups(interaction: Interaction, groups: list, *, file: discord.File | None = None) -> None:
    """The first group as the response (or the deferred response's end), the rest as followups."""
    extra = {"file": file} if file is not None else {}
    await send_answer(interaction, embeds=groups[0], **extra)
    for group in groups[1:]:
        await interaction.followup.send(embeds=group)


def dice_job(entries: Iterable[LogEntry], player: int | None, side: int | None,
             with_breakdown: bool, who: str = "everyone") -> tuple[DiceStats, Block | None, bytes]:
    """The tally, everyone's breakdown and the chart naming ``who`` (run in a worker process when long)."""
    exported = [e.export() for e in entries]
    stats = tally(exported, player=player, side=side)
    sides = exported[0]["order"].get("sides") or []
    return stats, breakdown_block(exported, sides) if with_breakdown else None, chart_png(stats, who)


def pace_job(entries: Iterable[LogEntry]) -> SideWaits:
    return side_waits([e.export() for e in entries])


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(StatsCog(bot))
