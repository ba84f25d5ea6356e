"""/undo: revert the newest action, by consent; and the pacing reminders of slow games.

/undo posts a proposal with Accept and Refuse buttons. It takes effect only when a player of
the other side (or the game master) accepts before it expires; the proposer may withdraw it.
The buttons are dynamic items whose custom_id carries the proposal's id (``undo:accept:12``),
and the proposal lives in the database: a button still works after the bot restarts.
An accepted undo appends a reverting entry restoring the state before the undone one; the
undone entry and its dice stay in the log, marked; giving the order again rolls new dice, and the log
marks that order as given again. Under the game option undo_rolls=never an order that rolled is not
undone at all (the game master corrects it with /unit edit corrects:).
"""

from __future__ import annotations

import logging
import re

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.client import Interaction, RefereeClient
from bot.core.errors import RulesError
from bot.limits import Guarded
from bot.render import error_embed, proposal_embed
from bot.replies import ALREADY_ACKNOWLEDGED, defer_thinking, reply_outcome, send_ephemeral, send_answer
from cogs._common import actor_of

log = logging.getLogger(__name__)

EXPIRY_CHECK_MINUTES = 1  # how often proposals past their expiry get their buttons taken off
class UndoButton(Guarded, discord.ui.DynamicItem[discord.ui.Button],
                 template=r"undo:(?P<verb>accept|refuse):(?P<request>[0-9]{1,18})"):
    """Accept or Refuse on a proposal; rebuilt from its custom_id on every click, restarts included."""

    def __init__(self, verb: str, request_id: int):
        style = discord.ButtonStyle.success if verb == "accept" else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=verb.capitalize(), style=style, custom_id=f"undo:{verb}:{request_id}"))
        self.verb, self.request_id = verb, request_id

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> UndoButton:
        return cls(match["verb"], int(match["request"]))

    async def callback(self, interaction: Interaction) -> None:
        referee = interaction.client.referee
        try:
            answer = await referee.answer_undo(self.request_id, actor_of(interaction), accept=self.verb == "accept",
                                               interaction_id=interaction.id)
        except RulesError as exc:  # components bypass the tree's error handler: refuse here, privately
            await send_ephemeral(interaction, embed=error_embed(exc.message, exc.rule))
            return
        except Exception:
            log.exception("unexpected error answering undo proposal %s", self.request_id)
            await send_ephemeral(interaction, content=("Something went wrong on our side; nothing was changed "
                                                       f"(reference: {interaction.id})"))
            return
        if answer.acted is not None and answer.acted.replayed:
            return  # a re-delivered click: it was answered the first time, from this very entry
        proposal = await referee.undo_proposal(self.request_id)
        await interaction.response.edit_message(embed=proposal_embed(proposal, answer), view=None)
        if answer.acted is not None:
            await reply_outcome(interaction, answer.acted)


def proposal_view(request_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(UndoButton("accept", request_id))
    view.add_item(UndoButton("refuse", request_id))
    return view


class UndoCog(commands.Cog):
    def __init__(self, bot: RefereeClient):
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(UndoButton)
        self.expire_proposals.start()

    async def cog_unload(self) -> None:
        self.expire_proposals.cancel()
        self.bot.remove_dynamic_items(UndoButton)

    # heavy (bot/limits.py): preparing a proposal replays the game to the entry before
    @app_commands.command(name="undo", description="Propose to undo the newest action; the other side must accept",
                          extras={"heavy": True})
    @app_commands.guild_only()
    async def undo(self, interaction: Interaction) -> None:
        # a long game takes a while to replay: "thinking..." once the work goes to a worker process
        proposal = await interaction.client.referee.propose_undo(
            interaction.channel_id, actor_of(interaction), interaction_id=interaction.id,
            on_long=lambda: defer_thinking(interaction))
        embed, view = proposal_embed(proposal), proposal_view(proposal.request.id)
        if interaction.response.is_done():
            message_id: int | None = (await send_answer(interaction, embed=embed, view=view)).id
        else:
            try:
                message_id = (await interaction.response.send_message(embed=embed, view=view)).message_id
            except discord.HTTPException as exc:
                if not (proposal.replayed and exc.code == ALREADY_ACKNOWLEDGED):
                    raise
                return  # a re-delivered /undo, answered the first time with this same proposal
        if message_id is not None:
            await interaction.client.referee.note_undo_message(proposal.request.id, interaction.channel_id, message_id)

    @tasks.loop(minutes=EXPIRY_CHECK_MINUTES)
    async def expire_proposals(self) -> None:
        """Take the buttons off proposals that expired unanswered (a click would say so too)."""
        try:
            for proposal, answer in await self.bot.referee.expire_undos():
                request = answer.request
                if request.channel_id is None or request.message_id is None:
                    continue
                message = self.bot.get_partial_messageable(request.channel_id).get_partial_message(request.message_id)
                try:
                    await message.edit(embed=proposal_embed(proposal, answer), view=None)
                except discord.HTTPException:
                    log.warning("could not mark undo proposal %s expired", request.id, exc_info=True)
        except Exception:  # one bad pass must not end the loop
            log.exception("the undo expiry check failed")

    @expire_proposals.before_loop
    async def _ready(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(UndoCog(bot))
