"""/help: what may be done now in this channel's game, and how each command is used.

The list of commands is read from the bot's own command tree, so a command added by any cog
appears here without an edit; what each side may do now, with an example built from the game's
own units, comes from the rules core (bot/core/help.py), which tries each order on a copy of the
game exactly as a real one would be tried.
"""

from __future__ import annotations

import difflib

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.errors import InvalidOrder
from bot.render import EVERY_COMMAND, CommandInfo, command_help_embeds, help_embeds
from bot.replies import send_embeds
from cogs._common import MAX_CHOICES, game_or_none


def registered(tree: app_commands.CommandTree) -> list[CommandInfo]:
    """Every command a user can type, subcommands expanded, in the order the tree holds them."""
    found: list[CommandInfo] = []

    def walk(node: app_commands.Command | app_commands.Group) -> None:
        if isinstance(node, app_commands.Group):
            for child in node.commands:
                walk(child)
            return
        found.append(CommandInfo(node.qualified_name, node.description, tuple(
            (p.display_name, p.description, p.required) for p in node.parameters)))

    for command in tree.get_commands():
        if isinstance(command, (app_commands.Command, app_commands.Group)):
            walk(command)
    return found


async def command_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    names = [EVERY_COMMAND] + [c.path for c in registered(interaction.client.tree)]
    hits = [n for n in names if current.strip().casefold().lstrip("/") in n.casefold()]
    return [app_commands.Choice(name="all: every command" if n == EVERY_COMMAND else f"/{n}", value=n)
            for n in hits[:MAX_CHOICES]]


class HelpCog(commands.Cog):
    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @app_commands.command(name="help", description="What may be done now in this channel's game, or how a "
                                                   "command is used (only you see it)")
    @app_commands.describe(command="A command to explain, e.g. fire or game options; all: every command")
    @app_commands.autocomplete(command=command_autocomplete)
    async def help(self, interaction: Interaction, command: app_commands.Range[str, 1, 60] | None = None) -> None:
        game, known = await game_or_none(interaction), registered(interaction.client.tree)
        if command is None:
            await send_embeds(interaction, help_embeds(game, known), ephemeral=True)
            return
        wanted = " ".join(command.strip().lstrip("/").casefold().split())
        if wanted == EVERY_COMMAND:
            await send_embeds(interaction, help_embeds(game, known, everything=True), ephemeral=True)
            return
        found = next((c for c in known if c.path == wanted), None)
        grouped = [c for c in known if c.path.startswith(wanted + " ")]  # a group: /help command:roll
        if found is None and grouped:
            await send_embeds(interaction, [e for c in grouped for e in command_help_embeds(game, c)], ephemeral=True)
            return
        if found is None:
            close = difflib.get_close_matches(wanted, [c.path for c in known], n=1, cutoff=0.5)
            hint = f"did you mean {close[0]}? " if close else ""
            raise InvalidOrder(f"there is no command /{wanted[:40]}: {hint}/help command:all lists every command",
                               field="command")
        await send_embeds(interaction, command_help_embeds(game, found), ephemeral=True)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(HelpCog(bot))
