"""Long work on a game's log, outside the channel's lock: the log read in batches as a snapshot, a
replay from the newest checkpoint (an undo's state before, the Odds of an old result), in a worker
process when it is more than a moment's work (bot/work.py; the jobs are bot/service/jobs.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from bot.core.game import Game
from bot.record import LogEntry
from bot.service.basics import OnLong
from bot.service.desk import Desk
from bot.service.jobs import ReplayStart, replay_cost
from bot.work import Pickled

log = logging.getLogger(__name__)
T = TypeVar("T")
READ_BATCH = 100  # entries read per trip to the database when long work reads the log: each batch is only
# copied on the loop (the worker decodes it: bot/work.py's Pickled), a fraction of a millisecond


class Replays:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    async def before_long(self, cost: float, on_long: OnLong) -> None:
        """Work of this cost goes to a worker process: say so (``on_long``: the cog defers) before
        reading what it needs, which takes a moment on a long log."""
        if on_long is not None and self.desk.worker.is_long(cost):
            await on_long()

    async def run_long(self, fn: Callable[..., Any], *args: Any, cost: float, what: str, instead: str,
                       on_long: OnLong = None) -> Any:
        """``fn(*args)`` within the time budget, in a worker process when ``cost`` is more than a
        moment's work (bot/work.py); the cogs' long work (exports, statistics) goes through here."""
        return await self.desk.worker.run(fn, *args, cost=cost, what=what, instead=instead, on_long=on_long)

    async def replayed(self, fn: Callable[..., T | None], game_id: int, upto_seq: int, *args: Any, game: Game | None,
                       what: Callable[[int], str], instead: str, on_long: OnLong) -> T:
        """``fn(start, entries, *args)`` within the time budget (in a worker process when long): a
        replay up to entry ``upto_seq`` from ``start`` (``ReplayStart``: the newest checkpoint at or
        before it, issue 14, else entry 1) through the entries after it. So an undo or an Odds press
        replays at most a checkpoint interval of entries. The checkpoint's state is hashed in the
        job, off the loop (12 ms for 300 units); a job whose checkpoint does not check out answers
        None, and the replay is done again from entry 1. ``game`` (else the checkpoint's state, else
        the stored game) sizes the work; ``what(entries)`` says what was too long."""
        store = self.desk.store
        checkpoint = await store.checkpoint_before(game_id, upto_seq)
        if checkpoint is not None and not checkpoint.reaches(upto_seq):
            checkpoint = None  # its kept stack does not reach every undo up to there
        for start in (ReplayStart(checkpoint, upto_seq), ReplayStart(None, upto_seq)):
            if game is None and start.checkpoint is not None:
                game = start.checkpoint.state
            elif game is None:
                stored = await store.load_game(game_id)
                assert stored is not None  # a checkpoint or an entry references its game
                game = stored.game
            await self.before_long(replay_cost(upto_seq - start.after, game), on_long)  # "thinking..." first
            entries = await self.snapshot(game_id, upto_seq, after_seq=start.after)
            found = await self.desk.worker.run(fn, start, entries, *args, what=what(len(entries)), instead=instead,
                                               cost=replay_cost(len(entries), game, hashed=True))
            if found is not None or start.checkpoint is None:
                return found
            log.warning("checkpoint at entry #%s of game %s does not match its entry: replaying from entry 1",
                        start.after, game_id)
        raise AssertionError("unreachable: the replay from entry 1 answers")

    async def snapshot(self, game_id: int, upto_seq: int, each: Callable[[int, dict], None] | None = None, *,
                       after_seq: int = 0) -> Pickled[LogEntry]:
        """The entries after ``after_seq`` up to ``upto_seq`` of a game, read in small batches as
        the database holds them (pickled on the loop, a copy of bytes; the worker decodes them:
        bot/work.py's ``Pickled``): a consistent snapshot without any lock, as entries never change
        once written. ``each(actor, order)`` sees every entry's actor and order."""
        found: Pickled[LogEntry] = Pickled()
        after = after_seq
        while after < upto_seq:
            batch = await self.desk.store.entry_rows(game_id, after_seq=after,
                                                     limit=min(READ_BATCH, upto_seq - after))
            found.add(batch.rows, batch.decode)
            for row in batch.rows if each is not None else ():
                each(*batch.head(row))
            if len(batch.rows) < min(READ_BATCH, upto_seq - after) or batch.last_seq is None:
                break
            after = batch.last_seq
            await asyncio.sleep(0)  # the other channels' commands between two batches
        return found
