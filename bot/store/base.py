"""The store's interface: what the Referee service needs from persistence, and nothing more.

Keeping it this small (load a game, save a game with its log entry, read the log) is what lets
a PostgreSQL store serve several sharded bot processes later without touching cogs or core.
Every write takes the state *and* its log entry together, so no store can save one without
the other.
"""

from __future__ import annotations

import contextlib
import zlib
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NamedTuple

from bot.core.game import Game
from bot.record.chain import LogEntry, SavedState
from bot.record.checkpoint import Checkpoint
from bot.shards import Shards

# the default cap of a game's log, and how many entries apart checkpoints are (the host may set others)
from bot.config import CHECKPOINT_EVERY, MAX_LOG_ENTRIES  # noqa: F401 (the stores import both from here)

GameStatus = Literal["active", "ended"]

# how many games' newest states a store keeps parsed for their next command (``KeptGames``): more
# than the channels that play at once on one bot process (50 in bench/bench_e2e.py); and how many
# units they may hold in all (a unit is ~3.7 KB of Python objects: ~75 MB at most), a Location counting
# as a third of a unit (~1.25 KB: a game of 400 units and 2,000 Locations is 4.0 MB parsed; counted by
# units alone, 50 of them held 200 MB, issue 28)
KEPT_GAMES = 256
KEPT_UNITS = 20_000
LOCATIONS_A_UNIT = 3


def kept_size(game: Game) -> int:
    """What a kept Game weighs against ``KEPT_UNITS``: its units, and a third of its Locations."""
    return len(game.units) + len(game.locations) // LOCATIONS_A_UNIT


STATE_LEVEL = 1  # zlib level of the state (issue 14): 400 units' 270 KB -> 6.9 KB in 0.4 ms (level 6: 5.7 KB in 13 ms)


def pack_state(saved: SavedState) -> bytes:
    """A game's state as the store writes it (schema 7 on), in a BLOB: zlib of its JSON in the
    game's own order, encoded from the same dump as the text its state hash covers (``saved_state``)."""
    return zlib.compress(saved.ordered.encode("utf-8"), STATE_LEVEL)


def unpack_state(stored: str | bytes) -> Game:
    """A stored state: a BLOB as ``pack_state`` writes it, or TEXT, the Game's JSON as the bots of
    schema 6 and before wrote it (and as anyone may still write it by hand)."""
    return Game.model_validate_json(zlib.decompress(stored) if isinstance(stored, bytes) else stored)


@dataclass(frozen=True)
class StoredGame:
    """A game row: the state and where its log stands (the last seq and its hash)."""

    id: int
    channel_id: int
    guild_id: int | None
    ruleset: str
    status: GameStatus
    created_at: str
    game: Game
    last_seq: int
    head_hash: str
    # (seq, hash, order, dice proof) of the newest entry, read with the row when the reader asked
    # for it (``load_for_command``'s ``head_for``); None otherwise. Not part of the game's identity
    head: tuple[int, str, dict[str, Any], dict[str, Any] | None] | None = field(default=None, compare=False)
    # (commitment, secret) of the dice commitment in force after ``head`` (the turn's seed), read with
    # it when the store holds that secret; never printed
    seed: tuple[str, bytes] | None = field(default=None, compare=False, repr=False)


# ``load_for_command``'s question, asked of each game row it reads: (game id, last seq, head hash)
# -> whether the caller wants that row's newest entry's order and dice proof with it (``StoredGame.head``)
HeadFor = Callable[[int, int, str], bool]


