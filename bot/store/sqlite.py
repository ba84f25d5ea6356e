"""The SQLite store (aiosqlite): WAL, numbered migrations, one transaction per command.

One connection, guarded by one asyncio lock: aiosqlite runs every statement on the
connection's single thread anyway, and the lock keeps one coroutine's BEGIN ... COMMIT from
interleaving with another's statements (which would otherwise run inside that transaction).
Channels still proceed concurrently: a command holds this lock only for its few statements,
not while the rules core works. WAL lets readers in other processes (backups, verify tools)
read while the bot writes.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import aiosqlite

from bot.core.game import Game

from .base import (MAX_LOG_ENTRIES, ActiveGameExists, DuplicateInteraction, LogFull, QuietGame, SchemaTooNew,
                   StaleGame, Store, StoredGame, UndoRequest, UndoStatus)
from .chain import GENESIS_HASH, LogEntry, canonical_json

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
BUSY_TIMEOUT_MS = 5000  # another process (a backup, a verify tool) holding the write lock

_GAME_COLUMNS = "id, channel_id, guild_id, ruleset, status, created_at, state, last_seq, head_hash"
_ENTRY_COLUMNS = ("game_id, seq, time, actor, command, order_json, dice, manual, outcome, "
                  "state_hash, prev_hash, hash, interaction_id, rules_version")
# the log's columns before schema 3 (no rules_version): a store held at an earlier schema by
# ``open(upto=...)``, as the migration tests do, reads and writes only these
_ENTRY_COLUMNS_BEFORE_3 = _ENTRY_COLUMNS.removesuffix(", rules_version")
_UNDO_COLUMNS = ("id, game_id, target_seq, head_seq, head_hash, proposer, proposed_at, expires_at, "
                 "state_before, status, answered_by, answered_at, interaction_id, channel_id, message_id")


def migrations() -> list[tuple[int, str, str]]:
    """(number, file name, SQL) of every migration, numbered 1, 2, 3 ... without gaps."""
    found = []
    for path in sorted(MIGRATIONS_DIR.glob("*.sql")):
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


def _stored(row: Any) -> StoredGame:
    return StoredGame(id=row[0], channel_id=row[1], guild_id=row[2], ruleset=row[3], status=row[4],
                      created_at=row[5], game=Game.model_validate_json(row[6]), last_seq=row[7],
                      head_hash=row[8])


def _entry(row: Any) -> LogEntry:
    return LogEntry(game_id=row[0], seq=row[1], time=row[2], actor=row[3], command=row[4],
                    order=json.loads(row[5]), dice=json.loads(row[6]), manual=bool(row[7]),
                    outcome=json.loads(row[8]), state_hash=row[9], prev_hash=row[10], hash=row[11],
                    interaction_id=row[12], **({"rules_version": row[13]} if len(row) > 13 else {}))


def _entry_params(entry: LogEntry) -> tuple[Any, ...]:
    return (entry.game_id, entry.seq, entry.time, entry.actor, entry.command,
            canonical_json(entry.order), canonical_json(list(entry.dice)), int(entry.manual),
            canonical_json(entry.outcome), entry.state_hash, entry.prev_hash, entry.hash,
            entry.interaction_id, entry.rules_version)


class SqliteStore(Store):
    def __init__(self, db: aiosqlite.Connection, *, max_entries: int = MAX_LOG_ENTRIES,
                 entry_columns: str = _ENTRY_COLUMNS):
        self._db = db
        self._entry_columns = entry_columns
        self._lock = asyncio.Lock()
        self.max_entries = max_entries

    @classmethod
    async def open(cls, path: str | Path, *, max_entries: int = MAX_LOG_ENTRIES,
                   upto: int | None = None) -> "SqliteStore":
        """Open (creating it and its folder if needed) and migrate the database at ``path``.
        ``upto`` stops at an earlier schema version: the migration tests use it."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; every write says BEGIN IMMEDIATE itself
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            await db.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit is on disk before the player sees the result (a restart loses nothing)
            await db.execute("PRAGMA synchronous = FULL")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await migrate(db, upto=upto)
            columns = _ENTRY_COLUMNS
            if upto is not None:
                async with db.execute("PRAGMA table_info(log_entries)") as cursor:
                    if "rules_version" not in {row[1] for row in await cursor.fetchall()}:
                        columns = _ENTRY_COLUMNS_BEFORE_3
        except BaseException:
            await db.close()
            raise
        return cls(db, max_entries=max_entries, entry_columns=columns)

    async def close(self) -> None:
        async with self._lock:
            await self._db.close()

    async def version(self) -> int:
        async with self._lock:
            return await schema_version(self._db)

    # --- transactions ---

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; any error (or cancellation) rolls the whole command back."""
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                await self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    await asyncio.shield(self._db.execute("ROLLBACK"))
                raise

    async def _fetchone(self, sql: str, params: tuple[Any, ...]) -> Any:
        async with self._lock:
            async with self._db.execute(sql, params) as cursor:
                return await cursor.fetchone()

    # --- games ---

    async def load_active(self, channel_id: int) -> StoredGame | None:
        row = await self._fetchone(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,))
        return _stored(row) if row else None

    async def load_latest(self, channel_id: int) -> StoredGame | None:
        row = await self._fetchone(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? "
            "ORDER BY status = 'active' DESC, id DESC LIMIT 1", (channel_id,))
        return _stored(row) if row else None

    async def load_game(self, game_id: int) -> StoredGame | None:
        row = await self._fetchone(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return _stored(row) if row else None

    async def create_game(self, channel_id: int, guild_id: int | None, game: Game,
                          first_entry: Callable[[int], LogEntry]) -> tuple[StoredGame, LogEntry]:
        state = game.model_dump_json()
        entry: LogEntry | None = None
        try:
            async with self._transaction() as db:
                cursor = await db.execute(
                    "INSERT INTO games (channel_id, guild_id, ruleset, created_at, state, head_hash) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (channel_id, guild_id, game.ruleset, _utc_now(), state, GENESIS_HASH))
                game_id = cursor.lastrowid
                entry = first_entry(game_id)
                await self._insert_entry(db, entry)
                await db.execute("UPDATE games SET last_seq = ?, head_hash = ? WHERE id = ?",
                                 (entry.seq, entry.hash, game_id))
        except sqlite3.IntegrityError as exc:
            raise self._integrity(exc, entry_interaction=entry.interaction_id if entry else None) from None
        stored = await self.load_game(game_id)
        assert stored is not None and entry is not None  # just committed
        return stored, entry

    async def append(self, stored: StoredGame, game: Game, entry: LogEntry) -> StoredGame:
        return await self._write(stored, game, entry, end=False)

    async def end_game(self, stored: StoredGame, entry: LogEntry) -> StoredGame:
        return await self._write(stored, stored.game, entry, end=True)

    async def _write(self, stored: StoredGame, game: Game, entry: LogEntry, *, end: bool,
                     also: Callable[[aiosqlite.Connection], Awaitable[None]] | None = None) -> StoredGame:
        # the closing entry may go one past the cap, so a full game can always be ended
        if entry.seq > self.max_entries + (1 if end else 0):
            raise LogFull(f"the log holds {self.max_entries} entries, the most one game may have")
        state = game.model_dump_json()
        try:
            async with self._transaction() as db:
                # the WHERE is an optimistic lock: it matches only if nobody wrote since the load
                cursor = await db.execute(
                    "UPDATE games SET state = ?, last_seq = ?, head_hash = ?, "
                    "status = CASE WHEN ? THEN 'ended' ELSE status END, "
                    "ended_at = CASE WHEN ? THEN ? ELSE ended_at END "
                    "WHERE id = ? AND status = 'active' AND last_seq = ? AND head_hash = ?",
                    (state, entry.seq, entry.hash, end, end, entry.time,
                     stored.id, entry.seq - 1, entry.prev_hash))
                if cursor.rowcount != 1:
                    raise StaleGame(f"game {stored.id} changed since it was loaded")
                await self._insert_entry(db, entry)
                if also is not None:
                    await also(db)  # more of the same command, in the same transaction
        except sqlite3.IntegrityError as exc:
            raise self._integrity(exc, entry_interaction=entry.interaction_id) from None
        return StoredGame(id=stored.id, channel_id=stored.channel_id, guild_id=stored.guild_id,
                          ruleset=stored.ruleset, status="ended" if end else stored.status,
                          created_at=stored.created_at, game=game,
                          last_seq=entry.seq, head_hash=entry.hash)

    async def _insert_entry(self, db: aiosqlite.Connection, entry: LogEntry) -> None:
        count = self._entry_columns.count(",") + 1
        await db.execute(f"INSERT INTO log_entries ({self._entry_columns}) "
                         f"VALUES ({', '.join('?' * count)})", _entry_params(entry)[:count])

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
        async with self._lock:
            async with self._db.execute(
                    f"SELECT {self._entry_columns} FROM log_entries WHERE game_id = ? AND seq > ? "
                    "ORDER BY seq LIMIT ?", (game_id, after_seq, limit)) as cursor:
                rows = await cursor.fetchall()
        return [_entry(row) for row in rows]

    async def entry_by_interaction(self, interaction_id: int) -> LogEntry | None:
        row = await self._fetchone(
            f"SELECT {self._entry_columns} FROM log_entries WHERE interaction_id = ?", (interaction_id,))
        return _entry(row) if row else None

    # --- undo by consent ---

    async def create_undo(self, request: UndoRequest) -> UndoRequest:
        try:
            async with self._transaction() as db:
                cursor = await db.execute(
                    f"INSERT INTO undo_requests ({_UNDO_COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    _undo_params(request)[1:])
                request_id = cursor.lastrowid
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
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE undo_requests SET status = ?, answered_by = ?, answered_at = ? "
                "WHERE id = ? AND status = 'pending'", (status, answered_by, answered_at, request_id))
            return cursor.rowcount == 1

    async def set_undo_message(self, request_id: int, channel_id: int, message_id: int) -> None:
        async with self._transaction() as db:
            await db.execute("UPDATE undo_requests SET channel_id = ?, message_id = ? WHERE id = ?",
                             (channel_id, message_id, request_id))

    async def overdue_undos(self, now: str) -> list[UndoRequest]:
        async with self._lock, self._db.execute(
                f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE status = 'pending' AND expires_at <= ? "
                "ORDER BY id", (now,)) as cursor:
            rows = await cursor.fetchall()
        return [_undo(row) for row in rows]

    async def apply_undo(self, stored: StoredGame, game: Game, entry: LogEntry, request_id: int,
                         answered_by: int) -> StoredGame:
        async def accept(db: aiosqlite.Connection) -> None:
            cursor = await db.execute(
                "UPDATE undo_requests SET status = 'accepted', answered_by = ?, answered_at = ? "
                "WHERE id = ? AND status = 'pending'", (answered_by, entry.time, request_id))
            if cursor.rowcount != 1:
                raise StaleGame(f"undo request {request_id} is no longer pending")

        return await self._write(stored, game, entry, end=False, also=accept)

    async def undone(self, game_id: int, *, after_seq: int = 0) -> dict[int, int]:
        async with self._lock:
            async with self._db.execute(
                    "SELECT json_extract(order_json, '$.undoes'), seq FROM log_entries "
                    "WHERE game_id = ? AND seq > ? AND json_extract(order_json, '$.action') = 'undo'",
                    (game_id, after_seq)) as cursor:
                rows = await cursor.fetchall()
        return {int(target): int(seq) for target, seq in rows if isinstance(target, int)}

    # --- pacing ---

    async def quiet_games(self) -> list[QuietGame]:
        async with self._lock:
            async with self._db.execute(
                    f"SELECT {', '.join('g.' + c.strip() for c in _GAME_COLUMNS.split(','))}, e.time, r.seq "
                    "FROM games g JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq "
                    "LEFT JOIN pacing_reminders r ON r.game_id = g.id "
                    "WHERE g.status = 'active' "
                    "AND json_extract(g.state, '$.options.remind_after_hours') IS NOT NULL") as cursor:
                rows = await cursor.fetchall()
        return [QuietGame(_stored(row[:9]), row[9], row[10]) for row in rows]

    async def mark_reminded(self, game_id: int, seq: int, sent_at: str) -> None:
        async with self._transaction() as db:
            await db.execute("INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES (?, ?, ?) "
                             "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, sent_at = excluded.sent_at",
                             (game_id, seq, sent_at))


def _undo_params(request: UndoRequest) -> tuple[Any, ...]:
    return (request.id, request.game_id, request.target_seq, request.head_seq, request.head_hash,
            request.proposer, request.proposed_at, request.expires_at, request.state_before, request.status,
            request.answered_by, request.answered_at, request.interaction_id, request.channel_id,
            request.message_id)


def _undo(row: Any) -> UndoRequest:
    return UndoRequest(*row)
