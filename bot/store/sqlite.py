"""The SQLite store (aiosqlite): WAL, numbered migrations, one transaction per command.

One connection; aiosqlite runs every call on the connection's single thread, one call at a
time, in the order the calls were queued. Each operation of this store is *one* such call: a
function run on that thread that does the whole read, or the whole of a write (rolled back
there on any error). So no statement of one command can land inside another's write, without an
asyncio lock, and a command costs one hand-over to the thread per read or write instead of one
per statement, fetch and cursor close (issue 5: ten round trips per command became two). A
cancelled caller cannot leave a write half done either: the function runs to its COMMIT or
ROLLBACK whatever happens to the coroutine awaiting it. Channels still proceed concurrently: the
rules core runs on the event loop while the thread writes another channel's command. WAL lets
readers in other processes (backups, verify tools) read while the bot writes.

Group commit. A command's write is durable before its answer is sent (synchronous=FULL: an
fsync per COMMIT), and an fsync costs 0.5-4 ms on the 2-core machine: one COMMIT per command
made the SQLite thread the bot's bottleneck with many channels at once (issue 5,
docs/performance.md). So the writes queued while a COMMIT is on its way to the disk go
together in the next transaction (``_in_group``): BEGIN IMMEDIATE, each command's writes in a
SAVEPOINT of its own, one COMMIT. Each command stays whole or absent: its state and its log
entry are released together, or rolled back to its savepoint alone when it fails (a stale game,
a re-delivered interaction) while the others go on; if the COMMIT itself fails, none of them is
kept and every one of them gets the error. No caller hears "saved" before the COMMIT that holds
its write is on disk. A lone write is a transaction of one, as before.

The bulky part of a log entry, its Outcome (a fire's is ~6 KB of canonical JSON), is stored
zlib-compressed as a BLOB; entries written before that are TEXT and read as they are (SQLite
columns are dynamically typed, so both live in one column and no old row is rewritten). The
hash chain covers the canonical JSON, never the stored bytes, so the compression changes no hash.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import aiosqlite

from bot.core import deadlines
from bot.core.game import Game
from bot.core.reactions import timeout_hours

from .base import (CHECKPOINT_EVERY, MAX_LOG_ENTRIES, ActiveGameExists, Away, DatabaseUnusable, DuplicateInteraction,
                   EntryRows, FirstEntries, GameExtras, HeadFor, KeptGames, LogFull, PlayerGame, QuietGame,
                   SchemaTooNew, ServerGames, StaleGame, StorageUnavailable, Store, StoredGame, StoreError,
                   UndoRequest, UndoStatus, creation_entries, pack_state, seated, unpack_state)
from bot.record.chain import GENESIS_HASH, LogEntry, SavedState, canonical_json, release_state, saved_state
from bot.record.checkpoint import Checkpoint, advance_live
from bot.record.dice_audit import state_after
from bot.shards import Shards

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# Another process (a backup, a verify tool) holding the write lock. The writer waits for it on its
# thread only briefly each time (BUSY_TIMEOUT_MS), then retries off the thread with a growing pause,
# LOCK_RETRY_SECONDS in all, before the command is refused with "try again" (issue 17: one wait of
# 5 s on the one database thread stalled every channel's reads behind it). Reads have a connection
# and a thread of their own (WAL: a writer, ours or another's, never blocks them).
BUSY_TIMEOUT_MS = 200
START_BUSY_TIMEOUT_MS = 5000  # at start-up (the migrations) nothing waits behind the wait
LOCK_RETRY_SECONDS = 20.0
LOCK_RETRY_FIRST_PAUSE, LOCK_RETRY_LONGEST_PAUSE = 0.05, 1.0
# the most writes one group commit takes: bounds how long one transaction holds the write lock
MAX_GROUP = 64

_GAME_COLUMNS = "id, channel_id, guild_id, ruleset, status, created_at, state, last_seq, head_hash"
_ENTRY_COLUMNS = ("game_id, seq, time, actor, command, order_json, dice, manual, outcome, "
                  "state_hash, prev_hash, hash, interaction_id, rules_version, dice_proof")
# the log's columns before schema 8 (no dice_proof) and before schema 3 (no rules_version): a store
# held at an earlier schema by ``open(upto=...)``, as the migration tests do, reads and writes only these
_ENTRY_COLUMNS_BEFORE_8 = _ENTRY_COLUMNS.removesuffix(", dice_proof")
_ENTRY_COLUMNS_BEFORE_3 = _ENTRY_COLUMNS_BEFORE_8.removesuffix(", rules_version")
_UNDO_COLUMNS = ("id, game_id, target_seq, head_seq, head_hash, proposer, proposed_at, expires_at, "
                 "state_before, status, answered_by, answered_at, interaction_id, channel_id, message_id")


def migrations(folder: Path | None = None) -> list[tuple[int, str, str]]:
    """(number, file name, SQL) of every migration in ``folder`` (SQLite's by default; the
    PostgreSQL store reads its own), numbered 1, 2, 3 ... without gaps."""
    found = []
    for path in sorted((folder or MIGRATIONS_DIR).glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise RuntimeError(f"migration file {path.name} is not named NNNN_name.sql")
        found.append((int(match.group(1)), path.name, path.read_text(encoding="utf-8")))
    for expected, (number, name, _) in enumerate(found, start=1):
        if number != expected:
            raise RuntimeError(f"migration {name} is out of sequence: expected number {expected:04d}")
    return found


async def schema_version(db: aiosqlite.Connection) -> int:
    async with db.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0])


async def migrate(db: aiosqlite.Connection, *, upto: int | None = None) -> int:
    """Apply the migrations the database lacks (up to ``upto``), each in its own transaction
    together with its version number; returns the version reached."""
    known = migrations()
    current = await schema_version(db)
    if current > len(known):
        raise SchemaTooNew(f"the database is at schema version {current}, newer than this bot "
                           f"knows ({len(known)}): run a newer version of the bot")
    target = len(known) if upto is None else upto
    for number, _name, sql in known[current:target]:
        try:
            await db.executescript(f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {number};\nCOMMIT;")
        except BaseException:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise
    return await schema_version(db)


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


# zlib level 6 (its default): a fire's 5.8 KB outcome becomes ~1.1 KB; levels 7-9 gain a few
# bytes more for more CPU per command
COMPRESSION_LEVEL = 6
COMPRESSED_OUTCOMES_SCHEMA = 4  # migrations/0004_compact_log.sql
DICTIONARY_SCHEMA = 9  # migrations/0009_outcome_dictionary.sql
UNSHOWN_SCHEMA = 5  # migrations/0005_unshown_entries.sql
CHECKPOINTS_SCHEMA = 7  # migrations/0007_checkpoints_and_reminders.sql
SEATS_SCHEMA = 10  # migrations/0010_seats.sql
AWAY_SCHEMA = 11  # migrations/0011_away.sql
NOTIFY_SCHEMA = 12  # migrations/0012_notify.sql
SHOWN_FLUSH_SECONDS = 0.25  # results seen but still listed as unshown wait at most this long for a write


# The preset dictionary outcomes are compressed with (issue 14: a /fire entry was 2,050 B of the
# database, two ~1.6 KB rows to a 4 KB page; its outcome 1,130 B compressed alone, 815 B with it,
# and three rows fit a page). Frozen: every outcome compressed with it names it by its Adler-32
# (zlib's DICTID) and needs its very bytes to be read; a new one is a new file beside it, added to
# ``_DICTIONARIES``. tests/store/fixtures/make_outcome_dictionary.py says what it holds.
OUTCOME_DICTIONARY = Path(__file__).with_name("outcome-dictionary-1.json").read_bytes()
_DICTIONARIES = {zlib.adler32(OUTCOME_DICTIONARY): OUTCOME_DICTIONARY}
# a compressor primed with the dictionary, copied for each outcome (priming one costs twice the
# compression: 57 against 25 us for a fire's outcome)
_PRIMED = zlib.compressobj(COMPRESSION_LEVEL, zdict=OUTCOME_DICTIONARY)


def pack_json(text: str) -> bytes:
    """Canonical JSON as it is stored: zlib-compressed UTF-8 (with the preset ``OUTCOME_DICTIONARY``),
    in a BLOB."""
    packer = _PRIMED.copy()
    return packer.compress(text.encode("utf-8")) + packer.flush()


def pack_plain(text: str) -> bytes:
    """Canonical JSON as schema 4 to 8 stored it: plain zlib (a store held at one of those by the
    migration tests writes what a bot of its version could read)."""
    return zlib.compress(text.encode("utf-8"), COMPRESSION_LEVEL)


def inflate(stored: bytes) -> bytes:
    """A compressed column's bytes: plain zlib (as schema 4 to 8 wrote outcomes), or zlib with a
    preset dictionary (FDICT set in its header, followed by the dictionary's Adler-32)."""
    if len(stored) < 6 or not stored[1] & 0x20:
        return zlib.decompress(stored)
    zdict = _DICTIONARIES.get(int.from_bytes(stored[2:6], "big"))
    if zdict is None:
        raise zlib.error("compressed with a dictionary this bot does not have (written by a newer bot?)")
    inflater = zlib.decompressobj(zdict=zdict)
    data = inflater.decompress(stored)
    if not inflater.eof or inflater.unused_data:
        raise zlib.error("incomplete or damaged compressed data")
    return data


def unpack_json(stored: str | bytes) -> Any:
    """A stored JSON column: a BLOB is compressed JSON (schema 4 on; its migration says why),
    TEXT is JSON as older bots wrote it (and as anyone may still write it by hand)."""
    return json.loads(inflate(stored) if isinstance(stored, bytes) else stored)


def _seat(conn: Connection, game_id: int, game: Game) -> None:
    """The game's rows of the seats index, rewritten for the players seated in ``game`` (inside the
    caller's transaction)."""
    conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
    conn.executemany("INSERT INTO seats (user_id, game_id) VALUES (?, ?)", [(u, game_id) for u in seated(game)])


async def _seat_every_game(db: aiosqlite.Connection) -> None:
    """Fill the seats index from every active game's state, once, as a database older than it is
    upgraded (the states are compressed: the migration's SQL cannot read them)."""
    async with db.execute("SELECT id, state FROM games WHERE status = 'active'") as cursor:
        rows = await cursor.fetchall()
    seats = [(user, game_id) for game_id, state in rows for user in seated(unpack_state(state))]
    await db.execute("BEGIN IMMEDIATE")
    try:
        await db.executemany("INSERT OR IGNORE INTO seats (user_id, game_id) VALUES (?, ?)", seats)
    except BaseException:
        await db.execute("ROLLBACK")
        raise
    await db.execute("COMMIT")


def remind_due(game: Game, time: str) -> str | None:
    """When a game whose newest entry was logged at ``time`` is due for a reminder (its option
    ``remind_after_hours``, a positive number), in the entries' time format; None when it asked
    for none. The reminder loop (bot/pacing.py) checks the option again before it sends one. A game
    waiting on a reaction window with a time limit (the game option reactions=hours=N) is due when
    the window closes instead: the loop closes it (no reminder of the side that waits). A game with a
    deadline (``deadline_hours``) is due at its half time at the latest (its reminder; the loop then
    marks it due at the deadline). A paused game is never due."""
    if game.paused:
        return None
    hours = timeout_hours(game)
    if hours is None:
        hours = game.options.get("remind_after_hours")
    if isinstance(hours, str):
        try:
            hours = float(hours)
        except ValueError:
            hours = None
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) or not 0 < hours < 1e6:
        hours = None
    deadline = deadlines.limit(game)
    if deadline is not None and timeout_hours(game) is None:
        hours = deadline / 2 if hours is None else min(hours, deadline / 2)
    if hours is None:
        return None
    try:
        return (datetime.fromisoformat(time) + timedelta(hours=hours)).isoformat(timespec="milliseconds")
    except (ValueError, OverflowError):
        return time  # an odd time: due at once, and the loop decides


