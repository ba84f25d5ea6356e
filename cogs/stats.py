"""/stats dice: the game's dice against fair dice, per player or per side, with a chart.

Counts, means, the observed distribution against the expected one per die family (d6 faces,
d10 faces, 2d6 totals), a chi-square p-value and a PNG chart attached to the embed. What counts
and why (the actor's dice, undone entries included, manual dice apart) is in bot/stats.py.
"""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.errors import InvalidOrder
from bot.render import NEUTRAL_COLOUR, Block, message_groups, paginate, safe
from bot.stats import DiceStats, FamilyStats, chart_png, rollers, summary, tally
from cogs._common import side_autocomplete

CHART = "dice.png"


def family_block(stats: FamilyStats) -> Block:
    fam = stats.family
    mean = f"mean {stats.mean:.2f} (fair: {fam.expected_mean:g})" if stats.mean is not None else "no dice"
    lines = [f"{face}: {observed} (expected {expected:.1f})"
             for face, observed, expected in zip(fam.faces, stats.observed, stats.expected)]
    if stats.testable:
        lines.append(f"chi-square {stats.chi_square:.2f}, {stats.degrees_of_freedom} df, p = {stats.p_value:.3f}")
    else:
        lines.append(f"chi-square test: needs at least {stats.rolls_needed} (5 expected per cell)")
    return Block(f"{fam.title}: {stats.n}, {mean}", tuple(lines))


def breakdown_block(entries: list[dict], sides: list[str]) -> Block | None:
    """Everyone's dice at a glance: one line per player and per side that rolled. Players are
    shown as <@id>: an embed never pings, and Discord shows each reader the name."""
    players, rolled_for = rollers(entries)
    lines = [f"<@{p}>: {summary(tally(entries, player=p))}" for p in players]
    lines += [f"{safe(sides[i]) if i < len(sides) else i}: {summary(tally(entries, side=i))}" for i in rolled_for]
    return Block("By player and by side", tuple(lines)) if lines else None


def stats_embeds(stats: DiceStats, who: str, extra: Block | None = None) -> list[discord.Embed]:
    counted = [f for f in stats.families if f.n]
    description = f"{stats.rolls} roll{'s' if stats.rolls != 1 else ''} by the bot's dice"
    if stats.manual_left_out:
        description += f"; {stats.manual_left_out} manual dice left out (thrown at the table)"
    description += ". A small p (below 0.01) says the dice look unfair; a large one says nothing is wrong."
    blocks = [family_block(f) for f in counted] or [Block("No dice yet", ("nothing was rolled",))]
    blocks += [extra] if extra else []
    embeds = paginate(f"Dice statistics: {who}", blocks, colour=NEUTRAL_COLOUR, description=description)
    embeds[0].set_image(url=f"attachment://{CHART}")
    return embeds


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
    stats = app_commands.Group(name="stats", description="Numbers about this channel's game", guild_only=True)

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @stats.command(name="dice", description="Dice counts, means, expected vs observed, chi-square and a chart")
    @app_commands.describe(player="Only the dice of this player's commands", side="Only the dice rolled for this side")
    @app_commands.autocomplete(side=side_autocomplete)
    async def dice(self, interaction: discord.Interaction, player: discord.User | None = None,
                   side: str | None = None) -> None:
        record = await self.bot.referee.export(interaction.channel_id)
        number = side_of(record, side) if side is not None else None
        stats = tally(record["entries"], player=player.id if player else None, side=number)
        who = [safe(player.display_name)] if player else []
        who += [safe(record["entries"][0]["order"]["sides"][number])] if number is not None else []
        sides = record["entries"][0]["order"].get("sides") or []
        breakdown = breakdown_block(record["entries"], sides) if not who else None
        groups = message_groups(stats_embeds(stats, " · ".join(who) or "everyone", breakdown))
        chart = discord.File(io.BytesIO(chart_png(stats)), filename=CHART)
        await interaction.response.send_message(embeds=groups[0], file=chart)
        for group in groups[1:]:
            await interaction.followup.send(embeds=group)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(StatsCog(bot))
