"""How the bot answers an interaction: what every cog and the app shell share to reply.

The one place that sends: a result (its embeds over as many messages as Discord's limits need,
then the hand-off mention when the turn passed), a list of embeds, a private refusal. The
layout itself is ``bot.render``'s; this module only decides what goes in which message. Cogs
import it without importing the app shell.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.core.game import Game
from bot.render import digest_embed, hand_off_line, message_groups, outcome_embed

log = logging.getLogger(__name__)

ALREADY_ACKNOWLEDGED = 40060  # Discord's error code for a second answer to one interaction


def side_players(game: Game, side: int) -> list[int]:
    return list(game.sides[side].players) if 0 <= side < len(game.sides) else []


def only_these(users: list[int]) -> discord.AllowedMentions:
    """Allow mentions of exactly these users: no roles, no @everyone, no reply ping."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(id=user) for user in users])


async def send_ephemeral(interaction: discord.Interaction, *, content: str | None = None,
                         embed: discord.Embed | None = None) -> None:
    """Answer privately, as the response when none was sent yet, else as a followup."""
    kwargs: dict[str, Any] = {"ephemeral": True, "allowed_mentions": discord.AllowedMentions.none()}
    if content is not None:
        kwargs["content"] = content
    if embed is not None:
        kwargs["embed"] = embed
    try:
        if interaction.response.is_done():
            await interaction.followup.send(**kwargs)
        else:
            await interaction.response.send_message(**kwargs)
    except discord.HTTPException:
        # the interaction expired (15 min) or Discord is unreachable: nothing left to tell
        log.warning("could not send the error reply", exc_info=True)


async def send_embeds(interaction: discord.Interaction, embeds: list[discord.Embed], *, ephemeral: bool) -> None:
    """Send embeds already laid out within Discord's limits: the first message as the response,
    the rest as followups (at most 10 embeds and 6,000 characters per message)."""
    for i, group in enumerate(message_groups(embeds)):
        if i == 0 and not interaction.response.is_done():
            await interaction.response.send_message(embeds=group, ephemeral=ephemeral)
        else:
            await interaction.followup.send(embeds=group, ephemeral=ephemeral)


async def reply_outcome(interaction: discord.Interaction, acted: Any, *, ephemeral: bool = False,
                        view: discord.ui.View | None = None) -> None:
    """Render an action's outcome and send it: the first message as the response, the rest as
    followups. ``acted`` is what ``Referee.act`` returns (its outcome, game and log seq).
    ``view`` (buttons, e.g. /fire's "Odds") goes on the first message, the one with the headline."""
    embeds = outcome_embed(acted.outcome, acted.game, entry_seq=acted.seq)
    for i, group in enumerate(message_groups(embeds)):
        if i == 0 and not interaction.response.is_done():
            try:
                await interaction.response.send_message(embeds=group, ephemeral=ephemeral,
                                                        **({"view": view} if view is not None else {}))
            except discord.HTTPException as exc:
                if getattr(acted, "replayed", False) and exc.code == ALREADY_ACKNOWLEDGED:
                    return  # a re-delivered interaction: the recorded answer was given the first time
                raise
        else:
            await interaction.followup.send(embeds=group, ephemeral=ephemeral)
    if not ephemeral and getattr(acted, "hand_off", None) is not None:
        await send_hand_off(interaction, acted)


async def send_hand_off(interaction: discord.Interaction, acted: Any) -> None:
    """After a reply that passed the game to another side: mention exactly that side's players, with
    a digest of what happened since they last acted (one embed)."""
    game, side = acted.game, acted.hand_off
    line = hand_off_line(game, side)
    if line is None:
        return
    referee = getattr(interaction.client, "referee", None)
    since = await referee.since_last_acted(acted.entry, game, side) if referee is not None else []
    extra = {"embed": digest_embed(since, game)} if since else {}
    await interaction.followup.send(content=line, allowed_mentions=only_these(side_players(game, side)), **extra)