class KeptGames:
    """The Game each game's newest write saved, kept for the next command of its channel (issue 14:
    a command no longer decompresses and parses the state the one before it saved).

    A kept Game is handed out only for a row that is the very one it was saved as: the same game,
    seq, head hash and stored state (bytes or text, compared whole; a few microseconds). Anything
    else that wrote the row (another process or shard, an undo, a restore, an edit by hand) changed
    one of them, and the row is parsed as before. A Game is never changed once resolved (the core
    resolves a working copy, ``bot.core.copying.tree_copy``), so one object may serve several
    commands; ``check`` (the test suite sets it) re-dumps every kept Game when it is handed out and
    fails if it no longer is what was saved. ``row`` may run on a database thread: it only reads."""

    check = False

    def __init__(self, most: int = KEPT_GAMES, units: int = KEPT_UNITS):
        self.most, self.units = most, units
        self._kept: dict[int, tuple[int, str, bytes | str, Game]] = {}  # id -> (seq, head hash, stored, game)
        self._units = 0  # the weight of the kept Games, in all (``kept_size``: units, a third of the Locations)

    def keep(self, game_id: int, seq: int, head_hash: str, stored: bytes | str, game: Game) -> None:
        """On the event loop, once the write of ``stored`` (the state's column as written) committed."""
        self.forget(game_id)  # the newest write last: the least recently written goes first
        size = kept_size(game)
        if size > self.units:
            return  # a game bigger than the whole budget is parsed each time
        while self._kept and (len(self._kept) >= self.most or self._units + size > self.units):
            self.forget(next(iter(self._kept)))
        self._kept[game_id] = (seq, head_hash, stored, game)
        self._units += size

    def forget(self, game_id: int) -> None:
        kept = self._kept.pop(game_id, None)
        if kept is not None:
            self._units -= kept_size(kept[3])

    def game(self, game_id: int, seq: int, head_hash: str, stored: bytes | str) -> Game | None:
        """The kept Game of this row, if the row is the one it was saved as; else None."""
        kept = self._kept.get(game_id)
        if kept is None or kept[0] != seq or kept[1] != head_hash or kept[2] != stored:
            return None
        if self.check:
            dump = Game.__pydantic_serializer__.to_json  # not model_dump_json: tests count its calls
            if dump(kept[3]) != dump(unpack_state(stored)):
                raise AssertionError(f"the kept Game of game {game_id} was changed after it was saved (seq {seq})")
        return kept[3]

    def row(self, row: Any, at: int = 6) -> Any:
        """A game row (``_GAME_COLUMNS``: id first, the state at ``at``, then last_seq and head_hash)
        with the kept Game in place of its state when the row is the one kept; else as it was."""
        if row is None:
            return None
        game = self.game(row[0], row[at + 1], row[at + 2], row[at])
        return row if game is None else (*row[:at], game, *row[at + 1:])


UndoStatus = Literal["pending", "accepted", "refused", "withdrawn", "expired", "lapsed"]


@dataclass(frozen=True)
class UndoRequest:
    """A proposal to undo a game's newest entry, waiting for the other side's answer."""

    id: int
    game_id: int
    target_seq: int
    head_seq: int  # the log's newest entry when proposed; the game must not move on meanwhile
    head_hash: str
    proposer: int
    proposed_at: str  # UTC, ISO 8601
    expires_at: str
    state_before: str  # the Game before the target entry, as JSON
    status: UndoStatus = "pending"
    answered_by: int | None = None
    answered_at: str | None = None
    interaction_id: int | None = None
    channel_id: int | None = None  # the proposal's message, once posted
    message_id: int | None = None


@dataclass(frozen=True)
class QuietGame:
    """An active game that asked for reminders, with the time of its newest entry."""

    game: StoredGame
    last_time: str
    reminded_seq: int | None  # the newest entry when the last reminder went out


@dataclass(frozen=True)
class PlayerGame:
    """An active game a user plays in (``Store.player_games``), with the time of its newest entry."""

    game: StoredGame
    last_time: str


@dataclass(frozen=True)
class Away:
    """A player's latest away (``/away``): from ``since`` to ``until`` (UTC, ISO 8601; ``until`` is when
    it ended, after ``/away end``), with the reason they gave (may be empty)."""

    user_id: int
    since: str
    until: str
    reason: str = ""

    def at(self, when: str) -> bool:
        """Away at the moment ``when`` (an ISO time)."""
        return self.since <= when < self.until


def seated(game: Game) -> tuple[int, ...]:
    """The users seated in ``game`` (on any side), each once, in the order the sides list them: what the
    stores' ``seats`` index holds for it."""
    return tuple(dict.fromkeys(player for side in game.sides for player in side.players))


@dataclass(frozen=True)
class ServerGames:
    """A server's games, for its caps: how many run now, how many were started in a window, and
    when the first of those was started (an ISO time: a refusal says when the next may start)."""

    running: int
    started: int
    first_started: str | None


