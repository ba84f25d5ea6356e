"""Pacing for slow games: whose move it is, said to the people who must make it.

Three things, and the only places the bot ever notifies anyone:

* the hand-off: when an action passes the turn to the other side (the active side changes),
  the reply ends with one short line mentioning that side's players (with its Done button);
* the reminder: a game started with the option ``remind_after_hours=N`` gets one line for the
  side to act (or to answer a reaction window) after N hours without a log entry (one per
  silence, not one per check);
* the reaction window's time limit: with the option ``reactions=hours=N``, a window left
  unanswered N hours is closed as no fire by the referee (a logged order), and the side that
  waited is told to go on (bot/core/reactions.py).

The bot sends with ``AllowedMentions.none()``; these two messages allow exactly the user ids
they name, so a side name like "@everyone" can never ping anyone else.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import discord
from discord.ext import tasks

from bot.core.game import Game
from bot.core.reactions import timeout_hours, waits_for
from bot.core.sequence import side_to_act
from bot.render import reminder_hours, reminder_line
from bot.replies import only_these, post_saved_result, side_players
from bot.service import Actor

log = logging.getLogger(__name__)

CHECK_EVERY_MINUTES = 10  # how often the reminder loop looks for silent games


class Pacer:
    """Looks for silent games and reminds the side to act. ``check`` does one pass (tests call
    it with their own clock); ``start`` runs it every CHECK_EVERY_MINUTES in the background."""

    def __init__(self, bot: Any, *, clock: Callable[[], datetime] | None = None):
        self.bot = bot
        self._clock = clock
        self._loop = tasks.loop(minutes=CHECK_EVERY_MINUTES)(self._tick)
        self._loop.before_loop(self._ready)

    def now(self) -> datetime:
        if self._clock is not None:
            return self._clock()
        return self.bot.referee.clock()  # the same clock as the log's times

    async def check(self) -> list[int]:
        """Send the reminders that are due and close the reaction windows whose time is up; returns
        the channels reminded or whose window was closed."""
        store = self.bot.store
        if store is None:
            return []
        now = self.now()
        reminded = []
        settings = getattr(self.bot, "settings", None)
        for quiet in await store.quiet_games(due_by=now.isoformat(timespec="milliseconds")):
            stored = quiet.game
            if settings is not None and not settings.serves_guild(stored.guild_id):
                continue  # another shard's server: its process reminds it
            limit = timeout_hours(stored.game)
            if limit is not None:  # a reaction window with a time limit: closed once it is up, never reminded
                if now - datetime.fromisoformat(quiet.last_time) >= timedelta(hours=limit):
                    if await self._close_window(stored.channel_id, stored.last_seq, limit):
                        reminded.append(stored.channel_id)
                continue
            hours = reminder_hours(stored.game)
            if hours is None or quiet.reminded_seq == stored.last_seq:
                continue  # no valid option, or this silence was already reminded
            silent_for = now - datetime.fromisoformat(quiet.last_time)
            if silent_for < timedelta(hours=hours):
                continue
            # claimed before it is sent: of several processes (or passes) only one sends it
            if not await store.claim_reminder(stored.id, stored.last_seq, now.isoformat(timespec="milliseconds")):
                continue
            line = reminder_line(stored.game, silent_for)
            if line is not None:
                try:
                    waits = waits_for(stored.game)
                    side = side_to_act(stored.game) if waits is None else waits
                    await self.bot.get_partial_messageable(stored.channel_id).send(
                        content=line, allowed_mentions=only_these(side_players(stored.game, side)))
                    reminded.append(stored.channel_id)
                except discord.HTTPException:
                    # the channel is gone or closed to the bot: note it and do not retry every pass
                    log.warning("could not remind channel %s", stored.channel_id, exc_info=True)
        return reminded

    async def _close_window(self, channel_id: int, seq: int, hours: float) -> bool:
        """Close a reaction window whose time is up (a logged order by the bot itself), and post the
        result; False when the game moved on meanwhile (another process, or a late answer, did)."""
        me = getattr(self.bot, "user", None)
        actor = Actor(user_id=me.id if me is not None else 0, is_manager=True, name="the referee")
        acted = await self.bot.referee.close_reaction(channel_id, seq, actor)
        if acted is None:
            return False
        await post_saved_result(self.bot, channel_id, acted,
                                why=f"No answer in {hours:g} hours: the window closes as no fire "
                                    f"(game option reactions=hours={hours:g})")
        return True

    async def _ready(self) -> None:
        await self.bot.wait_until_ready()  # channels are known, and the store is open

    async def _tick(self) -> None:
        try:
            await self.check()
        except Exception:  # one bad pass must not end the loop for every other game
            log.exception("the pacing check failed")

    def start(self) -> None:
        if not self._loop.is_running():
            self._loop.start()

    def stop(self) -> None:
        self._loop.cancel()
