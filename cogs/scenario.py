"""/scenario: set a whole game up from a scenario file, and write the game back as one.

A scenario file (docs/scenarios.md) is attached to ``/scenario load`` (or to ``/game new`` as
``file:``); it is checked whole before anything is saved, and the game is created with its whole
set-up in one log entry, so a bad file creates nothing and its refusal names the line and the
field. ``/scenario export`` attaches the channel's game as a file that loads into the same game.
"""

from __future__ import annotations

import asyncio
import io
import re

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.errors import InvalidOrder
from bot.core.rulesets import get_ruleset
from bot.render import safe
from bot.replies import send_answer
from bot.scenario import Loaded, converted_text, file_formats, write
from cogs._common import (NOT_MAPPED_INLINE, Choices, actor_of, game_or_none, loaded_lines, matching_choices,
                          reply_new_game, scenario_file)

SCENARIO_FORMAT = "yaml"  # /scenario export's own format: a scenario file


async def format_autocomplete(interaction: Interaction, current: str) -> Choices:
    """The formats the channel's game can be written in: a scenario file, and its ruleset's files."""
    game = await game_or_none(interaction)
    formats = get_ruleset(game.ruleset).file_formats() if game is not None else file_formats()
    return matching_choices([("yaml: a scenario file (loads back whole)", SCENARIO_FORMAT),
                             *((f"{f.name}: {f.title}", f.name) for f in formats if f.write is not None)], current)


def checked_text(loaded: Loaded) -> str:
    """What /scenario check answers: the set-up in a few lines (the attached file holds it whole)."""
    scenario = loaded.scenario
    units = sum(len(side.units) for side in scenario.sides)
    lines = [f"{safe(scenario.title) or 'Untitled'}: {units} units in {len(scenario.locations)} Locations; nothing "
             "was created (/scenario load sets it up). The file attached is the scenario, hidden parts included: "
             "for you only."]
    lines += [f"- {safe(side.name)}: {len(side.units)} unit{'' if len(side.units) == 1 else 's'}"
              + (", and a hidden part sealed for it at load" if side.hidden else "") for side in scenario.sides]
    if loaded.format:
        lines += loaded_lines(loaded)
    text = "\n".join(lines)
    return text if len(text) <= NOT_MAPPED_INLINE else text[:NOT_MAPPED_INLINE] + "\n(more in the file's header)"


class ScenarioCog(commands.Cog):
    scenario = app_commands.Group(name="scenario", description="Set up a game from a scenario file, or save one",
                                  guild_only=True)

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    # heavy (bot/limits.py): a file is downloaded and a whole game set up or written, so they count
    # against the smaller quotas of the commands that may take long
    @scenario.command(name="load", description="Start this channel's game from a scenario file or another "
                                               "program's saved game, set up whole",
                      extras={"heavy": True})
    @app_commands.describe(file="A scenario file (YAML, docs/scenarios.md) or a saved game of another program, "
                                "told by its content")
    async def load(self, interaction: Interaction, file: discord.Attachment) -> None:
        loaded = await scenario_file(interaction, file)
        setup = loaded.scenario
        acted = await interaction.client.referee.new_game(
            interaction.channel_id, interaction.guild_id, actor_of(interaction), setup.ruleset,
            [side.name for side in setup.sides], interaction_id=interaction.id, setup=setup)
        await reply_new_game(interaction, acted, loaded)

    @scenario.command(name="check", description="Show what a scenario file or a saved game sets up, for you only; "
                                                "nothing is created", extras={"heavy": True})
    @app_commands.describe(file="A scenario file (YAML) or a saved game of another program (docs/scenarios.md)")
    async def check(self, interaction: Interaction, file: discord.Attachment) -> None:
        loaded = await scenario_file(interaction, file, private=True)
        stem = re.sub(r"[^a-z0-9]+", "-", file.filename.rsplit(".", 1)[0].casefold()).strip("-")[:60] or "scenario"
        await send_answer(
            interaction, content=checked_text(loaded), ephemeral=True, allowed_mentions=discord.AllowedMentions.none(),
            file=discord.File(io.BytesIO(converted_text(loaded).encode("utf-8")), filename=f"{stem}.yaml"))

    @scenario.command(name="export", description="Attach this channel's game as a scenario file that sets it up "
                                                 "again (or in another program's format)", extras={"heavy": True})
    @app_commands.describe(format="yaml (the default): a scenario file; or a format the game's ruleset writes, "
                                  "as offered")
    @app_commands.autocomplete(format=format_autocomplete)
    async def export(self, interaction: Interaction, format: str = SCENARIO_FORMAT) -> None:
        game, revealed, sealed = await interaction.client.referee.revealed_hidden(interaction.channel_id)
        name = re.sub(r"[^a-z0-9]+", "-", game.scenario.casefold()).strip("-")[:60] or "scenario"
        still = " and ".join(game.side_name(i) for i in sealed)
        if format.strip().casefold() == SCENARIO_FORMAT:
            text = write(game, hidden=revealed)
            left_out = (f"; the hidden part of {still} is still sealed and left out (/reveal it first to include "
                        "it)" if sealed else "")
            await interaction.response.send_message(
                content=f"{game.scenario or 'This game'}: {len(game.units)} units, {len(game.locations)} Locations "
                        f"(load it with /scenario load){left_out}",
                file=discord.File(io.BytesIO(text.encode("utf-8")), filename=f"{name}.yaml"),
                allowed_mentions=discord.AllowedMentions.none())
            return
        formats = [f for f in get_ruleset(game.ruleset).file_formats() if f.write is not None]
        fmt = next((f for f in formats if f.name.casefold() == format.strip().casefold()), None)
        if fmt is None or fmt.write is None:
            known = ", ".join([SCENARIO_FORMAT, *(f.name for f in formats)])
            raise InvalidOrder(f"'{format[:30]}' is not a format this game can be written in (formats: {known})",
                               field="format")
        exported = await asyncio.to_thread(fmt.write, game)  # the game's units only: a sealed part is never in it
        hidden = [f"the hidden part of {still} is sealed and not in it"] if sealed else []
        notes = "\n".join(f"- {note}" for note in [*exported.notes, *hidden])
        await interaction.response.send_message(
            content=f"{game.scenario or 'This game'} as a {fmt.title}: the position to look at in that program "
                    f"(/scenario load reads it back)\n{notes}"[:1900],
            file=discord.File(io.BytesIO(exported.data), filename=f"{name}{exported.extension}"),
            allowed_mentions=discord.AllowedMentions.none())


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(ScenarioCog(bot))