@dataclass(frozen=True)
class GameExtras:
    """What a game has beside its row, its log and its undo proposals, as a store keeps it: moved
    with the game by ``python -m bot store copy`` (bot/store/copy.py)."""

    reminded: tuple[int, str] | None = None  # (seq, sent_at) of the last reminder sent (pacing_reminders)
    unshown: tuple[tuple[int, int], ...] = ()  # (seq, channel) of results saved but not yet seen
    # (seq, state, live) of each checkpoint, as stored: the state packed (pack_state),
    # ``live`` the kept top of the stack as canonical JSON; the same bytes in either store
    checkpoints: tuple[tuple[int, bytes, str], ...] = ()


class StoreError(Exception):
    """A store refused a write; the service turns these into messages for players."""


class ActiveGameExists(StoreError):
    """The channel already has an active game (one per channel)."""


class StaleGame(StoreError):
    """The game changed since it was loaded (another process wrote first): nothing was saved."""


class DuplicateInteraction(StoreError):
    """An entry with this interaction id is already logged: nothing was saved."""

    def __init__(self, interaction_id: int):
        super().__init__(f"interaction {interaction_id} is already logged")
        self.interaction_id = interaction_id


class LogFull(StoreError):
    """The game's log holds the most entries one game may have."""


class SchemaTooNew(StoreError):
    """The database was written by a newer version of the bot."""


class StorageUnavailable(StoreError):
    """The database cannot take a command now (its disk is full; another program holds its write
    lock past every retry): nothing of the command was saved. ``str()`` is for the players;
    ``kind`` ("full", "locked") groups the log lines, one per fault, not a traceback per command."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


class DatabaseUnusable(StoreError):
    """The database file cannot be used at start-up (not a database, damaged, read-only): one
    line naming the file and what to do."""


def entry_head(entry: LogEntry) -> tuple[int, dict]:
    """Who gave an entry's order, and the order (who it names): of a decoded entry."""
    return entry.actor, entry.order


class EntryRows(NamedTuple):
    """A batch of log entries as ``Store.entry_rows`` reads them: ``rows``, each ``decode(row)`` a
    LogEntry (``decode`` None: the rows are LogEntry already); ``last_seq`` the seq of the last
    row (None: no rows); ``head(row)`` its actor and order, a quick look without decoding it."""

    rows: list[Any]
    last_seq: int | None
    decode: Callable[[Any], LogEntry] | None
    head: Callable[[Any], tuple[int, dict]]


FirstEntries = Callable[[int], "LogEntry | Sequence[LogEntry]"]
"""``Store.create_game``'s callback: the new game's id -> entry 1, or entries 1..n in order."""


def creation_entries(made: LogEntry | Sequence[LogEntry], max_entries: int) -> list[LogEntry]:
    """The entries a new game is created with (``FirstEntries``' answer), checked: entry 1 first
    (on the genesis hash), then each the next seq, chained on the one before it."""
    entries = [made] if isinstance(made, LogEntry) else list(made)
    if not entries or len(entries) > max_entries:
        raise LogFull(f"a new game is created with 1 to {max_entries} entries, not {len(entries)}")
    for before, entry in zip(entries, entries[1:]):
        if entry.seq != before.seq + 1 or entry.prev_hash != before.hash or entry.game_id != before.game_id:
            raise ValueError(f"entry {entry.seq} does not follow entry {before.seq} of the new game")
    if entries[0].seq != 1:
        raise ValueError(f"a new game's first entry is entry 1, not {entries[0].seq}")
    return entries


