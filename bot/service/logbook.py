"""The record as players read it: the channel's game and what changed lately, a page of the log, the
map's entries, one entry and the odds it had, the export and the verification (read without the
channel's lock: entries never change once written), and what was saved but never shown."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.core.api import order_model
from bot.core.errors import InvalidOrder
from bot.core.game import Game
from bot.record import LogEntry
from bot.record.replay import given_again
from bot.service.basics import Acted, NotAllowed, OnLong
from bot.service.desk import Desk
from bot.service.jobs import export_record, odds_before, replay_cost, verify_log
from bot.service.replays import Replays
from bot.service.results import Battlefield, LogPage, Odds, VerifyReport
from bot.shards import Shards
from bot.store import StoredGame
from bot.work import Pickled

MAX_PER_PAGE = 50
MAP_LOOK_BACK = 50  # entries read back for the latest fire the map draws
ENTRY_ODDS_CACHED = 64  # answers of the "Odds" button kept, so pressing it again replays nothing


class Logbook:
    def __init__(self, desk: Desk, replays: Replays) -> None:
        self.desk = desk
        self.replays = replays
        self.odds_cache: dict[tuple[int, int], Odds] = {}  # (game id, seq) -> odds before that entry

    # --- the channel's game ---

    async def game(self, channel_id: int) -> Game:
        return (await self.desk.active(channel_id)).game

    async def active(self, channel_id: int) -> StoredGame:
        """The channel's active game as stored: its id and its Game in one read of the database
        (``game`` and ``game_id`` one after the other are two: /game status, the busiest command)."""
        return await self.desk.active(channel_id)

    async def game_id(self, channel_id: int) -> int:
        """The id of the channel's active game (buttons name it, so an old game's button says so)."""
        return (await self.desk.active(channel_id)).id

    async def status(self, channel_id: int, recent: int = 3) -> tuple[StoredGame, list[LogEntry], frozenset[int]]:
        """The channel's active game, its newest ``recent`` log entries and which of them are undone
        (/game status: what changed lately)."""
        stored = await self.desk.active(channel_id)
        entries, undone = await self._newest(stored, recent)
        return stored, entries, undone

    async def _newest(self, stored: StoredGame, count: int) -> tuple[list[LogEntry], frozenset[int]]:
        """The game's newest ``count`` entries, and which of them are undone."""
        after = max(0, stored.last_seq - count)
        entries = await self.desk.store.entries(stored.id, after_seq=after, limit=count)
        return entries, frozenset(await self.desk.store.undone(stored.id, after_seq=after))

    # --- what was saved, and shown ---

    async def rolled(self, interaction_id: int) -> bool | None:
        """Whether this interaction's order is in the log with dice (None: it is not logged), for
        the roll limit after each rolling command: an entry this process just saved is answered
        without reading the store (issue 14: two trips to the database thread a command fewer)."""
        rolled = self.desk.saved_by_interaction.get(interaction_id)
        if rolled is not None:
            return rolled
        entry = await self.desk.store.entry_by_interaction(interaction_id)
        return None if entry is None else bool(entry.dice)

    async def shown(self, acted: Acted) -> None:
        """``acted``'s result reached its channel (the reply, or the channel post standing in)."""
        await self.desk.store.entry_shown(acted.entry.game_id, acted.entry.seq)

    async def unshown(self, limit: int = 100, *, before: datetime | None = None,
                      shards: Shards | None = None) -> list[tuple[int, Acted]]:
        """(channel, result) of what was saved but never seen: the bot died between the save and
        the reply, or Discord refused the reply and the channel post failed too. ``before``: only
        entries logged before then (a process starting asks for what was saved before it started:
        a command it answers meanwhile is its own to show); ``shards``: only the games of the
        servers this process serves (another process shows its own). Both filter in the store's query."""
        found = []
        for channel_id, entry in await self.desk.store.unshown_entries(limit, before=before, shards=shards):
            stored = await self.desk.store.load_game(entry.game_id)
            assert stored is not None  # entries reference their game (foreign key)
            found.append((channel_id, Acted(entry.outcome_model(), stored.game, entry, replayed=True)))
        return found

    # --- the log ---

    async def log(self, channel_id: int, page: int | None = None, per_page: int = 10) -> LogPage:
        """One page of the channel's game log (the active game, else the last ended one).
        Pages count from the start; ``page=None`` is the last page, the newest entries."""
        if not 1 <= per_page <= MAX_PER_PAGE:
            raise InvalidOrder(f"a log page shows 1 to {MAX_PER_PAGE} entries", field="per_page")
        stored = await self.desk.latest(channel_id)
        pages = max(1, math.ceil(stored.last_seq / per_page))
        page = pages if page is None else page
        if not 1 <= page <= pages:
            raise InvalidOrder(f"the log has {pages} page{'s' if pages != 1 else ''}; there is no page {page}",
                               field="page")
        entries = await self.desk.store.entries(stored.id, after_seq=(page - 1) * per_page, limit=per_page)
        # from the entry before the page: an undo just before its first entry marks that one given again
        undone = await self.desk.store.undone(stored.id, after_seq=max(0, (page - 1) * per_page - 1))
        regiven = await self._regiven(stored.id, entries, undone)
        return LogPage(game_id=stored.id, status=stored.status, entries=entries, page=page, pages=pages,
                       total=stored.last_seq, undone=undone, regiven=regiven)

    async def _regiven(self, game_id: int, entries: list[LogEntry], undone: dict[int, int]) -> dict[int, int]:
        """The entries among ``entries`` that give an undone order again (``given_again``), each with
        the seq of the entry it gives again (read from the log when not among them)."""
        known = {e.seq: (e.order.get("action"), e.outcome.get("actor_side")) for e in entries}
        for target, undo in undone.items():
            if undo + 1 in known and target not in known:
                found = await self.desk.store.entries(game_id, after_seq=target - 1, limit=1)
                if found:
                    known[target] = (found[0].order.get("action"), found[0].outcome.get("actor_side"))
        regiven = {}
        for entry in entries:
            action, side = known[entry.seq]
            target = given_again(undone, entry.seq, action, side, known.get)
            if target is not None:
                regiven[entry.seq] = target
        return regiven

    async def battlefield(self, channel_id: int) -> Battlefield:
        """The channel's game (the active one, else the last ended) and its newest MAP_LOOK_BACK
        entries, for the map (bot/maps.py; the latest fire is searched among these)."""
        stored = await self.desk.latest(channel_id)
        entries, undone = await self._newest(stored, MAP_LOOK_BACK)
        return Battlefield(stored.id, stored.game, stored.head_hash,
                           [{"seq": e.seq, "order": e.order, "outcome": {"actor_side": e.outcome.get("actor_side")}}
                            for e in entries], undone)

    async def entry(self, game_id: int, seq: int) -> LogEntry:
        """One entry of a game's log, as logged (the Details button of a result)."""
        return await self.desk.entry(game_id, seq)

    async def entry_odds(self, game_id: int, seq: int, on_long: OnLong = None) -> Odds:
        """The exact odds a logged action had before it was rolled (the "Odds" button on a
        result). Only the newest state is stored, so the state before entry ``seq`` is rebuilt by
        replaying the log up to ``seq - 1`` (in a worker process when long) and checked against
        the state hash that entry recorded; answers are cached (entries never change: the log is
        append-only)."""
        key = (game_id, seq)
        if (known := self.odds_cache.get(key)) is not None:
            return known
        entry = await self.desk.entry(game_id, seq)
        model = order_model(entry.outcome.get("ruleset", ""), entry.order.get("action"))
        if model is None or not model.previewable:
            raise NotAllowed(f"entry #{seq} ({entry.command}) is not an attack or a check: it has no odds")
        found = await self.replays.replayed(
            odds_before, game_id, seq - 1, entry, game=None, on_long=on_long,
            what=lambda count: f"working out the odds of entry #{seq} (a replay of the {count:,} entries before it)",
            instead="ask for the odds of a newer entry, or export the log (/log export format:JSON) and "
                    "replay it on your own computer with python -m bot rules replay")
        self.odds_cache[key] = found
        while len(self.odds_cache) > ENTRY_ODDS_CACHED:
            self.odds_cache.pop(next(iter(self.odds_cache)))  # the oldest answer goes first
        return found

    # --- the whole log: exports, verification ---

    async def export(self, channel_id: int) -> dict[str, Any]:
        """The whole log as JSON (``python -m bot rules replay`` reads it)."""
        stored, entries = await self.log_snapshot(channel_id)
        return export_record(stored, entries)

    async def log_snapshot(self, channel_id: int, each: Callable[[int, dict], None] | None = None, *,
                           on_long: OnLong = None, steps_per_entry: float = 0,
                           ) -> tuple[StoredGame, Pickled[LogEntry]]:
        """The channel's game (the active one, else the last ended) and its entries up to the newest
        seen at the start, read in batches without the channel's lock: what long work (exports,
        statistics) computes from, in a worker (``run_long``). ``each(actor, order)`` sees every
        entry as it is read (a quick look on the loop: the people an export names); ``on_long`` is awaited first
        when the work, ``steps_per_entry`` per entry, will be long."""
        stored = await self.desk.latest(channel_id)
        await self.replays.before_long(stored.last_seq * steps_per_entry, on_long)
        return stored, await self.replays.snapshot(stored.id, stored.last_seq, each)

    async def verify(self, channel_id: int, on_long: OnLong = None) -> VerifyReport:
        """Recompute the hash chain and replay the game from entry 1; name the first entry that
        does not match (changed, or missing). It reads the log up to the newest entry seen at the
        start and replays it outside the channel's lock (in a worker process when long): the
        channel's players go on meanwhile."""
        stored, entries = await self.log_snapshot(channel_id)
        return await self.desk.worker.run(
            verify_log, entries, stored, cost=replay_cost(len(entries), stored.game), on_long=on_long,
            what=f"verifying this game's {len(entries):,} log entries with {len(stored.game.units)} units",
            instead="export the log (/log export format:JSON) and check it on your own computer with "
                    "python -m bot rules replay")
