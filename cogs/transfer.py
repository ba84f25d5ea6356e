"""/transfer and /recover: ASL support weapons changing hands (A4.43-A4.44, seed 002 Table 7).

No Honor in Surrender and Command Decision have no support-weapon counters to pass around, so
both commands are refused there with a word on what the channel's game uses instead.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from cogs._common import (
    act_and_reply,
    game_or_none,
    matching_choices,
    parse_dice,
    require_ruleset,
    unit_autocomplete,
)

NO_SW = "its weapons belong to the units themselves"


async def weapon_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The game's support weapons, each with who holds it (or where it lies)."""
    game = await game_or_none(interaction)
    if game is None:
        return []
    weapons = [u for u in game.units.values() if getattr(u, "kind", None) == "sw" and not u.eliminated]
    return matching_choices([(f"{w.id} ({w.name}, {f'held by {w.owner}' if w.owner else 'unpossessed'}, "
                      f"{w.location or 'off board'})", w.id) for w in weapons], current)


class Transfer(commands.Cog):
    """ASL support weapons: transfer between units, recovery of dropped ones."""

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    async def _act(self, interaction: discord.Interaction, command: str, order: dict[str, str],
                   dice: str | None) -> None:
        def asl_only(game) -> dict[str, str]:
            require_ruleset(game, command, "asl", instead=NO_SW)
            return order
        await act_and_reply(interaction, asl_only, command=f"/{command}", dice=parse_dice(dice))

    @app_commands.command(name="transfer",
                          description="ASL: pass a support weapon to another unit in the same Location")
    @app_commands.describe(
        weapon="The support weapon (its id, e.g. MG1)",
        to="The unit that takes it",
        dice="A manual dr you rolled yourselves, when the transfer needs one (default: the bot rolls)",
    )
    @app_commands.autocomplete(weapon=weapon_autocomplete, to=unit_autocomplete)
    async def transfer(self, interaction: discord.Interaction, weapon: str, to: str, dice: str | None = None) -> None:
        await self._act(interaction, "transfer", {"action": "transfer", "weapon": weapon.strip(), "to": to.strip()},
                        dice)

    @app_commands.command(name="recover", description="ASL: recover an unpossessed support weapon (recovery dr)")
    @app_commands.describe(
        weapon="The support weapon to recover (its id)",
        unit="The unit that recovers it",
        dice="A manual dr you rolled yourselves (default: the bot rolls)",
    )
    @app_commands.autocomplete(weapon=weapon_autocomplete, unit=unit_autocomplete)
    async def recover(self, interaction: discord.Interaction, weapon: str, unit: str, dice: str | None = None) -> None:
        await self._act(interaction, "recover", {"action": "recover", "weapon": weapon.strip(), "unit": unit.strip()},
                        dice)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Transfer(bot))