def _inflated(row: Any, at: int = 6) -> Any:
    """On the connection's thread: ``row`` with its state (column ``at``) decompressed to text, so
    the event loop only parses it (zlib lets go of the GIL while it works; issue 14: the loop's
    CPU per command). Text stays text (a state written before schema 7)."""
    if row is None or not isinstance(row[at], bytes):
        return row
    return (*row[:at], zlib.decompress(row[at]).decode("utf-8"), *row[at + 1:])


def _game_row(conn: Connection, sql: str, params: tuple[Any, ...], kept: KeptGames | None = None) -> Any:
    """One game's row on the connection's thread: with the Game its last write kept (``kept``) when
    the row is still that write's, else its state decompressed (``_inflated``)."""
    row = _fetchone(conn, sql, params)
    if kept is not None:
        row = kept.row(row)
    return _inflated(row)


_HEAD_BY_SEQ_SQL = "SELECT order_json, dice_proof FROM log_entries WHERE game_id = ? AND seq = ?"
_HEAD_SQL = _HEAD_BY_SEQ_SQL + " AND hash = ?"


def _head_row(conn: Connection, game_id: int, seq: int, head_hash: str) -> Any:
    """``StoredGame.head`` of a game row, on the connection's thread: its newest entry's order and
    dice proof (None without that entry: the default reads it again, with ``head_dice``)."""
    found = _order_and_proof(_fetchone(conn, _HEAD_SQL, (game_id, seq, head_hash)))
    return None if found is None else (seq, head_hash, *found)


def _head_seed(conn: Connection, head: Any) -> tuple[str, bytes] | None:
    """``StoredGame.seed``, on the connection's thread: the held secret of the dice commitment in
    force after ``head`` (``_head_row``'s), or None (no proof, no commitment, the secret not held)."""
    if head is None or head[3] is None:
        return None
    commitment = state_after(head[2], head[3], head[0]).commitment
    if not isinstance(commitment, str):
        return None
    found = _fetchone(conn, "SELECT secret FROM held_secrets WHERE commitment = ?", (commitment,))
    return None if found is None else (commitment, bytes(found[0]))


def _order_and_proof(row: Any) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """An entry's (order_json, dice_proof) columns read back (None: no such entry)."""
    if row is None:
        return None
    return json.loads(row[0]), None if row[1] is None else json.loads(row[1])


def _stored(row: Any, head: Any = None, seed: tuple[str, bytes] | None = None) -> StoredGame:
    """A game row as a StoredGame: its state parsed, or the kept Game in its place (``KeptGames.row``);
    ``head``: its newest entry's, when read with it (``_head_row``), and ``seed`` the turn's seed."""
    state = row[6]
    return StoredGame(id=row[0], channel_id=row[1], guild_id=row[2], ruleset=row[3], status=row[4],
                      created_at=row[5], game=state if isinstance(state, Game) else unpack_state(state),
                      last_seq=row[7], head_hash=row[8], head=head, seed=seed)


def _entry(row: Any) -> LogEntry:
    return LogEntry(game_id=row[0], seq=row[1], time=row[2], actor=row[3], command=row[4],
                    order=json.loads(row[5]), dice=json.loads(row[6]), manual=bool(row[7]),
                    outcome=unpack_json(row[8]), state_hash=row[9], prev_hash=row[10], hash=row[11],
                    interaction_id=row[12], **({"rules_version": row[13]} if len(row) > 13 else {}),
                    **({"dice_proof": json.loads(row[14])} if len(row) > 14 and row[14] is not None else {}))


