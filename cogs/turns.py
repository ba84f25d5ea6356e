"""/done: a side ends its part of the turn, and the game passes to whoever acts next.

Only the side holding the step (or the game master) ends it. A player of another side who gives
/done asks the holder to end it instead: the request is posted with Accept and Refuse buttons for
the holder's players, who are mentioned. Every step change names what ended and what begins (the
rules core's trail), and the reply mentions exactly the players who must act now, with a digest of
what happened since they last acted (bot/replies.py). The buttons are dynamic items whose
custom_id holds the game and the request's log entry (``turn:accept:12:34``): they work after a
restart, and a button of a request the game has moved past says so.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.commands import parse_dice
from bot.core.errors import IllegalOrder, RulesError
from bot.core.game import Game
from bot.core.sequence import refereed, side_to_act
from bot.limits import Guarded
from bot.render import error_embed
from bot.replies import only_these, reply_and_close, reply_outcome, send_ephemeral, side_players
from bot.service import is_game_master
from cogs._common import actor_of


def done_order(game: Game, interaction: Interaction) -> dict[str, Any]:
    """End the step for the side holding it, when the player plays it (the game master for anyone);
    otherwise ask its holder to end it."""
    holder = side_to_act(game)
    if not refereed(game):
        return {"action": "done", "side": holder}  # the rules core says what to use instead
    actor = actor_of(interaction)
    mine = [i for i, side in enumerate(game.sides) if actor.user_id in side.players]
    if holder in mine or (is_game_master(game, actor) and not mine):
        return {"action": "done", "side": holder}
    if not mine:
        return {"action": "done", "side": holder}  # refused by the permission check: join a side first
    return {"action": "done", "side": mine[0], "answer": "ask"}


class AnswerButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                   template=r"turn:(?P<verb>accept|refuse):(?P<game>[0-9]{1,18}):(?P<seq>[0-9]{1,9})"):
    """Accept or Refuse a request to end the step, for the side holding it."""

    def __init__(self, verb: str, game_id: int, seq: int):
        style = discord.ButtonStyle.success if verb == "accept" else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label="End it" if verb == "accept" else "Keep it", style=style,
                                           custom_id=f"turn:{verb}:{game_id}:{seq}"))
        self.verb, self.game_id, self.seq = verb, game_id, seq

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> AnswerButton:
        return cls(match["verb"], int(match["game"]), int(match["seq"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        referee = interaction.client.referee

        def answer(game: Game) -> dict[str, Any]:
            if game.asked_by is None:
                raise IllegalOrder("this request is closed: the step was ended or the request answered")
            order: dict[str, Any] = {"action": "done", "side": side_to_act(game)}
            return order | ({"answer": "refuse"} if self.verb == "refuse" else {})

        try:
            acted = await referee.act(interaction.channel_id, actor_of(interaction), answer,
                                      command=f"/done ({'accepted' if self.verb == 'accept' else 'refused'})",
                                      interaction_id=interaction.id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        await reply_and_close(interaction, acted)


def answer_view(acted: Any) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for verb in ("accept", "refuse"):
        view.add_item(AnswerButton(verb, acted.entry.game_id, acted.seq))
    return view


class Turns(commands.Cog):
    """Whose move it is: ending one's part of the turn."""

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(AnswerButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(AnswerButton)

    @app_commands.command(name="done", description="End your part of the turn; the game passes to whoever acts next")
    @app_commands.describe(dice="Manual dice for a roll the next step starts with (an initiative roll), in order")
    @app_commands.guild_only()
    async def done(self, interaction: Interaction, dice: str | None = None) -> None:
        acted = await interaction.client.referee.act(
            interaction.channel_id, actor_of(interaction), lambda game: done_order(game, interaction),
            dice=parse_dice(dice), command="/done", interaction_id=interaction.id)
        order = acted.entry.order
        if order.get("answer") != "ask":
            await reply_outcome(interaction, acted)
            return
        await reply_outcome(interaction, acted, view=answer_view(acted))
        holder = side_to_act(acted.game)
        players = side_players(acted.game, holder)
        if players and not acted.replayed:
            await interaction.followup.send(
                content=f"{' '.join(f'<@{p}>' for p in players)}: {acted.outcome.headline.split(', ', 1)[-1]}",
                allowed_mentions=only_these(players))


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(Turns(bot))
