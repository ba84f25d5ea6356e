"""/rally: a rally attempt (ASL and NHiS: one unit; Command Decision: the Rally/Regroup of a company).

The order is built for the channel's ruleset; an option that ruleset has no use for is refused
by name rather than ignored.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs._common import (
    act_and_reply,
    company_autocomplete,
    only_in,
    parse_dice,
    unit_autocomplete,
    unit_or_company,
)


def rally_order(game, *, unit: str | None = None, company: str | None = None, leader: str | None = None,
                self_rally: bool | None = None) -> dict[str, Any]:
    """The rally order for the channel's ruleset, from the options of /rally."""
    only_in(game, "leader", leader, "asl")
    only_in(game, "self_rally", self_rally, "asl")
    order: dict[str, Any] = {"action": "rally", **unit_or_company(game, unit, company, "rallies")}
    if leader is not None:
        order["leader"] = leader.strip()
    if self_rally is not None:
        order["self_rally"] = self_rally
    return order


class Rally(commands.Cog):
    """Rally attempts."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @app_commands.command(name="rally",
                          description="Try to rally a broken or shaken unit (CD: a company's Rally/Regroup)")
    @app_commands.describe(
        unit="ASL/NHiS: the unit that tries to rally",
        company="Command Decision: the company under a Rally/Regroup order",
        leader="ASL: the leader who rallies it (default: the best Good Order leader there)",
        self_rally="ASL: rally without a leader (Self-Rally, +1 DRM)",
        dice="Manual dice you rolled yourselves, in order (default: the bot rolls)",
        preview="Show the exact odds instead of rolling, in the channel for the table to discuss: no roll, no log",
    )
    @app_commands.autocomplete(unit=unit_autocomplete, company=company_autocomplete, leader=unit_autocomplete)
    async def rally(self, interaction: discord.Interaction, unit: str | None = None, company: str | None = None,
                    leader: str | None = None, self_rally: bool | None = None, dice: str | None = None,
                    preview: bool = False) -> None:
        order = partial(rally_order, unit=unit, company=company, leader=leader, self_rally=self_rally)
        await act_and_reply(interaction, order, command="/rally", dice=parse_dice(dice), preview=preview)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Rally(bot))