def _row_head(row: Any) -> tuple[int, dict]:
    """An entry's actor and order from its row, without decoding the rest (``EntryRows.head``)."""
    return row[3], json.loads(row[5])


def _entry_params(entry: LogEntry, *, pack: Callable[[str], bytes] | None = pack_json) -> tuple[Any, ...]:
    """An entry's row. ``pack``: how the outcome is stored (None: as TEXT, before schema 4)."""
    # the order stays TEXT: it is small, and undone() reads its fields with json_extract
    outcome = entry.outcome_json()  # the text its hash covered, encoded once (issue 5)
    return (entry.game_id, entry.seq, entry.time, entry.actor, entry.command,
            canonical_json(entry.order), canonical_json(list(entry.dice)), int(entry.manual),
            outcome if pack is None else pack(outcome), entry.state_hash, entry.prev_hash, entry.hash,
            entry.interaction_id, entry.rules_version,
            None if entry.dice_proof is None else canonical_json(entry.dice_proof))


Connection = sqlite3.Connection  # what a function run on the connection's thread receives


def _in_group(conn: Connection, works: list[Callable[[Connection], Any]]) -> list[tuple[bool, Any]]:
    """Group commit (see the module's docstring), on the connection's thread: BEGIN IMMEDIATE,
    each work in its own SAVEPOINT, one COMMIT. Returns (True, result) or (False, the exception)
    per work, in order; a work that fails is rolled back to its savepoint, alone. An error that
    ends the transaction itself (the COMMIT failing, SQLite rolling everything back on an I/O
    error) rolls all of it back and is raised: then no work of the group was kept."""
    conn.execute("BEGIN IMMEDIATE")
    done: list[tuple[bool, Any]] = []
    try:
        for work in works:
            conn.execute("SAVEPOINT command")
            try:
                result = work(conn)
            except Exception as exc:
                if not conn.in_transaction:  # SQLite gave up the whole transaction: nothing is kept
                    raise
                conn.execute("ROLLBACK TO command")
                conn.execute("RELEASE command")
                done.append((False, exc))
            else:
                conn.execute("RELEASE command")
                done.append((True, result))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return done


def _error_code(exc: sqlite3.Error) -> int:
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF  # the primary code of an extended one


def _is_busy(exc: sqlite3.Error) -> bool:
    return _error_code(exc) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "database is locked" in str(exc)


def storage_fault(exc: sqlite3.Error) -> StorageUnavailable | None:
    """The players' side of a write the database could not take, or None for anything else."""
    if _error_code(exc) == sqlite3.SQLITE_FULL or "database or disk is full" in str(exc):
        return StorageUnavailable("The bot's disk is full, so this order was not saved (nothing changed). The "
                                  "bot's host has been told; give the order again once there is room.", "full")
    if _is_busy(exc):
        return StorageUnavailable("The game's database is busy with another program (a backup?), so this order was "
                                  f"not saved after {LOCK_RETRY_SECONDS:g} s of trying (nothing changed): give it "
                                  "again in a minute.", "locked")
    return None


def unusable(path: str | Path, exc: sqlite3.Error) -> str:
    """One line: which file, what is wrong with it, what to do."""
    code, what = _error_code(exc), str(exc)
    if code == sqlite3.SQLITE_NOTADB:
        return (f"database {path} is not an SQLite database ({what}): set REFEREE_DATABASE to the bot's "
                "database, or move this file away to start with an empty one")
    if code == sqlite3.SQLITE_CORRUPT or "malformed" in what or "quick_check" in what:
        return (f"database {path} is damaged ({what}): restore it from a backup (or try `sqlite3 {path} "
                "'.recover'` into a new file); the bot does not start on a damaged log")
    if code == sqlite3.SQLITE_READONLY:
        return (f"database {path} is read-only for the bot ({what}): let the bot's user write the file and its "
                "folder (SQLite writes -wal and -shm files beside it)")
    if code == sqlite3.SQLITE_CANTOPEN:
        return (f"database {path} cannot be opened ({what}): check the path, and that the bot's user may read "
                "and write there")
    if code == sqlite3.SQLITE_FULL:
        return f"database {path} cannot be written: the disk is full ({what}); free some space"
    return f"database {path} cannot be used ({what}): check the file, or restore it from a backup"


def _file_problem(exc: sqlite3.Error) -> bool:
    return _error_code(exc) in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_READONLY,
                                sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR) \
        or "malformed" in str(exc) or "quick_check" in str(exc)


async def _quick_check(db: aiosqlite.Connection) -> None:
    """PRAGMA quick_check (every page's structure, not the indexes' content): raise a
    DatabaseError naming the first problem when it is not "ok"."""
    async with db.execute("PRAGMA quick_check(3)") as cursor:
        found = [" ".join(str(row[0]).split()) for row in await cursor.fetchall()]  # one line
    if found != ["ok"]:
        raise sqlite3.DatabaseError(f"PRAGMA quick_check: {'; '.join(found)}")


def _fetchone(conn: Connection, sql: str, params: tuple[Any, ...]) -> Any:
    cursor = conn.execute(sql, params)
    try:
        return cursor.fetchone()
    finally:
        cursor.close()  # now, not when collected: an unfinished statement keeps a read open


def _fetchall(conn: Connection, sql: str, params: tuple[Any, ...]) -> list[Any]:
    return conn.execute(sql, params).fetchall()


