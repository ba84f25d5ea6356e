"""/game: start this channel's game, take a side, look at it, advance the phase, end it.

A channel (or a thread) is one game. Each command parses its options, hands one order to the
referee service (which checks permissions, resolves it in the rules core and saves it with its
log entry in one transaction) and renders what came back. Refusals are raised, never caught
here: the bot's one error handler turns them into red ephemeral embeds.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.replies import reply_outcome, send_embeds
from bot.core.errors import InvalidOrder
from bot.core.rulesets import RULESET_TITLES
from bot.render import game_status_embed
from cogs._common import (
    act_and_reply,
    actor_of,
    parse_options,
    phase_autocomplete,
    side_autocomplete,
    side_index,
)

RULESET_CHOICES = [app_commands.Choice(name=title, value=key) for key, title in RULESET_TITLES.items()]
VARIANT_CHOICES = [app_commands.Choice(name="Full ASL", value="full"),
                   app_commands.Choice(name="ASL Starter Kit", value="starter")]


def split_sides(text: str) -> list[str]:
    """'Germans, Russians' -> ['Germans', 'Russians']; the rules core checks there are two."""
    return [name.strip() for name in text.split(",")]


# options that are numbers, with their range and what they count: refused at /game new when they
# are not, instead of being ignored later (the reminder and the undo expiry fall back otherwise)
NUMBER_OPTIONS = {"remind_after_hours": (0.1, 24 * 365, "hours of silence before a reminder"),
                  "undo_minutes": (1, 7 * 24 * 60, "minutes an undo proposal waits for its answer")}


def creation_options(ruleset: str, options: str | None, elr: tuple[int | None, int | None]) -> dict:
    """The game's options from the key=value text, with each side's ELR where one was given."""
    parsed = parse_options(options)
    for key, (low, high, meaning) in NUMBER_OPTIONS.items():
        value = parsed.get(key)
        if key in parsed and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not low <= value <= high):
            raise InvalidOrder(f"'{key}' takes a number from {low:g} to {high:,g} ({meaning}), "
                               f"e.g. {key}={max(1, round(low))}", field="options")
    if any(value is not None for value in elr):
        if ruleset != "asl":
            # ELR is an ASL scenario rating (A19.1); the other systems have nothing to put it on
            raise InvalidOrder(f"ELR is an Advanced Squad Leader rating (A19.1): "
                               f"{RULESET_TITLES[ruleset]} has none", field="elr_1")
        parsed["elr"] = list(elr)  # the rules core checks each value against the ELR range
    return parsed


class GameCog(commands.Cog):
    game = app_commands.Group(name="game", description="Start, join, look at, advance and end this channel's game",
                              guild_only=True)

    def __init__(self, bot: commands.Bot):
        self.bot = bot

    @game.command(name="new", description="Start a game in this channel (a thread is a channel of its own)")
    @app_commands.describe(
        ruleset="The rules system the game is played with",
        sides="The two sides' names, separated by a comma, e.g. 'Germans, Russians'",
        scenario="The scenario's name, shown on every result",
        variant="Advanced Squad Leader only: the full rules or the Starter Kit",
        elr_1="Advanced Squad Leader only: the first side's Experience Level Rating, 0 to 5 (A19.1)",
        elr_2="Advanced Squad Leader only: the second side's Experience Level Rating, 0 to 5 (A19.1)",
        options="Rule options as key=value pairs separated by spaces",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES, variant=VARIANT_CHOICES)
    async def new(self, interaction: discord.Interaction, ruleset: app_commands.Choice[str],
                  sides: app_commands.Range[str, 3, 200], scenario: app_commands.Range[str, 1, 100] | None = None,
                  variant: app_commands.Choice[str] | None = None, elr_1: int | None = None,
                  elr_2: int | None = None, options: str | None = None) -> None:
        game_options = creation_options(ruleset.value, options, (elr_1, elr_2))
        acted = await self.bot.referee.new_game(
            interaction.channel_id, interaction.guild_id, actor_of(interaction), ruleset.value,
            split_sides(sides), scenario=scenario or "", variant=variant.value if variant else None,
            options=game_options, interaction_id=interaction.id)
        await reply_outcome(interaction, acted)

    @game.command(name="join", description="Take a side in this channel's game")
    @app_commands.describe(side="The side you play",
                           player="Game master only: the player to seat (you, if left out)")
    @app_commands.autocomplete(side=side_autocomplete)
    async def join(self, interaction: discord.Interaction, side: str, player: discord.User | None = None) -> None:
        def order(game) -> dict:
            return {"action": "join", "side": side_index(game, side), "player": (player or interaction.user).id}
        await act_and_reply(interaction, order, command="/game join")

    @game.command(name="status", description="Show the turn, the phase, the players and every unit on the map")
    async def status(self, interaction: discord.Interaction) -> None:
        # anyone may look, players or not: it changes nothing
        game = await self.bot.referee.game(interaction.channel_id)
        await send_embeds(interaction, game_status_embed(game), ephemeral=False)

    @game.command(name="phase", description="End the current phase (its clean-ups apply) and go to the next one")
    @app_commands.describe(to="The phase to go to, ending every phase in between (the next one, if left out)")
    @app_commands.autocomplete(to=phase_autocomplete)
    async def phase(self, interaction: discord.Interaction, to: str | None = None) -> None:
        await act_and_reply(interaction, {"action": "phase", "to": to}, command="/game phase")

    @game.command(name="end", description="Game master only: end this channel's game (its log is kept)")
    async def end(self, interaction: discord.Interaction) -> None:
        acted = await self.bot.referee.end_game(interaction.channel_id, actor_of(interaction),
                                                interaction_id=interaction.id)
        await reply_outcome(interaction, acted)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GameCog(bot))