class Store(ABC):
    """Persistence of games and their logs. Implementations must make ``create_game``,
    ``append`` and ``end_game`` atomic: the state and its entry commit together or not at all."""

    max_entries: int = MAX_LOG_ENTRIES
    # False: the store cannot hold secrets (a database held at a schema before 8 by the migration
    # tests): its new games draw production dice from ``secrets``, uncommitted, as before issue 12
    holds_secrets: bool = True

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def load_active(self, channel_id: int) -> StoredGame | None:
        """The channel's active game, or None."""

    @abstractmethod
    async def load_latest(self, channel_id: int) -> StoredGame | None:
        """The channel's active game, else its most recently ended one (logs stay readable)."""

    @abstractmethod
    async def load_game(self, game_id: int) -> StoredGame | None: ...

    @abstractmethod
    async def create_game(self, channel_id: int, guild_id: int | None, game: Game,
                          first_entry: FirstEntries) -> tuple[StoredGame, LogEntry]:
        """Create a game and its first entries in one transaction. ``first_entry`` receives the new
        game's id (the entries' hashes cover it) and returns the sealed entry 1, or entry 1 and the
        entries that follow it in the same command, hash-chained (a scenario file's hidden parts,
        sealed at load): all land or none. Returns the game as saved (``last_seq``: the last of them)
        and entry 1."""

    async def append(self, stored: StoredGame, game: Game, entry: LogEntry) -> StoredGame:
        """Save ``game`` as the new state of ``stored`` and append ``entry``, in one transaction.
        Raises StaleGame if the game moved on since ``stored`` was loaded."""
        return await self._write(stored, game, entry, end=False)

    async def end_game(self, stored: StoredGame, entry: LogEntry) -> StoredGame:
        """Append the closing entry and mark the game ended, in one transaction."""
        return await self._write(stored, stored.game, entry, end=True)

    @abstractmethod
    async def reopen_game(self, stored: StoredGame, entry: LogEntry) -> StoredGame:
        """Append the reopening entry of an ended game (``stored``, its end the newest entry) and mark
        it active again, in one transaction; the state is the one it ended with. StaleGame if the game
        moved on or is not ended; ActiveGameExists if its channel has another game in play."""

    @abstractmethod
    async def _write(self, stored: StoredGame, game: Game, entry: LogEntry, *, end: bool) -> StoredGame:
        """The state and the entry in one transaction (``end``: the closing entry, which may go one
        past the log's cap and marks the game ended); StaleGame if the game moved on."""

    @abstractmethod
    async def entries(self, game_id: int, *, after_seq: int = 0, limit: int = 50) -> list[LogEntry]:
        """At most ``limit`` entries with seq > ``after_seq``, in seq order (newest last).
        Keyed on seq rather than an offset so a page costs the same at any depth of the log."""

    async def head_dice(self, game_id: int, seq: int) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        """The order and dice proof of entry ``seq`` (a game's newest: the dice state in force after
        it), or None without that entry. A store that can reads only those two (SqliteStore does:
        no outcome decompressed, no LogEntry built on the event loop); this default reads the entry."""
        found = await self.entries(game_id, after_seq=seq - 1, limit=1)
        return (found[0].order, found[0].dice_proof) if found and found[0].seq == seq else None

    async def entry_rows(self, game_id: int, *, after_seq: int = 0, limit: int = 50) -> EntryRows:
        """The entries of ``entries`` for long work (bot/service/replays.py's snapshot): as the database
        holds them when ``decode`` (a module-level function, run in the worker process) makes each
        a LogEntry, so the bot's loop only copies bytes; here already decoded (``decode`` None)."""
        entries = await self.entries(game_id, after_seq=after_seq, limit=limit)
        return EntryRows(entries, entries[-1].seq if entries else None, None, entry_head)

    @abstractmethod
    async def entry_by_interaction(self, interaction_id: int) -> LogEntry | None: ...

    async def load_for_command(self, channel_id: int, interaction_id: int | None, *,
                               head_for: HeadFor | None = None) -> tuple[LogEntry | None, StoredGame | None]:
        """What a command starts from: the entry already logged for ``interaction_id`` (a
        re-delivery) with that entry's game, else (None, the channel's active game or None).
        A store that can should answer in one round trip (SqliteStore does); this default
        asks the other methods. ``head_for``: a store that can reads, in the same trip, the
        newest entry's order and dice proof of an active game it says yes to (``StoredGame.head``)
        and the held secret of the dice commitment in force after it (``StoredGame.seed``); this
        default does not (the caller reads them with ``head_dice`` and ``held_secret``)."""
        if interaction_id is not None and (entry := await self.entry_by_interaction(interaction_id)):
            return entry, await self.load_game(entry.game_id)
        return None, await self.load_active(channel_id)

    def channel_lock(self, channel_id: int) -> AbstractAsyncContextManager[None]:
        """Held by the service around each command of the channel (after its own in-process lock),
        so the commands of one channel run one at a time across every process on this store. A
        store only one process uses (SQLite) needs nothing more: this default holds nothing."""
        return contextlib.nullcontext()

    def server_lock(self, guild_id: int) -> AbstractAsyncContextManager[None]:
        """Held by the service (before the channel's) while it counts a server's games against its
        caps and creates the new one, across every process on this store; nothing by default."""
        return contextlib.nullcontext()

    async def load_recorded(self, interaction_id: int) -> tuple[LogEntry, StoredGame] | None:
        """The entry already logged for ``interaction_id`` with its game, or None. A store that
        can answers in one round trip (PostgresStore does); this default asks the other methods."""
        entry = await self.entry_by_interaction(interaction_id)
        if entry is None:
            return None
        stored = await self.load_game(entry.game_id)
        assert stored is not None  # entries reference their game (foreign key)
        return entry, stored

    # --- undo by consent, pacing (Issue 4) ---

    @abstractmethod
    async def create_undo(self, request: UndoRequest) -> UndoRequest:
        """Save a new proposal (its ``id`` is assigned); raises DuplicateInteraction when the
        interaction already proposed one."""

    @abstractmethod
    async def undo_request(self, request_id: int) -> UndoRequest | None: ...

    @abstractmethod
    async def undo_by_interaction(self, interaction_id: int) -> UndoRequest | None: ...

    @abstractmethod
    async def pending_undo(self, game_id: int) -> UndoRequest | None:
        """The game's proposal still waiting for an answer, if any."""

    @abstractmethod
    async def settle_undo(self, request_id: int, status: UndoStatus, answered_by: int | None,
                          answered_at: str) -> bool:
        """Close a pending proposal (refused, withdrawn, expired, lapsed); False if it was not pending."""

    @abstractmethod
    async def set_undo_message(self, request_id: int, channel_id: int, message_id: int) -> None:
        """Remember where the proposal was posted (to take its buttons off when it expires)."""

    @abstractmethod
    async def overdue_undos(self, now: str) -> list[UndoRequest]:
        """Proposals still pending whose expiry (UTC, ISO 8601) is at or before ``now``."""

    @abstractmethod
    async def apply_undo(self, stored: StoredGame, game: Game, entry: LogEntry, request_id: int,
                         answered_by: int) -> StoredGame:
        """Append the reverting entry with the restored state and mark the proposal accepted, in
        one transaction. Raises StaleGame if the game moved on, or if the proposal is no longer
        pending."""

    @abstractmethod
    async def undone(self, game_id: int, *, after_seq: int = 0) -> dict[int, int]:
        """Entries undone -> the seq of the entry that undid them (undo entries after ``after_seq``)."""

    @abstractmethod
    async def server_games(self, guild_id: int, window: float) -> ServerGames:
        """The games of the server ``guild_id``: running now, and created in the last ``window``
        seconds by the store's own clock (the one that writes ``created_at``); an indexed read."""

    @abstractmethod
    async def quiet_games(self, due_by: str | None = None) -> list[QuietGame]:
        """Active games whose options set ``remind_after_hours`` and that were not reminded of their
        current silence; with ``due_by`` (a time as the entries write it), only those whose newest
        entry is that many hours old by then. An indexed read (issue 14): its cost follows the
        games due, not the games running."""

    @abstractmethod
    async def player_games(self, user_id: int) -> list[PlayerGame]:
        """The active games ``user_id`` is seated in, on every server, each with its newest entry's
        time, oldest first: read through the ``seats`` index (written with a game's state whenever
        its seated players change), so its cost follows the user's games, not the games running."""

    @abstractmethod
    async def mark_reminded(self, game_id: int, seq: int, sent_at: str) -> None: ...

    @abstractmethod
    async def claim_reminder(self, game_id: int, seq: int, sent_at: str, then_due: str | None = None) -> bool:
        """Mark the game reminded of the silence after entry ``seq``, in one statement; True only
        for the one caller that marked it (another process, or an earlier pass, did not already):
        that caller sends the reminder, so each silence is reminded once across processes. The game
        is then due again after its next entry, or at ``then_due`` (its deadline) when given."""

    @abstractmethod
    async def claim_deadline_notice(self, game_id: int, seq: int, sent_at: str) -> bool:
        """Claim the one notice that the deadline of the silence after entry ``seq`` passed but its
        step cannot end by itself (a roll the rules still require: bot/pacing.py), in one statement,
        as ``claim_reminder`` claims a reminder; True only for the one caller that claimed it (of
        several processes, or passes), who posts it. Kept in the game's reminder row as ``-seq`` (the
        half-time reminder of that same silence holds ``seq``), so the next entry starts a new
        silence; the game is then due again after its next entry only."""

    # --- players away (``/away``: bot/pacing.py stops the clock of a side whose every player is away) ---

    @abstractmethod
    async def set_away(self, away: Away) -> None:
        """Keep ``away`` as the user's latest away (replacing the one before)."""

    async def aways(self, user_ids: Iterable[int]) -> dict[int, Away]:
        """The latest away of each of these users that has one (ended ones too: the pacing reads
        when a player came back), read by the primary key."""
        return {}

    # --- notifications by direct message (``/notify dm:``) ---

    @abstractmethod
    async def set_notify(self, user_id: int, dm: bool) -> None:
        """Keep the user's choice: the hand-off and reaction windows by DM too (``dm``), or not."""

    async def dm_users(self, user_ids: Iterable[int]) -> set[int]:
        """Those of these users who chose notifications by DM, read by the primary key."""
        return set()

    async def player_settings(self) -> tuple[list[Away], dict[int, bool]]:
        """Every user's latest away and choice of DMs (a store copy takes them along), by user."""
        return [], {}

    # --- moving a server between stores (``python -m bot store copy``, bot/store/copy.py) ---

    @abstractmethod
    async def game_ids(self) -> list[int]:
        """Every game's id (active and ended), oldest first."""

    @abstractmethod
    async def undo_requests(self, game_id: int) -> list[UndoRequest]:
        """Every undo proposal of a game (answered or not), oldest first."""

    async def game_extras(self, game_id: int) -> GameExtras:
        """The game's reminder sent, results unshown and checkpoints (none, for a store keeping none)."""
        return GameExtras()

    @abstractmethod
    async def restore_game(self, stored: StoredGame, entries: list[LogEntry], undos: list[UndoRequest],
                           extras: GameExtras = GameExtras()) -> None:
        """Write a game copied from another store as it was: its id (every entry's hash covers
        it), its state, its whole log, its undo proposals and ``extras``, in one transaction. Raises
        StoreError when the id is taken here."""

    # --- what the bot holds until its reveal (issue 12: committed dice, sealed orders) ---

    @abstractmethod
    async def keep_secret(self, commitment: str, secret: bytes) -> None:
        """Hold ``secret`` (a dice seed, a sealed text with its nonce) under its ``commitment``,
        the hex SHA-256 the log publishes. Saved before the entry that publishes the commitment:
        a secret whose entry is never saved is never used. Keeping the same pair again is a no-op."""

    @abstractmethod
    async def held_secret(self, commitment: str) -> bytes | None:
        """The secret held under ``commitment``, or None."""

    # results saved but not yet seen (issue 17): a store that does not track them shows nothing
    # after a restart, as before; the SQLite store does (migrations/0005_unshown_entries.sql)
    async def entry_shown(self, game_id: int, seq: int) -> None:
        """The entry's result reached its channel: take it off the unshown list."""

    async def unshown_entries(self, limit: int = 100, *, before: datetime | None = None,
                              shards: Shards | None = None) -> list[tuple[int, LogEntry]]:
        """(channel, entry) of the results saved by an interaction and never seen, oldest first, at
        most ``limit``: only those logged before ``before`` and of the games of ``shards``'s servers,
        when given (filtered in the query, so other shards' pending results never crowd out a
        process's own)."""
        return []

    # checkpoints (issue 14; bot/record/checkpoint.py): a store that keeps none replays from entry 1
    async def checkpoint_before(self, game_id: int, seq: int) -> Checkpoint | None:
        """The newest checkpoint of the game at or before entry ``seq``, as stored (unchecked:
        ``ChainVerifier.resume`` checks it against its entry before use), or None."""
        return None

    async def iter_entries(self, game_id: int, *, batch: int = 500,
                           after_seq: int = 0) -> AsyncIterator[LogEntry]:
        """Every entry of a game with seq > ``after_seq``, in seq order, read in batches (verify, export)."""
        after = after_seq
        while True:
            page = await self.entries(game_id, after_seq=after, limit=batch)
            for entry in page:
                yield entry
            if len(page) < batch:
                return
            after = page[-1].seq
