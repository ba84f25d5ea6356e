"""/morale: a morale check taken on its own (ASL and NHiS: one unit; Command Decision: a company).

The order is built for the channel's ruleset; an option that ruleset has no use for is refused
by name rather than ignored.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice, Range
from discord.ext import commands

from bot.core.rulesets.asl.orders import AslMorale
from bot.core.rulesets.cd.orders import CdMorale
from bot.core.rulesets.nhis.orders import NhisMorale
from cogs._common import (
    act_and_reply,
    agreed_drm,
    company_autocomplete,
    only_in,
    order_options,
    parse_dice,
    unit_autocomplete,
    unit_or_company,
)

CHECKS = [
    Choice(name="MC: Morale Check (n from the 'n' option)", value="MC"),
    Choice(name="NMC: Normal Morale Check", value="NMC"),
    Choice(name="PTC: Pin Task Check", value="PTC"),
    Choice(name="TC: Task Check", value="TC"),
    Choice(name="LLMC: Leader Loss Morale Check", value="LLMC"),
    Choice(name="LLTC: Leader Loss Task Check", value="LLTC"),
]
# the order fields each ruleset fills from the slash options; the rest go in options=
ASL_OPTION_FIELDS = ("unit", "check", "n", "drm", "drm_reason")
NHIS_OPTION_FIELDS = ("unit", "hit")
CD_OPTION_FIELDS = ("company",)


def morale_order(game, *, unit: str | None = None, company: str | None = None, check: str | None = None,
                 n: int | None = None, drm: int | None = None, reason: str | None = None,
                 hit: int | None = None, options: str | None = None) -> dict[str, Any]:
    """The morale order for the channel's ruleset, from the options of /morale."""
    for name, value in (("check", check), ("n", n), ("drm", drm), ("reason", reason)):
        only_in(game, name, value, "asl")
    only_in(game, "hit", hit, "nhis")
    order: dict[str, Any] = {"action": "morale", **unit_or_company(game, unit, company, "checks morale")}
    if game.ruleset == "cd":
        return order | order_options(options, CdMorale, taken=CD_OPTION_FIELDS)
    if game.ruleset == "nhis":
        order |= {"hit": hit} if hit is not None else {}
        return order | order_options(options, NhisMorale, taken=NHIS_OPTION_FIELDS)
    order |= {key: value for key, value in (("check", check), ("n", n)) if value is not None}
    return order | agreed_drm(drm, reason) | order_options(options, AslMorale, taken=ASL_OPTION_FIELDS)


class Morale(commands.Cog):
    """Morale checks taken on their own (fire results take theirs in /fire)."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @app_commands.command(name="morale", description="Take a morale check: the referee rolls and applies the result")
    @app_commands.describe(
        unit="ASL/NHiS: the unit that checks",
        company="Command Decision: the company that checks",
        check="ASL: the kind of check (default: NMC)",
        n="ASL: the +n of an nMC, e.g. 1 for a 1MC",
        drm="ASL: any other DRM the players agree on (give a reason)",
        reason="ASL: why the extra DRM applies (shown in the trail)",
        hit="NHiS: the n of a Hit-n result (its modifier to the check)",
        options="Other modifiers as key=value: CD in_cover=yes afv_near=yes ...; NHiS flamethrower=yes",
        dice="Manual dice you rolled yourselves, in order (default: the bot rolls)",
        preview="Show the exact odds instead of rolling, in the channel for the table to discuss: no roll, no log",
    )
    @app_commands.choices(check=CHECKS)
    @app_commands.autocomplete(unit=unit_autocomplete, company=company_autocomplete)
    async def morale(self, interaction: discord.Interaction, unit: str | None = None, company: str | None = None,
                     check: str | None = None, n: Range[int, 0, 7] | None = None,
                     drm: Range[int, -10, 10] | None = None, reason: str | None = None,
                     hit: Range[int, 0, 6] | None = None, options: str | None = None,
                     dice: str | None = None, preview: bool = False) -> None:
        order = partial(morale_order, unit=unit, company=company, check=check, n=n, drm=drm, reason=reason,
                        hit=hit, options=options)  # built from the channel's game, under its lock
        await act_and_reply(interaction, order, command="/morale", dice=parse_dice(dice), preview=preview)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Morale(bot))
