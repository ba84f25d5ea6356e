"""The desk every command of the service is taken at: the one way a command opens (``Desk.command``:
the locks, the answer already logged for a re-delivered interaction, the game loaded) and the one
way it is written down (``Desk.seal`` makes the hash-chained log entry, ``Desk.save`` saves it with
the new state in one transaction). The parts of the service (orders, hidden information, undo, the
log, games, players, pacing) each hold the desk; none takes a lock or builds an entry by itself."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

from bot.core.game import Game
from bot.core.outcome import Outcome
from bot.record import LogEntry, consumed_dice, sealed_state
from bot.service.basics import NO_GAME, Acted, Actor, NoGame, NotAllowed, log_time, read_entry
from bot.service.dice import DiceKeeper
from bot.store import DuplicateInteraction, LogFull, StaleGame, Store, StoredGame
from bot.work import Worker

R = TypeVar("R")
# whether each entry saved lately rolled, by its interaction, for the roll limit's question (``rolled``): not
# the entry itself (issue 28: a scenario file's entry 1 holds its whole set-up, 512 of them 370 MB)
SAVED_BY_INTERACTION = 512


class ChannelLock:
    """``async with``: a channel's asyncio lock, then its store's lock (``Store.channel_lock``,
    entered once the first is held), left in the reverse order: what ``async with lock,
    store.channel_lock(channel_id)`` does, as a plain object rather than an
    ``asynccontextmanager`` (issue 14: each of those is an async generator, which asyncio registers
    and finalizes, and three more frames, on every command)."""

    __slots__ = ("lock", "store", "channel_id", "held")

    def __init__(self, lock: asyncio.Lock, store: Store, channel_id: int) -> None:
        self.lock, self.store, self.channel_id = lock, store, channel_id  # the lock kept alive while held
        self.held: contextlib.AbstractAsyncContextManager[None] | None = None

    async def __aenter__(self) -> None:
        await self.lock.acquire()
        try:
            held = self.store.channel_lock(self.channel_id)
            await held.__aenter__()
        except BaseException:
            self.lock.release()
            raise
        self.held = held

    async def __aexit__(self, *exc: Any) -> bool | None:
        held, self.held = self.held, None
        try:
            return await held.__aexit__(*exc)  # type: ignore[union-attr]
        finally:
            self.lock.release()


class Desk:
    def __init__(self, store: Store, dice: DiceKeeper, *, clock: Callable[[], datetime], worker: Worker) -> None:
        self.store = store
        self.dice = dice
        self.clock = clock  # where "now" comes from (UTC): log times, undo expiry, pacing; tests fix it
        self.worker = worker  # long work (replays, previews, exports) off the event loop
        # one lock per channel (and per server, for a new game), dropped once no command holds or awaits it
        self.locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self.server_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        # the entries this process saved last, by their interaction: ``rolled`` answers the roll limit
        # from here without a trip to the store (a logged entry never changes)
        self.saved_by_interaction: dict[int, bool] = {}
        # game -> (seq of its newest undo, the seq it undid, that entry's action and acting side): an
        # order given next of the same action by the same side is marked given again (``given_again``);
        # kept in this process only (after a restart the reply goes unmarked; /log and the exports
        # read the mark from the log itself)
        self.undid: dict[int, tuple[int, int, Any, Any]] = {}

    # --- opening a command ---

    def lock(self, channel_id: int) -> ChannelLock:
        """The channel's commands one at a time: in this process (an asyncio lock), then across
        every process on the store (``Store.channel_lock``: PostgreSQL's advisory lock). Taken by
        ``command`` alone."""
        lock = self.locks.get(channel_id)
        if lock is None:
            lock = asyncio.Lock()
            self.locks[channel_id] = lock
        return ChannelLock(lock, self.store, channel_id)

    def _server_lock(self, guild_id: int) -> asyncio.Lock:
        lock = self.server_locks.get(guild_id)
        if lock is None:
            lock = self.server_locks[guild_id] = asyncio.Lock()
        return lock

    async def command(self, channel_id: int, then: Callable[[Any], Awaitable[R]], *,
                      interaction_id: int | None = None, load: Callable[[], Awaitable[Any]] | None = None,
                      earlier: Callable[[], Awaitable[Any]] | None = None,
                      again: Callable[[Any], Awaitable[R]] | None = None, room: bool = False,
                      guild_id: int | None = None) -> R:
        """The one way a command opens. Under the channel's lock (and the server's first, ``guild_id``:
        a new game counts the server's games, in this process and across processes), the answer
        already given to a re-delivered interaction is found (``earlier``; by default the log's entry
        for ``interaction_id``) and returned, turned by ``again`` into the command's own answer (a
        seal's text, an undo's answer): a command is never resolved twice. Else the game is loaded
        (``load``; by default the channel's active game, read with the log's entry in one trip to the
        store, issue 5), its log checked for room (``room``) and handed to ``then``, still under the lock."""
        if guild_id is None:
            async with self.lock(channel_id):
                return await self._opened(channel_id, then, interaction_id, load, earlier, again, room)
        async with self._server_lock(guild_id), self.store.server_lock(guild_id), self.lock(channel_id):
            return await self._opened(channel_id, then, interaction_id, load, earlier, again, room)

    async def _opened(self, channel_id: int, then: Callable[[Any], Awaitable[R]], interaction_id: int | None,
                      load: Callable[[], Awaitable[Any]] | None, earlier: Callable[[], Awaitable[Any]] | None,
                      again: Callable[[Any], Awaitable[R]] | None, room: bool) -> R:
        found: Any = None
        if load is None and earlier is None:  # the common case: the answer or the game, in one trip to the store
            found = await self.recorded_or_active(channel_id, interaction_id)
            done = found if isinstance(found, Acted) else None
        else:
            done = await (earlier() if earlier is not None else self.recorded(interaction_id))
            if done is None:
                found = await (load() if load is not None else self.active(channel_id))
        if done is not None:
            return done if again is None else await again(done)
        if room:
            self.check_room(found)
        return await then(found)

    async def recorded(self, interaction_id: int | None) -> Acted | None:
        """The answer already given to this interaction, if it was logged (a re-delivery, or a reply
        Discord refused after the result was saved)."""
        if interaction_id is None:
            return None
        found = await self.store.load_recorded(interaction_id)
        if found is None:
            return None
        entry, stored = found
        return Acted(entry.outcome_model(), stored.game, entry, replayed=True)

    async def recorded_or_active(self, channel_id: int, interaction_id: int | None) -> Acted | StoredGame:
        """The answer already given to this interaction if it was logged, else the channel's
        active game: what ``recorded`` then ``active`` give, in one read of the store (issue 5:
        every trip to the database thread is paid by all the channels waiting on it)."""
        entry, stored = await self.store.load_for_command(channel_id, interaction_id, head_for=self.dice.wants_head)
        if entry is not None:
            assert stored is not None  # entries reference their game (foreign key)
            return Acted(entry.outcome_model(), stored.game, entry, replayed=True)
        if stored is None:
            raise NoGame(NO_GAME)
        return stored

    def now(self) -> str:
        """Now, as the log writes it."""
        return log_time(self.clock())

    # --- reading ---

    async def active(self, channel_id: int) -> StoredGame:
        stored = await self.store.load_active(channel_id)
        if stored is None:
            raise NoGame(NO_GAME)
        return stored

    async def latest(self, channel_id: int) -> StoredGame:
        stored = await self.store.load_latest(channel_id)
        if stored is None:
            raise NoGame(NO_GAME)
        return stored

    async def entry(self, game_id: int, seq: int) -> LogEntry:
        """One entry of a game's log, as logged (the Details button of a result)."""
        return await read_entry(self.store, game_id, seq)

    # --- writing ---

    def seal(self, stored_id: int, last_seq: int, head_hash: str, *, actor: Actor, command: str,
             order: dict[str, Any], outcome: Outcome, game: Game, manual: bool,
             interaction_id: int | None, dice_proof: dict[str, Any] | None = None) -> LogEntry:
        """The log entry after entry ``last_seq`` (whose hash is ``head_hash``): the order, its outcome,
        the state it leaves, chained by hash to the one before."""
        return LogEntry.seal(
            prev_hash=head_hash, game_id=stored_id, seq=last_seq + 1,
            time=self.now(), actor=actor.user_id,
            command=command, order=order, dice=consumed_dice(outcome), manual=manual,
            outcome=outcome, state_hash=sealed_state(game),
            interaction_id=interaction_id, dice_proof=dice_proof)

    def next_entry(self, stored: StoredGame, *, actor: Actor, command: str, order: dict[str, Any], outcome: Outcome,
                   game: Game, interaction_id: int | None, dice_proof: dict[str, Any] | None,
                   manual: bool = False) -> LogEntry:
        """``seal``: the entry that follows ``stored``'s newest."""
        return self.seal(stored.id, stored.last_seq, stored.head_hash, actor=actor, command=command, order=order,
                         outcome=outcome, game=game, manual=manual, interaction_id=interaction_id,
                         dice_proof=dice_proof)

    def check_room(self, stored: StoredGame) -> None:
        if stored.last_seq >= self.store.max_entries:
            raise self.log_full()

    def log_full(self) -> NotAllowed:
        return NotAllowed(f"this game's log is full ({self.store.max_entries} entries, the most one "
                          "game keeps): the game master can end it with /game end and start another")

    async def save(self, stored: StoredGame, game: Game, entry: LogEntry, *, end: bool = False) -> Acted | None:
        """Save state + entry; a re-delivered interaction that won the race returns its answer."""
        try:
            if end:
                await self.store.end_game(stored, entry)
            else:
                await self.store.append(stored, game, entry)
        except DuplicateInteraction:
            return await self.recorded(entry.interaction_id)
        except StaleGame:
            raise NotAllowed("the game changed while this order was being resolved; nothing was "
                             "saved: give the order again") from None
        except LogFull:
            raise self.log_full() from None
        self.saved(stored.id, entry)
        return None

    async def save_acted(self, stored: StoredGame, outcome: Outcome, game: Game, entry: LogEntry, *,
                         end: bool = False) -> Acted:
        """``save``, answered with what was done (or what a re-delivery that won the race did)."""
        return await self.save(stored, game, entry, end=end) or Acted(outcome, game, entry)

    def saved(self, game_id: int, entry: LogEntry) -> None:
        """Keep the dice state in force after ``entry``, the game's newest (the next command's), and
        the entry by its interaction (``rolled``)."""
        self.dice.saved(game_id, entry)
        if entry.interaction_id is not None:
            while len(self.saved_by_interaction) >= SAVED_BY_INTERACTION:
                del self.saved_by_interaction[next(iter(self.saved_by_interaction))]  # the oldest first
            self.saved_by_interaction[entry.interaction_id] = bool(entry.dice)
