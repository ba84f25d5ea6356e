"""/seal and /reveal: hidden orders committed now and opened later (bot/record/sealing.py).

The channel sees who sealed, when (the log entry) and the commitment, never the text; the sealer
gets a private copy with the nonce, so they can check the reveal themselves. /reveal puts the text
in the log and the bot checks it against the commitment, as every later /log verify does.
"""

from __future__ import annotations

import json

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.commands import parse_dice
from bot.core.errors import InvalidOrder
from bot.core.game import Game
from bot.record.sealing import roll_words, rolled
from bot.render import safe
from bot.replies import reply_outcome
from cogs._common import act_and_reply, actor_of, reply_sealed, side_autocomplete, side_index


ROLL_KINDS = [app_commands.Choice(name=name, value=value) for name, value in (
    ("2d6", "2d6"), ("d6", "d6"), ("d10", "d10"), ("DR: two d6, white then colored", "DR"), ("dr: one d6", "dr"))]


class SealCog(commands.Cog):
    roll = app_commands.Group(name="roll", description="Dice outside an order: public (everyone sees them now, "
                                                      "logged) or secret (only you, until revealed)", guild_only=True)

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @roll.command(name="public", description="Roll dice everyone sees, for what the referee does not rule on (a "
                                             "sniper's dr, a special rule)", extras={"rolls": True})
    @app_commands.describe(dice="The dice: d6, 2d6, 3d6, d10, 2d10 ... (d6 or d10, 1 to 12 of them)",
                           purpose="What the roll is for (logged with it, shown to everyone)",
                           rolled="Manual dice: the faces you rolled at the table, e.g. 3 5; leave out to let the "
                                  "bot roll",
                           side="Game master only: the side this roll is for (none: the game master's own)")
    @app_commands.autocomplete(side=side_autocomplete)
    async def public(self, interaction: Interaction, dice: app_commands.Range[str, 1, 12],
                     purpose: app_commands.Range[str, 1, 100], rolled: str | None = None,
                     side: str | None = None) -> None:
        try:
            manual = parse_dice(rolled)
        except InvalidOrder as exc:
            raise InvalidOrder(exc.message.replace("'dice'", "'rolled'"), field="rolled") from None
        user = interaction.user.id

        def order(game: Game) -> dict:
            mine = [i for i, s in enumerate(game.sides) if user in s.players]
            index = side_index(game, side) if side else (mine[0] if mine else None)
            return {"action": "roll", "side": index, "dice": dice, "purpose": purpose}

        try:
            await act_and_reply(interaction, order, command="/roll public", dice=manual)
        except InvalidOrder as exc:  # the manual dice's refusals name this command's option for them
            if manual is None or exc.field != "dice" or "given" not in exc.message:
                raise
            raise InvalidOrder(exc.message.replace("leave 'dice' out", "leave 'rolled' out"), field="rolled") from None

    @roll.command(name="secret", description="Roll dice only you see now (a spotting roll): shown at /reveal or "
                                             "at the game turn's end")
    @app_commands.describe(kind="The dice to roll", purpose="What the roll is for (shown to everyone)")
    @app_commands.choices(kind=ROLL_KINDS)
    async def secret(self, interaction: Interaction, kind: app_commands.Choice[str],
                     purpose: app_commands.Range[str, 1, 100]) -> None:
        sealed = await interaction.client.referee.secret_roll(interaction.channel_id, actor_of(interaction),
                                                              kind.value, purpose, interaction_id=interaction.id)
        await reply_outcome(interaction, sealed.acted)
        dice = json.loads(sealed.text)["dice"] if sealed.text else []
        await interaction.followup.send(
            content=(f"Your secret {kind.value} for {safe(purpose)} (#{sealed.acted.seq}), for you only: "
                     f"**{' + '.join(map(str, dice))} = {sum(dice)}**\nNonce: `{sealed.nonce}`; /reveal "
                     f"sealed:{sealed.acted.seq} shows it to everyone"), ephemeral=True)

    @app_commands.command(name="seal",
                          description="Seal a hidden text (a hidden set-up, a target): the channel sees only its "
                                      "commitment until /reveal")
    @app_commands.describe(text="The hidden order; only you get a copy until it is revealed",
                           side="Game master only: the side this order is sealed for")
    @app_commands.autocomplete(side=side_autocomplete)
    @app_commands.guild_only()
    async def seal(self, interaction: Interaction, text: app_commands.Range[str, 1, 1500],
                   side: str | None = None) -> None:
        referee = interaction.client.referee
        index = side_index(await referee.game(interaction.channel_id), side) if side else None
        sealed = await referee.seal(interaction.channel_id, actor_of(interaction), text, index,
                                    interaction_id=interaction.id)
        await reply_sealed(interaction, sealed)

    @app_commands.command(name="peek", description="Look privately at a sealed order or secret roll before its reveal; "
                                                   "the channel sees you looked")
    @app_commands.describe(sealed="The log entry number of the seal or the secret roll")
    @app_commands.guild_only()
    async def peek(self, interaction: Interaction, sealed: app_commands.Range[int, 1, 1_000_000]) -> None:
        seen = await interaction.client.referee.peek(interaction.channel_id, actor_of(interaction), sealed,
                                                     interaction_id=interaction.id)
        await reply_outcome(interaction, seen.acted)
        roll = rolled(seen.text) if seen.text else None
        shown = (roll_words(roll["kind"], safe(str(roll["purpose"])), roll["dice"]) if roll is not None
                 else safe(seen.text))
        await interaction.followup.send(content=f"Sealed #{sealed}, for you only:\n>>> {shown}", ephemeral=True)

    @app_commands.command(name="reveal", description="Open a sealed order: its text is posted and checked against "
                                                     "its commitment")
    @app_commands.describe(sealed="The log entry number of the seal (#N in its reply)")
    @app_commands.guild_only()
    async def reveal(self, interaction: Interaction, sealed: app_commands.Range[int, 1, 1_000_000]) -> None:
        acted = await interaction.client.referee.reveal(interaction.channel_id, actor_of(interaction), sealed,
                                                        interaction_id=interaction.id)
        await reply_outcome(interaction, acted)


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(SealCog(bot))
