"""The players across their games: the games a user plays in (/games), a player away (/away), who
chose notifications by DM (/notify), and the digest of what a side missed, sent when the game
passes to it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from bot.core import deadlines
from bot.core.errors import InvalidOrder
from bot.core.game import Game
from bot.record import LogEntry
from bot.service.basics import NotAllowed, away_spans, log_time, players_of
from bot.service.desk import Desk
from bot.service.results import SeatedGame
from bot.store import Away

AWAY_MOST_DAYS = 90  # how far ahead an away (/away) may end
AWAY_REASON_MAX = 200  # characters of an away's reason
DIGEST_LOOK_BACK = 200  # entries read back to find a side's last one, for the hand-off digest
DIGEST_MOST = 15  # entries a digest shows at most (the newest)


class Players:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    async def player_games(self, user_id: int, *, mine: bool = False) -> list[SeatedGame]:
        """Every active game ``user_id`` plays in, on every server (the store's seats index, never a
        scan), oldest newest entry first; ``mine``: only those waiting for them (the side to act, or
        the side answering a reaction window). Each with its deadline, and whether the side it waits
        for is away (one read of the away table for every game's waited players)."""
        held_games = await self.desk.store.player_games(user_id)
        waited = {held.game.id: deadlines.waited_side(held.game.game) for held in held_games}
        players = {p for held in held_games for p in players_of(held.game.game, waited[held.game.id])}
        away = await self.desk.store.aways(players)
        now = self.desk.clock()
        found = []
        for held in held_games:
            game = held.game.game
            side = waited[held.game.id]
            theirs = 0 <= side < len(game.sides) and user_id in game.sides[side].players
            if theirs or not mine:
                start = deadlines.clock_start(game, datetime.fromisoformat(held.last_time), away_spans(away), now)
                until = None
                if start is None:  # the whole side is away: back when the first of them is
                    until = min(away[p].until for p in players_of(game, side))
                found.append(SeatedGame(held.game.id, held.game.channel_id, held.game.guild_id, game,
                                        held.last_time, side, theirs, away_until=until,
                                        deadline=None if start is None else deadlines.due(game, start)))
        return found

    async def since_last_acted(self, entry: LogEntry, game: Game, side: int, *,
                               most: int = DIGEST_MOST) -> list[LogEntry]:
        """The entries a side has not seen itself act among, before ``entry`` (the hand-off, shown
        just above): those after its players' last entry (at most ``most``, the newest), for the
        digest sent when the game passes to it."""
        players = set(players_of(game, side))
        recent = await self.desk.store.entries(entry.game_id, after_seq=max(0, entry.seq - DIGEST_LOOK_BACK),
                                               limit=DIGEST_LOOK_BACK)
        since: list[LogEntry] = []
        for logged in reversed(recent):
            if logged.seq >= entry.seq:
                continue
            if logged.actor in players:
                break
            since.append(logged)
        return list(reversed(since))[-most:]

    # --- players away (/away) ---

    async def set_away(self, user_id: int, until: datetime, reason: str = "") -> Away:
        """The player is away until ``until`` (in every game: bot/pacing.py stops the clock of a side
        whose every player is away); refused in the past or more than AWAY_MOST_DAYS ahead."""
        now = self.desk.clock()
        if until <= now:
            raise InvalidOrder(f"{until:%Y-%m-%d} is in the past: give a date to come (e.g. "
                               f"{now + timedelta(days=7):%Y-%m-%d}) or a number of days", field="until")
        if until - now > timedelta(days=AWAY_MOST_DAYS, hours=24):
            raise InvalidOrder(f"an away lasts {AWAY_MOST_DAYS} days at most (until "
                               f"{now + timedelta(days=AWAY_MOST_DAYS):%Y-%m-%d}): the game master can pause a "
                               "game, or seat a substitute (/game replace)", field="until")
        if len(reason) > AWAY_REASON_MAX:
            raise InvalidOrder(f"a reason is {AWAY_REASON_MAX} characters at most", field="reason")
        away = Away(user_id, log_time(now), log_time(until), reason)
        await self.desk.store.set_away(away)
        return away

    async def end_away(self, user_id: int) -> Away:
        """The player is back before the away's end: it ends now (the clocks count from now)."""
        now = self.desk.now()
        away = (await self.desk.store.aways([user_id])).get(user_id)
        if away is None or not away.at(now):
            raise NotAllowed("you are not away: /away until sets an away")
        ended = Away(user_id, away.since, now, away.reason)
        await self.desk.store.set_away(ended)
        return ended

    async def away_now(self, user_ids: Iterable[int]) -> dict[int, Away]:
        """Those of these users away now, with their away."""
        now = self.desk.now()
        return {user: away for user, away in (await self.desk.store.aways(user_ids)).items() if away.at(now)}

    async def aways(self, user_ids: Iterable[int]) -> dict[int, Away]:
        """The latest away of each of these users (ended ones too)."""
        return await self.desk.store.aways(user_ids)

    # --- notifications (/notify) ---

    async def set_notify(self, user_id: int, dm: bool) -> None:
        """The user's choice of notifications by DM (/notify dm:), on every server."""
        await self.desk.store.set_notify(user_id, dm)

    async def dm_users(self, user_ids: Iterable[int]) -> set[int]:
        """Those of these users who chose notifications by DM."""
        return await self.desk.store.dm_users(user_ids)
