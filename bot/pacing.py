"""Pacing for slow games: whose move it is, said to the people who must make it.

Three things, and the only places the bot ever notifies anyone:

* the hand-off: when an action passes the turn to the other side (the active side changes),
  the reply ends with one short line mentioning that side's players (with its Done button);
* the reminder: a game started with the option ``remind_after_hours=N`` gets one line for the
  side to act (or to answer a reaction window) after N hours without a log entry (one per
  silence, not one per check);
* the reaction window's time limit: with the option ``reactions=hours=N``, a window left
  unanswered N hours is closed as no fire by the referee (a logged order), and the side that
  waited is told to go on (bot/core/reactions.py);
* the deadline: with the option ``deadline_hours=N``, the side the game waits for is reminded at
  half time, and at the deadline its step ends with its default (no fire, or its /done: a logged
  order by the referee, given only while the game's newest entry is the one the deadline counted
  from, so once across processes), the late side told (bot/core/deadlines.py). A paused game has
  none of these.

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

from bot.core import deadlines
from bot.core.errors import RulesError
from bot.core.game import Game
from bot.core.reactions import timeout_hours, waits_for
from bot.core.sequence import side_to_act
from bot.render import deadline_stuck_line, deadline_told_line, deadline_why, reminder_hours, reminder_line
from bot.replies import notify_by_dm, only_these, post_saved_result, side_players
from bot.service import Actor, away_spans

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
        """Send the reminders that are due, close the reaction windows whose time is up and end the
        steps whose deadline passed; returns the channels reminded or whose game was moved on."""
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
            if stored.game.paused:
                continue  # the game master stopped its clock (its next entry is due for nothing)
            limit = timeout_hours(stored.game)
            if limit is not None:  # a reaction window with a time limit: closed once it is up, never reminded
                since = await self._clock_start(stored.game, datetime.fromisoformat(quiet.last_time), now)
                if since is not None and now - since >= timedelta(hours=limit):
                    if await self._close_window(stored.channel_id, stored.last_seq, limit):
                        reminded.append(stored.channel_id)
                continue
            if await self._pace(stored, quiet, now):
                reminded.append(stored.channel_id)
        return reminded

    async def _pace(self, stored: Any, quiet: Any, now: datetime) -> bool:
        """One due game without a reaction time limit: its step ended at its deadline, or its side
        reminded (once per silence: at the option's hours, or at half the deadline). True when done."""
        store, game = self.bot.store, stored.game
        silent_since = datetime.fromisoformat(quiet.last_time)
        since = await self._clock_start(game, silent_since, now)
        if since is None:
            return False
        deadline = deadlines.due(game, since)
        if deadline is not None and now >= deadline:
            return await self._end_step(stored, now)
        hours = reminder_hours(game)
        half = deadlines.half_time(game, since)
        remind_at = min([t for t in (since + timedelta(hours=hours) if hours is not None else None, half)
                         if t is not None], default=None)
        if remind_at is None or quiet.reminded_seq == stored.last_seq or now < remind_at:
            return False
        # claimed before it is sent: of several processes (or passes) only one sends it; a game with a
        # deadline is due again at it
        then_due = deadline.isoformat(timespec="milliseconds") if deadline is not None else None
        if not await store.claim_reminder(stored.id, stored.last_seq, now.isoformat(timespec="milliseconds"),
                                          then_due=then_due):
            return False
        line = reminder_line(game, now - silent_since, deadline=deadline)
        if line is None:
            return False
        players = side_players(game, deadlines.waited_side(game))
        try:
            await self.bot.get_partial_messageable(stored.channel_id).send(
                content=line, allowed_mentions=only_these(players))
        except discord.HTTPException:
            # the channel is gone or closed to the bot: note it and do not retry every pass
            log.warning("could not remind channel %s", stored.channel_id, exc_info=True)
            return False
        await notify_by_dm(self.bot, stored.channel_id, stored.guild_id, players, line)  # /notify dm:yes
        return True

    async def _clock_start(self, game: Game, silent_since: datetime, now: datetime) -> datetime | None:
        """When the clock of the side the game waits for started: its newest entry, or the return of its
        first player back from an away (/away); None while every player of the side is away."""
        away = await self.bot.store.aways(side_players(game, deadlines.waited_side(game)))
        return deadlines.clock_start(game, silent_since, away_spans(away), now)

    async def _end_step(self, stored: Any, now: datetime) -> bool:
        """The deadline passed: the step ends with its default, a logged order by the bot itself, given
        only while the game's newest entry is still the one the deadline counted from (exactly once
        across processes, as a window's time limit). The result is posted, and the late side told."""
        game, channel = stored.game, self.bot.get_partial_messageable(stored.channel_id)
        late = deadlines.waited_side(game)
        hours = deadlines.limit(game) or 0
        me = getattr(self.bot, "user", None)
        actor = Actor(user_id=me.id if me is not None else 0, is_manager=True, name="the referee")
        acted = await self.bot.referee.end_by_deadline(stored.channel_id, stored.last_seq, actor)
        if acted is None:
            return False
        players = side_players(game, late)
        if isinstance(acted, RulesError):
            # the rules do not let this step end by itself: said once (claimed before it is sent, as the
            # step's end is claimed by its entry: of several processes or passes only one says it), and
            # left to the game master
            if not await self.bot.store.claim_deadline_notice(stored.id, stored.last_seq,
                                                              now.isoformat(timespec="milliseconds")):
                return False
            try:
                await channel.send(content=deadline_stuck_line(game, hours, acted.message),
                                   allowed_mentions=only_these(players))
            except discord.HTTPException:
                log.warning("could not tell channel %s of its deadline", stored.channel_id, exc_info=True)
            return False
        await post_saved_result(self.bot, stored.channel_id, acted,
                                why=deadline_why(game, hours, acted.outcome.headline))
        told = deadline_told_line(game, hours)
        if told is not None:
            try:
                await channel.send(content=told, allowed_mentions=only_these(players))
            except discord.HTTPException:
                log.warning("could not tell channel %s of its deadline", stored.channel_id, exc_info=True)
        return True

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