class SqliteStore(Store):
    def __init__(self, db: aiosqlite.Connection, *, max_entries: int = MAX_LOG_ENTRIES,
                 entry_columns: str = _ENTRY_COLUMNS,
                 pack_outcomes: Callable[[str], bytes] | None = pack_json,
                 track_unshown: bool = True, reader: aiosqlite.Connection | None = None,
                 checkpoint_every: int | None = CHECKPOINT_EVERY, track_seats: bool = True,
                 keeps_away: bool = True, keeps_notify: bool = True):
        self.keeps_away = keeps_away  # schema 11 on: the away table (migrations/0011_away.sql)
        self.keeps_notify = keeps_notify  # schema 12 on: the notify table (migrations/0012_notify.sql)
        self._db = db  # the writer (and every read of a memory database)
        self._reader = reader or db  # reads: their own thread, never queued behind a write's wait
        # schema 5 on: an entry made by an interaction is listed as unshown until its reply is out
        self.track_unshown = track_unshown
        self._shown: list[tuple[int, int]] = []  # (game, seq) seen: taken off with the next write
        self._shown_flush: asyncio.TimerHandle | None = None
        self._entry_columns = entry_columns
        # False writes outcomes as plain TEXT, as the bots of schema 3 and before did: a store
        # held at such a schema, and the storage benchmark's "before"; a reader takes either
        self.pack_outcomes = pack_outcomes
        self.holds_secrets = entry_columns == _ENTRY_COLUMNS  # schema 8 on (migrations/0008_committed_dice.sql)
        # only for what takes several trips to the thread (the schema version, close); every
        # other operation is a single trip and needs no lock (see the module's docstring)
        self._lock = asyncio.Lock()
        self.max_entries = max_entries
        # a checkpoint every this many entries (migrations/0007); None: none (a store held at an
        # earlier schema)
        self.checkpoint_every = checkpoint_every
        self.track_seats = track_seats  # schema 10 on: the seats index (migrations/0010_seats.sql)
        # group commit: the writes waiting for the next transaction, and the task committing them
        self._queued: list[tuple[Callable[[Connection], Any], asyncio.Future[Any]]] = []
        self._committing: asyncio.Task[None] | None = None
        self.kept = KeptGames()  # the Game each game's newest write saved, for its next command

    @classmethod
    async def open(cls, path: str | Path, *, max_entries: int = MAX_LOG_ENTRIES,
                   upto: int | None = None, checkpoint_every: int = CHECKPOINT_EVERY) -> SqliteStore:
        """Open (creating it and its folder if needed), check and migrate the database at ``path``.
        ``upto`` stops at an earlier schema version: the migration tests use it. A file that
        cannot serve (not a database, damaged, read-only, unreachable) raises DatabaseUnusable:
        one line naming the file and what to do."""
        try:
            if str(path) != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            return await cls._open(path, max_entries=max_entries, upto=upto, checkpoint_every=checkpoint_every)
        except sqlite3.DatabaseError as exc:
            if not _file_problem(exc):
                raise  # not the file's fault (a migration's own error): as it is
            raise DatabaseUnusable(unusable(path, exc)) from None
        except OSError as exc:
            raise DatabaseUnusable(f"database {path} cannot be created: {exc.strerror or exc}; make its "
                                   "folder writable by the bot, or set REFEREE_DATABASE to another path") from None

    @classmethod
    async def _open(cls, path: str | Path, *, max_entries: int, upto: int | None,
                    checkpoint_every: int) -> SqliteStore:
        # isolation_level=None: no implicit transactions; every write says BEGIN IMMEDIATE itself
        db = await aiosqlite.connect(str(path), isolation_level=None)
        reader: aiosqlite.Connection | None = None
        try:
            await db.execute(f"PRAGMA busy_timeout = {START_BUSY_TIMEOUT_MS}")
            await _quick_check(db)  # a damaged page is found now, not mid-game
            await db.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit is on disk before the player sees the result (a restart loses nothing)
            await db.execute("PRAGMA synchronous = FULL")
            await db.execute("PRAGMA foreign_keys = ON")
            before = await schema_version(db)
            reached = await migrate(db, upto=upto)
            if before < SEATS_SCHEMA <= reached and before > 0:
                await _seat_every_game(db)  # a database older than the seats index: its games read once
            # may the bot write here? (SQLite opens a file it may not write read-only, silently,
            # and a migrated database writes nothing at start-up: ask now, not at the first order)
            await db.execute("BEGIN IMMEDIATE")
            try:
                await db.execute("CREATE TABLE write_probe (x)")  # rolled back: nothing is kept
            finally:
                await db.execute("ROLLBACK")
            await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            columns = _ENTRY_COLUMNS
            pack = (pack_json if upto is None or upto >= DICTIONARY_SCHEMA else
                    pack_plain if upto >= COMPRESSED_OUTCOMES_SCHEMA else None)
            if upto is not None:
                async with db.execute("PRAGMA table_info(log_entries)") as cursor:
                    present = {row[1] for row in await cursor.fetchall()}
                if "rules_version" not in present:
                    columns = _ENTRY_COLUMNS_BEFORE_3
                elif "dice_proof" not in present:
                    columns = _ENTRY_COLUMNS_BEFORE_8
            if str(path) != ":memory:":  # a memory database is one connection's own
                reader = await aiosqlite.connect(str(path), isolation_level=None)
                await reader.execute(f"PRAGMA busy_timeout = {START_BUSY_TIMEOUT_MS}")
                await reader.execute("PRAGMA query_only = ON")
        except BaseException:
            if reader is not None:
                await reader.close()
            await db.close()
            raise
        return cls(db, max_entries=max_entries, entry_columns=columns, pack_outcomes=pack,
                   track_unshown=upto is None or upto >= UNSHOWN_SCHEMA, reader=reader,
                   checkpoint_every=checkpoint_every if upto is None or upto >= CHECKPOINTS_SCHEMA else None,
                   track_seats=upto is None or upto >= SEATS_SCHEMA,
                   keeps_away=upto is None or upto >= AWAY_SCHEMA,
                   keeps_notify=upto is None or upto >= NOTIFY_SCHEMA)

    async def close(self) -> None:
        async with self._lock:
            if self._shown_flush is not None:
                self._shown_flush.cancel()
            if self._shown and self._committing is None:  # the results seen, off the list
                await asyncio.gather(self._transact(lambda conn: None), return_exceptions=True)
            if self._committing is not None:  # writes already queued are committed first
                await asyncio.gather(self._committing, return_exceptions=True)
            if self._reader is not self._db:
                await self._reader.close()
            await self._db.close()

    async def version(self) -> int:
        async with self._lock:
            return await schema_version(self._db)

    # --- one trip to the connection's thread per operation ---

    async def _on_thread(self, work: Callable[..., Any], *args: Any, db: aiosqlite.Connection | None = None) -> Any:
        """``work(conn, *args)`` on the connection's thread (the writer's unless ``db`` says),
        queued behind the calls before it. aiosqlite's ``_execute`` is the one hand-over all its
        own methods use; it is used here (and only here) to run a whole read or transaction in one
        trip. It is private: pyproject.toml pins aiosqlite exactly, and tests/store/
        test_aiosqlite_contract.py fails if a release changes what this relies on."""
        db = db or self._db
        return await db._execute(lambda: work(db._conn, *args))

    async def _read(self, work: Callable[..., Any], *args: Any) -> Any:
        """``work(conn, *args)`` on the reading connection's thread."""
        return await self._on_thread(work, *args, db=self._reader)

    async def _transact(self, work: Callable[[Connection], Any]) -> Any:
        """``work(conn)`` inside a write transaction, committed before this returns; shared with
        the other writes queued meanwhile (group commit, see the module's docstring)."""
        future = asyncio.get_running_loop().create_future()
        self._queued.append((work, future))
        if self._committing is None:
            self._committing = asyncio.create_task(self._commit_queued())
            self._committing.add_done_callback(self._committer_ended)
        try:
            return await future
        except sqlite3.OperationalError as exc:
            fault = storage_fault(exc)
            if fault is None:
                raise
            raise fault from None

    def _committer_ended(self, task: asyncio.Task[None]) -> None:
        """Runs however the committing task ended. Its own ``finally`` lets go of the queue, except
        when it was cancelled before its first step (none of its code ran): then its writers are
        cancelled here, so none waits for a task that is gone."""
        if self._committing is not task:  # it ended on its own, or a newer task has the queue
            return
        self._committing = None
        for _, future in self._queued:
            future.cancel()
        self._queued.clear()

    async def _commit_queued(self) -> None:
        """Commit what is queued, a group at a time, until the queue is empty. A caller cancelled
        meanwhile is not waited for, but its write still goes in whole (as a lone write would:
        the thread runs it to its COMMIT)."""
        try:
            while self._queued:
                group, self._queued = self._queued[:MAX_GROUP], self._queued[MAX_GROUP:]
                shown, self._shown = self._shown, []
                works = [work for work, _ in group]
                if shown:  # results seen since the last write go off the unshown list with this one
                    works.insert(0, lambda conn, shown=shown: conn.executemany(
                        "DELETE FROM unshown_entries WHERE game_id = ? AND seq = ?", shown))
                try:
                    done = await self._group_with_retries(works)
                    done = done[1:] if shown else done
                except asyncio.CancelledError:
                    # this task was cancelled (the loop is shutting down): the thread still runs the
                    # group to its COMMIT or ROLLBACK, as it would for a lone write's cancelled caller;
                    # its writers are cancelled with it, and the writes not yet sent are dropped
                    for _, future in group + self._queued:
                        future.cancel()
                    self._queued.clear()
                    raise
                except BaseException as exc:  # the transaction failed as a whole: no write was kept
                    self._shown[:0] = shown
                    for _, future in group:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, future), (ok, value) in zip(group, done):
                    if future.done():  # its caller was cancelled
                        continue
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
        finally:
            self._committing = None  # at once: a write queued from now on starts a new task

    async def _group_with_retries(self, works: list[Callable[[Connection], Any]]) -> list[tuple[bool, Any]]:
        """One group commit; while another process holds the write lock (SQLITE_BUSY: the group
        was not begun, nothing of it applied), try again after a pause that doubles, off the
        thread so reads and other work go on, for LOCK_RETRY_SECONDS in all."""
        loop = asyncio.get_running_loop()
        started, pause = loop.time(), LOCK_RETRY_FIRST_PAUSE
        while True:
            try:
                return await self._on_thread(_in_group, works)
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or loop.time() - started + pause > LOCK_RETRY_SECONDS:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, LOCK_RETRY_LONGEST_PAUSE)

    async def _fetchone(self, sql: str, params: tuple[Any, ...]) -> Any:
        return await self._read(_fetchone, sql, params)

    async def _fetchall(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return await self._read(_fetchall, sql, params)

    # --- games ---

    async def load_active(self, channel_id: int) -> StoredGame | None:
        row = await self._read(
            _game_row, f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,),
            self.kept)
        return _stored(row) if row else None

    async def load_latest(self, channel_id: int) -> StoredGame | None:
        row = await self._read(
            _game_row, f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? "
            "ORDER BY status = 'active' DESC, id DESC LIMIT 1", (channel_id,), self.kept)
        return _stored(row) if row else None

    async def load_game(self, game_id: int) -> StoredGame | None:
        row = await self._read(_game_row, f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,), self.kept)
        return _stored(row) if row else None

    async def load_for_command(self, channel_id: int, interaction_id: int | None, *,
                               head_for: HeadFor | None = None) -> tuple[LogEntry | None, StoredGame | None]:
        """One trip: the entry already logged for ``interaction_id`` with its game, else the
        channel's active game (or None), with its newest entry's order and dice proof when
        ``head_for`` asks for them (the dice state of a game the service has not seen since it
        started: issue 14, one trip to the database thread a command fewer), and then the held
        secret of the dice commitment in force after that entry (the turn's seed: one more)."""
        entry_sql = f"SELECT {self._entry_columns} FROM log_entries WHERE interaction_id = ?"
        kept = self.kept
        head_for = head_for if self.holds_secrets else None  # before schema 8: no dice_proof column

        def read(conn: Connection) -> tuple[Any, Any, Any, Any]:
            if interaction_id is not None:
                logged = _fetchone(conn, entry_sql, (interaction_id,))
                if logged is not None:
                    return logged, _game_row(conn, f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?",
                                             (logged[0],), kept), None, None
            row = _game_row(conn, f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? "
                            "AND status = 'active'", (channel_id,), kept)
            if row is not None and head_for is not None and head_for(row[0], row[7], row[8]):
                head = _head_row(conn, row[0], row[7], row[8])
                return None, row, head, _head_seed(conn, head)
            return None, row, None, None

        logged, game, head, seed = await self._read(read)
        return (_entry(logged) if logged else None), (_stored(game, head, seed) if game else None)

    async def create_game(self, channel_id: int, guild_id: int | None, game: Game,
                          first_entry: FirstEntries) -> tuple[StoredGame, LogEntry]:
        state, created_at = self._state(game), _utc_now()
        sealed: list[LogEntry] = []

        def create(conn: Connection) -> LogEntry:
            cursor = conn.execute(
                "INSERT INTO games (channel_id, guild_id, ruleset, created_at, state, head_hash) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (channel_id, guild_id, game.ruleset, created_at,
                 pack_state(state) if isinstance(state, SavedState) else state, GENESIS_HASH))
            game_id = cursor.lastrowid
            # sealed here, inside the transaction: the entries' hashes cover the new game's id
            sealed.extend(creation_entries(first_entry(game_id), self.max_entries))
            for entry in sealed:
                self._insert_entry(conn, entry)
            last = sealed[-1]
            conn.execute(f"UPDATE games SET last_seq = ?, head_hash = ?{self._remind_column} WHERE id = ?",
                         (last.seq, last.hash, *self._remind_param(game, last), game_id))
            if self.track_seats and seated(game):
                _seat(conn, game_id, game)
            return last

        try:
            last = await self._transact(create)
        except sqlite3.IntegrityError as exc:
            raise self._integrity(exc, entry_interaction=sealed[0].interaction_id if sealed else None) from None
        finally:
            release_state(game)  # the row was written before the entries were sealed (bot/record/chain.py)
        # the row just committed, without reading it back
        return StoredGame(id=last.game_id, channel_id=channel_id, guild_id=guild_id, ruleset=game.ruleset,
                          status="active", created_at=created_at, game=game, last_seq=last.seq,
                          head_hash=last.hash), sealed[0]

    async def _write(self, stored: StoredGame, game: Game, entry: LogEntry, *, end: bool,
                     also: Callable[[Connection], None] | None = None) -> StoredGame:
        """State + entry (+ ``also``, more of the same command) in one transaction, one trip."""
        # the closing entry may go one past the cap, so a full game can always be ended
        if entry.seq > self.max_entries + (1 if end else 0):
            raise LogFull(f"the log holds {self.max_entries} entries, the most one game may have")
        state = self._state(game)
        written: list[bytes | str] = []  # the state's column as written (for ``kept``)
        reseat = self.track_seats and seated(stored.game) != seated(game)  # a join, a leave, an undo of one

        def write(conn: Connection) -> None:
            packed = pack_state(state) if isinstance(state, SavedState) else state  # zlib here, off the event loop
            written.append(packed)
            # the WHERE is an optimistic lock: it matches only if nobody wrote since the load
            cursor = conn.execute(
                f"UPDATE games SET state = ?, last_seq = ?, head_hash = ?{self._remind_column}, "
                "status = CASE WHEN ? THEN 'ended' ELSE status END, "
                "ended_at = CASE WHEN ? THEN ? ELSE ended_at END "
                "WHERE id = ? AND status = 'active' AND last_seq = ? AND head_hash = ?",
                (packed, entry.seq, entry.hash, *self._remind_param(game, entry), end, end, entry.time,
                 stored.id, entry.seq - 1, entry.prev_hash))
            if cursor.rowcount != 1:
                raise StaleGame(f"game {stored.id} changed since it was loaded")
            self._insert_entry(conn, entry)
            if reseat:
                _seat(conn, stored.id, game)
            if also is not None:
                also(conn)
            self._checkpoint(conn, stored.id, entry, packed)

        try:
            await self._transact(write)
        except sqlite3.IntegrityError as exc:
            self.kept.forget(stored.id)
            raise self._integrity(exc, entry_interaction=entry.interaction_id) from None
        except BaseException:
            self.kept.forget(stored.id)
            raise
        self.kept.keep(stored.id, entry.seq, entry.hash, written[-1], game)
        return StoredGame(id=stored.id, channel_id=stored.channel_id, guild_id=stored.guild_id,
                          ruleset=stored.ruleset, status="ended" if end else stored.status,
                          created_at=stored.created_at, game=game,
                          last_seq=entry.seq, head_hash=entry.hash)

    async def reopen_game(self, stored: StoredGame, entry: LogEntry) -> StoredGame:
        if entry.seq > self.max_entries + 1:
            raise LogFull(f"the log holds {self.max_entries} entries, the most one game may have")

        def write(conn: Connection) -> None:
            cursor = conn.execute(
                "UPDATE games SET status = 'active', ended_at = NULL, last_seq = ?, head_hash = ? "
                "WHERE id = ? AND status = 'ended' AND last_seq = ? AND head_hash = ?",
                (entry.seq, entry.hash, stored.id, entry.seq - 1, entry.prev_hash))
            if cursor.rowcount != 1:
                raise StaleGame(f"game {stored.id} changed since it was loaded")
            self._insert_entry(conn, entry)

        self.kept.forget(stored.id)
        try:
            await self._transact(write)
        except sqlite3.IntegrityError as exc:
            raise self._integrity(exc, entry_interaction=entry.interaction_id) from None
        return StoredGame(id=stored.id, channel_id=stored.channel_id, guild_id=stored.guild_id,
                          ruleset=stored.ruleset, status="active", created_at=stored.created_at, game=stored.game,
                          last_seq=entry.seq, head_hash=entry.hash)

    def _insert_entry(self, conn: Connection, entry: LogEntry) -> None:
        """On the connection's thread, inside the caller's transaction."""
        count = self._entry_columns.count(",") + 1
        conn.execute(f"INSERT INTO log_entries ({self._entry_columns}) VALUES ({', '.join('?' * count)})",
                     _entry_params(entry, pack=self.pack_outcomes)[:count])
        if self.track_unshown and entry.interaction_id is not None:
            conn.execute("INSERT INTO unshown_entries (game_id, seq, channel_id) "
                         "SELECT id, ?, channel_id FROM games WHERE id = ?", (entry.seq, entry.game_id))

    @property
    def _remind_column(self) -> str:
        return ", remind_due = ?" if self.checkpoint_every is not None else ""  # schema 7 on

    def _remind_param(self, game: Game, entry: LogEntry) -> tuple[str | None, ...]:
        return (remind_due(game, entry.time),) if self.checkpoint_every is not None else ()

    def _state(self, game: Game) -> SavedState | str:
        """The state as this store writes it: encoded once per command (from the dump its entry's
        state hash covered), to be compressed (``pack_state``); the Game's JSON text in a store held
        at an earlier schema."""
        return saved_state(game, take=True) if self.checkpoint_every is not None else game.model_dump_json()

    def _checkpoint(self, conn: Connection, game_id: int, entry: LogEntry, state: str | bytes) -> None:
        """On the connection's thread, inside the entry's transaction: the state after ``entry``
        as a checkpoint, when it is ``checkpoint_every`` entries past the game's last one (a game
        logged before checkpoints existed gets its first with its next entry)."""
        every = self.checkpoint_every
        if every is None:
            return
        last = _fetchone(conn, "SELECT seq, live FROM checkpoints WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                         (game_id,))
        since = last[0] if last else 0
        if entry.seq - since < every:
            return
        kept = _live(last[1]) if last else {"top": [], "whole": True}
        rows = conn.execute("SELECT seq, json_extract(order_json, '$.action'), json_extract(order_json, '$.undoes') "
                            "FROM log_entries WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
                            (game_id, since, entry.seq)).fetchall()
        # deep enough for every undo among the entries up to the next checkpoint
        top, whole = advance_live(kept["top"], kept["whole"], rows, keep=every + 1)
        conn.execute("INSERT INTO checkpoints (game_id, seq, state, live) VALUES (?, ?, ?, ?)",
                     (game_id, entry.seq, state, canonical_json({"runs": _runs(top), "whole": whole})))

    async def checkpoint_before(self, game_id: int, seq: int) -> Checkpoint | None:
        if self.checkpoint_every is None:
            return None
        entry_sql = f"SELECT {self._entry_columns} FROM log_entries WHERE game_id = ? AND seq = ?"

        def read(conn: Connection) -> Any:
            found = _fetchone(conn, "SELECT seq, state, live FROM checkpoints WHERE game_id = ? AND seq <= ? "
                              "ORDER BY seq DESC LIMIT 1", (game_id, seq))
            if found is None:
                return None
            live = _live(found[2])
            top = live["top"]
            hashes = dict(conn.execute("SELECT seq, state_hash FROM log_entries WHERE game_id = ? AND seq >= ? "
                                       "AND seq <= ?", (game_id, top[0], top[-1])).fetchall()) if top else {}
            return found[1], live, hashes, _fetchone(conn, entry_sql, (game_id, found[0]))

        found = await self._read(read)
        if found is None or found[3] is None:
            return None
        state, live, hashes, entry = found
        if any(seq not in hashes for seq in live["top"]):
            return None  # the log lacks an entry the checkpoint names: replay from entry 1
        try:
            game = unpack_state(state)
        except (ValueError, zlib.error):
            return None  # not a state this bot wrote: replay from entry 1
        return Checkpoint(state=game, entry=_entry(entry), top=tuple((seq, hashes[seq]) for seq in live["top"]),
                          whole=bool(live["whole"]))

    # --- results saved but not yet seen (migrations/0005_unshown_entries.sql) ---

    async def entry_shown(self, game_id: int, seq: int) -> None:
        """The entry's result reached the channel. It goes off the unshown list with the next
        write (no fsync of its own per command), or within a second when no write comes; a crash
        before that makes the restarted bot post it once more, which says so."""
        if not self.track_unshown:
            return
        self._shown.append((game_id, seq))
        if self._shown_flush is None:
            self._shown_flush = asyncio.get_running_loop().call_later(SHOWN_FLUSH_SECONDS, self._flush_shown)

    def _flush_shown(self) -> None:
        self._shown_flush = None
        if self._shown and self._committing is None:
            task = asyncio.ensure_future(self._transact(lambda conn: None))  # a write of nothing but the list
            # logged by whoever reads; never raised here
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def unshown_entries(self, limit: int = 100, *, before: datetime | None = None,
                              shards: Shards | None = None) -> list[tuple[int, LogEntry]]:
        """(channel, entry) of results saved but never seen, oldest first; ``before`` and ``shards``
        filter in the query (the times compared as times: julianday reads the offset)."""
        if not self.track_unshown:
            return []
        columns = ", ".join("e." + c.strip() for c in self._entry_columns.split(","))
        where, params = [], []
        if before is not None:
            where.append("julianday(e.time) < julianday(?)")
            params.append(before.isoformat())
        if shards is not None:
            where.append(f"((coalesce(g.guild_id, 0) >> 22) % ?) IN ({', '.join('?' * len(shards.ids))})")
            params += [shards.count, *shards.ids]
        rows = await self._fetchall(
            f"SELECT u.channel_id, {columns} FROM unshown_entries u "
            "JOIN log_entries e ON e.game_id = u.game_id AND e.seq = u.seq JOIN games g ON g.id = u.game_id"
            f"{' WHERE ' + ' AND '.join(where) if where else ''} ORDER BY e.time, e.seq LIMIT ?", (*params, limit))
        return [(row[0], _entry(row[1:])) for row in rows]

    @staticmethod
    def _integrity(exc: sqlite3.IntegrityError, *, entry_interaction: int | None) -> Exception:
        text = str(exc)
        if "log_entries.interaction_id" in text and entry_interaction is not None:
            return DuplicateInteraction(entry_interaction)
        if "games.channel_id" in text:
            return ActiveGameExists("the channel already has an active game")
        return exc

    # --- the log ---

    async def entries(self, game_id: int, *, after_seq: int = 0, limit: int = 50) -> list[LogEntry]:
        rows = await self._fetchall(
            f"SELECT {self._entry_columns} FROM log_entries WHERE game_id = ? AND seq > ? "
            "ORDER BY seq LIMIT ?", (game_id, after_seq, limit))
        return [_entry(row) for row in rows]

    async def head_dice(self, game_id: int, seq: int) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        if not self.holds_secrets:  # before schema 8: no dice_proof column
            return await super().head_dice(game_id, seq)
        return await self._read(lambda conn: _order_and_proof(_fetchone(conn, _HEAD_BY_SEQ_SQL, (game_id, seq))))

    async def entry_rows(self, game_id: int, *, after_seq: int = 0, limit: int = 50) -> EntryRows:
        # the rows as sqlite3 gives them (numbers, text, compressed bytes): decoded by the worker
        rows = await self._fetchall(
            f"SELECT {self._entry_columns} FROM log_entries WHERE game_id = ? AND seq > ? "
            "ORDER BY seq LIMIT ?", (game_id, after_seq, limit))
        return EntryRows([tuple(row) for row in rows], rows[-1][1] if rows else None, _entry, _row_head)

    async def entry_by_interaction(self, interaction_id: int) -> LogEntry | None:
        row = await self._fetchone(
            f"SELECT {self._entry_columns} FROM log_entries WHERE interaction_id = ?", (interaction_id,))
        return _entry(row) if row else None

    # --- moving a server between stores ---

    async def game_ids(self) -> list[int]:
        return [row[0] for row in await self._fetchall("SELECT id FROM games ORDER BY id")]

    async def undo_requests(self, game_id: int) -> list[UndoRequest]:
        rows = await self._fetchall(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE game_id = ? ORDER BY id",
                                    (game_id,))
        return [_undo(row) for row in rows]

    async def game_extras(self, game_id: int) -> GameExtras:
        def read(conn: Connection) -> GameExtras:
            reminded = _fetchone(conn, "SELECT seq, sent_at FROM pacing_reminders WHERE game_id = ?", (game_id,))
            unshown = _fetchall(conn, "SELECT seq, channel_id FROM unshown_entries WHERE game_id = ? ORDER BY seq",
                                (game_id,)) if self.track_unshown else []
            checkpoints = _fetchall(conn, "SELECT seq, state, live FROM checkpoints WHERE game_id = ? ORDER BY seq",
                                    (game_id,)) if self.checkpoint_every is not None else []
            return GameExtras(reminded=tuple(reminded) if reminded else None, unshown=tuple(map(tuple, unshown)),
                              checkpoints=tuple((seq, bytes(state), live) for seq, state, live in checkpoints))

        return await self._read(read)

    async def restore_game(self, stored: StoredGame, entries: list[LogEntry], undos: list[UndoRequest],
                           extras: GameExtras = GameExtras()) -> None:
        ended_at = entries[-1].time if stored.status == "ended" and entries else None
        count = self._entry_columns.count(",") + 1

        def restore(conn: Connection) -> None:
            if _fetchone(conn, "SELECT 1 FROM games WHERE id = ?", (stored.id,)) is not None:
                raise StoreError(f"game {stored.id} already exists in the target database")
            conn.execute(f"INSERT INTO games ({_GAME_COLUMNS}, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (stored.id, stored.channel_id, stored.guild_id, stored.ruleset, stored.status,
                          stored.created_at, stored.game.model_dump_json(), stored.last_seq, stored.head_hash,
                          ended_at))
            conn.executemany(f"INSERT INTO log_entries ({self._entry_columns}) VALUES ({', '.join('?' * count)})",
                             [_entry_params(entry, pack=self.pack_outcomes)[:count] for entry in entries])
            conn.executemany(f"INSERT INTO undo_requests ({_UNDO_COLUMNS}) VALUES ({', '.join('?' * 15)})",
                             [_undo_params(undo) for undo in undos])
            if extras.reminded is not None:
                conn.execute("INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES (?, ?, ?)",
                             (stored.id, *extras.reminded))
            if self.track_seats:
                _seat(conn, stored.id, stored.game)
            if self.track_unshown:
                conn.executemany("INSERT INTO unshown_entries (game_id, seq, channel_id) VALUES (?, ?, ?)",
                                 [(stored.id, seq, channel) for seq, channel in extras.unshown])
            if self.checkpoint_every is not None:
                conn.executemany("INSERT INTO checkpoints (game_id, seq, state, live) VALUES (?, ?, ?, ?)",
                                 [(stored.id, *checkpoint) for checkpoint in extras.checkpoints])
                if stored.status == "active" and entries and (
                        extras.reminded is None or extras.reminded[0] != stored.last_seq):
                    # due for a reminder as it would be had its last entry been written here, unless it
                    # was reminded of this silence already (schema 7)
                    conn.execute("UPDATE games SET remind_due = ? WHERE id = ?",
                                 (remind_due(stored.game, entries[-1].time), stored.id))

        self.kept.forget(stored.id)
        try:
            await self._transact(restore)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"game {stored.id} cannot be copied here: {exc}") from None

    # --- undo by consent ---

    async def create_undo(self, request: UndoRequest) -> UndoRequest:
        def insert(conn: Connection) -> int:
            return conn.execute(
                f"INSERT INTO undo_requests ({_UNDO_COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _undo_params(request)[1:]).lastrowid

        try:
            request_id = await self._transact(insert)
        except sqlite3.IntegrityError as exc:
            if "undo_requests.interaction_id" in str(exc) and request.interaction_id is not None:
                raise DuplicateInteraction(request.interaction_id) from None
            raise
        return UndoRequest(**{**request.__dict__, "id": request_id})

    async def undo_request(self, request_id: int) -> UndoRequest | None:
        row = await self._fetchone(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE id = ?", (request_id,))
        return _undo(row) if row else None

    async def undo_by_interaction(self, interaction_id: int) -> UndoRequest | None:
        row = await self._fetchone(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE interaction_id = ?",
                                   (interaction_id,))
        return _undo(row) if row else None

    async def pending_undo(self, game_id: int) -> UndoRequest | None:
        row = await self._fetchone(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE game_id = ? AND "
                                   "status = 'pending' ORDER BY id DESC LIMIT 1", (game_id,))
        return _undo(row) if row else None

    async def settle_undo(self, request_id: int, status: UndoStatus, answered_by: int | None,
                          answered_at: str) -> bool:
        def settle(conn: Connection) -> bool:
            return conn.execute(
                "UPDATE undo_requests SET status = ?, answered_by = ?, answered_at = ? "
                "WHERE id = ? AND status = 'pending'", (status, answered_by, answered_at, request_id)).rowcount == 1

        return await self._transact(settle)

    async def set_undo_message(self, request_id: int, channel_id: int, message_id: int) -> None:
        await self._transact(lambda conn: conn.execute(
            "UPDATE undo_requests SET channel_id = ?, message_id = ? WHERE id = ?",
            (channel_id, message_id, request_id)))

    async def overdue_undos(self, now: str) -> list[UndoRequest]:
        rows = await self._fetchall(
            f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE status = 'pending' AND expires_at <= ? "
            "ORDER BY id", (now,))
        return [_undo(row) for row in rows]

    async def apply_undo(self, stored: StoredGame, game: Game, entry: LogEntry, request_id: int,
                         answered_by: int) -> StoredGame:
        def accept(conn: Connection) -> None:
            cursor = conn.execute(
                "UPDATE undo_requests SET status = 'accepted', answered_by = ?, answered_at = ? "
                "WHERE id = ? AND status = 'pending'", (answered_by, entry.time, request_id))
            if cursor.rowcount != 1:
                raise StaleGame(f"undo request {request_id} is no longer pending")

        return await self._write(stored, game, entry, end=False, also=accept)

    async def undone(self, game_id: int, *, after_seq: int = 0) -> dict[int, int]:
        rows = await self._fetchall(
            "SELECT json_extract(order_json, '$.undoes'), seq FROM log_entries "
            "WHERE game_id = ? AND seq > ? AND json_extract(order_json, '$.action') = 'undo'",
            (game_id, after_seq))
        return {int(target): int(seq) for target, seq in rows if isinstance(target, int)}

    # --- pacing ---

    async def server_games(self, guild_id: int, window: float) -> ServerGames:
        # both counts read games_by_guild (migrations/0006_games_by_server.sql)
        since = (datetime.now(timezone.utc) - timedelta(seconds=window)).isoformat(timespec="milliseconds")
        row = await self._fetchone(
            "SELECT (SELECT count(*) FROM games WHERE guild_id = ? AND status = 'active'), "
            "count(*), min(created_at) FROM games WHERE guild_id = ? AND created_at >= ?",
            (guild_id, guild_id, since))
        return ServerGames(running=row[0], started=row[1], first_started=row[2])

    async def quiet_games(self, due_by: str | None = None) -> list[QuietGame]:
        columns = f"{', '.join('g.' + c.strip() for c in _GAME_COLUMNS.split(','))}, e.time, r.seq"
        joins = ("FROM games g JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq "
                 "LEFT JOIN pacing_reminders r ON r.game_id = g.id ")
        if self.checkpoint_every is None:  # a store held before schema 7: every game's options are read
            rows = await self._fetchall(f"SELECT {columns} {joins} WHERE g.status = 'active' "
                                        "AND json_extract(g.state, '$.options.remind_after_hours') IS NOT NULL")
        else:  # the index games_reminder_due (migrations/0007): only the games due, none parsed but them
            rows = await self._fetchall(
                f"SELECT {columns} {joins} WHERE g.status = 'active' AND g.remind_due IS NOT NULL "
                "AND g.remind_due <= coalesce(?, g.remind_due) ORDER BY g.remind_due", (due_by,))
        return [QuietGame(_stored(row[:9]), row[9], row[10]) for row in rows]

    async def player_games(self, user_id: int) -> list[PlayerGame]:
        if not self.track_seats:
            return []  # a store held before schema 10 has no seats index
        columns = ", ".join("g." + c.strip() for c in _GAME_COLUMNS.split(","))
        rows = await self._fetchall(
            f"SELECT {columns}, e.time FROM seats s JOIN games g ON g.id = s.game_id "
            "JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq "
            "WHERE s.user_id = ? AND g.status = 'active' ORDER BY e.time, g.id", (user_id,))
        return [PlayerGame(_stored(row[:9]), row[9]) for row in rows]

    async def mark_reminded(self, game_id: int, seq: int, sent_at: str) -> None:
        def mark(conn: Connection) -> None:
            conn.execute("INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES (?, ?, ?) "
                         "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, sent_at = excluded.sent_at",
                         (game_id, seq, sent_at))
            if self.checkpoint_every is not None:  # reminded of this silence: due again after its next entry
                conn.execute("UPDATE games SET remind_due = NULL WHERE id = ? AND last_seq = ?", (game_id, seq))

        await self._transact(mark)

    async def claim_reminder(self, game_id: int, seq: int, sent_at: str, then_due: str | None = None) -> bool:
        def claim(conn: Connection) -> bool:
            claimed = _fetchone(
                conn, "INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES (?, ?, ?) "
                "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, sent_at = excluded.sent_at "
                "WHERE pacing_reminders.seq <> excluded.seq RETURNING game_id", (game_id, seq, sent_at)) is not None
            if claimed and self.checkpoint_every is not None:  # due again after its next entry (or its deadline)
                conn.execute("UPDATE games SET remind_due = ? WHERE id = ? AND last_seq = ?", (then_due, game_id, seq))
            return claimed

        return await self._transact(claim)

    async def claim_deadline_notice(self, game_id: int, seq: int, sent_at: str) -> bool:
        def claim(conn: Connection) -> bool:
            claimed = _fetchone(
                conn, "INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES (?, ?, ?) "
                "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, sent_at = excluded.sent_at "
                "WHERE pacing_reminders.seq <> excluded.seq RETURNING game_id", (game_id, -seq, sent_at)) is not None
            if claimed and self.checkpoint_every is not None:  # said: due again after its next entry
                conn.execute("UPDATE games SET remind_due = NULL WHERE id = ? AND last_seq = ?", (game_id, seq))
            return claimed

        return await self._transact(claim)

    async def set_away(self, away: Away) -> None:
        await self._transact(lambda conn: conn.execute(
            "INSERT INTO away (user_id, since, until, reason) VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE "
            "SET since = excluded.since, until = excluded.until, reason = excluded.reason",
            (away.user_id, away.since, away.until, away.reason)))

    async def aways(self, user_ids: Iterable[int]) -> dict[int, Away]:
        users = sorted(set(user_ids))
        if not users or not self.keeps_away:
            return {}
        rows = await self._fetchall(f"SELECT user_id, since, until, reason FROM away WHERE user_id IN "
                                    f"({', '.join('?' * len(users))})", tuple(users))
        return {row[0]: Away(*row) for row in rows}

    async def set_notify(self, user_id: int, dm: bool) -> None:
        await self._transact(lambda conn: conn.execute(
            "INSERT INTO notify (user_id, dm) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET dm = excluded.dm",
            (user_id, int(dm))))

    async def dm_users(self, user_ids: Iterable[int]) -> set[int]:
        users = sorted(set(user_ids))
        if not users or not self.keeps_notify:
            return set()
        rows = await self._fetchall(f"SELECT user_id FROM notify WHERE dm = 1 AND user_id IN "
                                    f"({', '.join('?' * len(users))})", tuple(users))
        return {row[0] for row in rows}

    async def player_settings(self) -> tuple[list[Away], dict[int, bool]]:
        aways = await self._fetchall("SELECT user_id, since, until, reason FROM away ORDER BY user_id") \
            if self.keeps_away else []
        choices = await self._fetchall("SELECT user_id, dm FROM notify ORDER BY user_id") if self.keeps_notify else []
        return [Away(*row) for row in aways], {row[0]: bool(row[1]) for row in choices}

    async def keep_secret(self, commitment: str, secret: bytes) -> None:
        await self._transact(lambda conn: conn.execute(
            "INSERT INTO held_secrets (commitment, secret, kept_at) VALUES (?, ?, ?) "
            "ON CONFLICT (commitment) DO NOTHING", (commitment, bytes(secret), _utc_now())))

    async def held_secret(self, commitment: str) -> bytes | None:
        row = await self._fetchone("SELECT secret FROM held_secrets WHERE commitment = ?", (commitment,))
        return None if row is None else bytes(row[0])


def _runs(seqs: list[int]) -> list[list[int]]:
    """Ascending seqs as runs of consecutive ones, [first, last] each: a checkpoint's kept stack in
    a few bytes (it is mostly one run)."""
    runs: list[list[int]] = []
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    return runs


def _live(text: str) -> dict[str, Any]:
    """A checkpoint's ``live`` column: {"top": [seq, ...], "whole": bool}."""
    live = json.loads(text)
    return {"top": [seq for first, last in live["runs"] for seq in range(first, last + 1)], "whole": live["whole"]}


def _undo_params(request: UndoRequest) -> tuple[Any, ...]:
    return (request.id, request.game_id, request.target_seq, request.head_seq, request.head_hash,
            request.proposer, request.proposed_at, request.expires_at, request.state_before, request.status,
            request.answered_by, request.answered_at, request.interaction_id, request.channel_id,
            request.message_id)


def _undo(row: Any) -> UndoRequest:
    return UndoRequest(*row)
