"""/away: a player going away says so once, for every game they play in, on every server.

``/away until date:2026-12-05`` (a date, away to the end of that day, UTC; or a number of days) and
an optional reason; ``/away end`` when back early. While every player of a side is away, that
side's deadlines, reminders and reaction time limits wait (bot/pacing.py), and /game status, the hand-off mention and
/games say "away until ..."; a side with one player back counts its clock from his return. Kept per
user by the store (its away table), answered privately.
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone

from discord import app_commands
from discord.ext import commands

from bot.client import Interaction, RefereeClient
from bot.core.errors import InvalidOrder
from bot.render import away_words
from bot.replies import send_ephemeral


def away_until(text: str, now: datetime) -> datetime:
    """When an away typed as a date (2026-12-05: to the end of that day, UTC) or a number of days ends."""
    typed = text.strip()
    if re.fullmatch(r"[0-9]{1,4}", typed):
        days = int(typed)
        if days < 1:
            raise InvalidOrder("an away lasts a day at least: give a number of days from 1, or a date", field="date")
        return now + timedelta(days=days)
    try:
        day = datetime.strptime(typed, "%Y-%m-%d").date()
    except ValueError:
        raise InvalidOrder(f"'{typed[:30]}' is neither a date such as {now + timedelta(days=7):%Y-%m-%d} nor a "
                           "number of days", field="date") from None
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=timezone.utc)


class Away(commands.Cog):
    """A player away from all their games."""

    away = app_commands.Group(name="away", description="Say you are away: your games' deadlines and reminders wait "
                                                       "for you")

    def __init__(self, bot: RefereeClient):
        self.bot = bot

    @away.command(name="until", description="Away until a date (or for some days), in every game you play")
    @app_commands.describe(date="A date such as 2026-12-05 (to the end of that day, UTC), or a number of days",
                           reason="Why, for the other players (optional, shown in /game status)")
    async def until(self, interaction: Interaction, date: app_commands.Range[str, 1, 20],
                    reason: app_commands.Range[str, 1, 200] | None = None) -> None:
        referee = interaction.client.referee
        away = await referee.set_away(interaction.user.id, away_until(date, referee.clock()), reason or "")
        games = await referee.player_games(interaction.user.id)
        await send_ephemeral(interaction, content=(
            f"You are {away_words(away)}, in your {len(games)} game{'s' if len(games) != 1 else ''}: the deadlines "
            "and reminders of a side whose every player is away wait, and /game status, the hand-offs and /games "
            "say so. Back early? /away end"))

    @away.command(name="end", description="You are back: your games' deadlines and reminders run again")
    async def end(self, interaction: Interaction) -> None:
        await interaction.client.referee.end_away(interaction.user.id)
        await send_ephemeral(interaction, content="Welcome back: your away has ended, and your sides' clocks count "
                                                  "from now")


async def setup(bot: RefereeClient) -> None:
    await bot.add_cog(Away(bot))
