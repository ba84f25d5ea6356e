"""The PostgreSQL store (asyncpg): several bot processes, each with its own shards, on one database.

Chosen by the database setting: ``REFEREE_DATABASE=postgresql://user@host/dbname`` (a path keeps
SQLite; ``bot.store.open_store``). Install the extra: ``pip install 'referee[postgres]'``.

The same guarantees as the SQLite store, held by PostgreSQL itself rather than by one process:
- A command's state and its log entry commit together: one transaction per write.
- Exactly once across processes: ``log_entries_interaction`` is a unique index, so a re-delivered
  interaction that another process logged first cannot be logged twice; the loser's write raises
  ``DuplicateInteraction`` and the service answers from the log.
- The commands of one channel run one at a time across processes: ``channel_lock`` takes a
  session advisory lock keyed on the channel for the whole command (load, resolve, write), on a
  connection that the command's own reads and writes then use, so one command costs one pooled
  connection. A process that dies mid-command drops its connection, and PostgreSQL its lock. The
  optimistic check of every write (``last_seq`` and ``head_hash`` unchanged since the load) stays
  as the last guard: no lost update even for a caller that skips the lock.
- The rows read back as the same ``StoredGame``, ``LogEntry`` and ``UndoRequest`` as SQLite's
  (shared row readers, ``bot.store.sqlite``), so the hash chain, replay and verify are one code.

Its schema has its own numbered migrations (``bot/store/pg_migrations``), applied at start-up in
one transaction under an advisory lock: processes starting together migrate once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import zlib
from collections.abc import AsyncIterator, Iterable
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bot.core.game import Game
from bot.record.chain import GENESIS_HASH, LogEntry, canonical_json, release_state, saved_state
from bot.record.checkpoint import Checkpoint, advance_live
from bot.config import POOL_MAX, POOL_MIN, STATEMENT_TIMEOUT
from bot.shards import Shards

from . import pg_checks
from .base import (CHECKPOINT_EVERY, MAX_LOG_ENTRIES, ActiveGameExists, Away, DatabaseUnusable, DuplicateInteraction,
                   FirstEntries, GameExtras, HeadFor, KeptGames, LogFull, PlayerGame, QuietGame, SchemaTooNew,
                   ServerGames, StaleGame, StorageUnavailable, Store, StoredGame, StoreError, UndoRequest, UndoStatus,
                   creation_entries, pack_state, seated, unpack_state)
from .sqlite import (_entry, _entry_params, _live, _order_and_proof, _runs, _stored, _undo, _undo_params, _utc_now,
                     migrations, remind_due)

try:  # the optional extra `postgres`
    import asyncpg
except ImportError:  # pragma: no cover - the SQLite-only install
    asyncpg = None

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("pg_migrations")
MIGRATION_LOCK = 0x5265_6665_7265_6501  # advisory lock key of the migrations ("Referee" + 1)
RECONNECT_SECONDS = 3.0  # a command not yet begun waits this long for a server restarting, then is refused
CLIENT_TIMEOUT_MARGIN = 10.0  # seconds the client waits for a statement past the server's statement timeout
MIGRATION_TIMEOUT = 3_600.0  # seconds one migration statement may run (not bound by the statement timeout)
SHOWN_FLUSH_SECONDS = 0.25  # results seen wait at most this long to go off the unshown list

_SESSION_SETTINGS = ("SELECT set_config('statement_timeout', $1, false), CASE WHEN "
                     "current_setting('synchronous_commit') = 'off' "
                     "THEN set_config('synchronous_commit', 'on', false) END")
_GAME_COLUMNS = "id, channel_id, guild_id, ruleset, status, created_at, state, last_seq, head_hash"
_ENTRY_COLUMNS = ("game_id, seq, time, actor, command, order_json, dice, manual, outcome, "
                  "state_hash, prev_hash, hash, interaction_id, rules_version, dice_proof")
_UNDO_COLUMNS = ("id, game_id, target_seq, head_seq, head_hash, proposer, proposed_at, expires_at, "
                 "state_before, status, answered_by, answered_at, interaction_id, channel_id, message_id")
_ENTRY_COUNT = _ENTRY_COLUMNS.count(",") + 1  # a joined row's entry columns come first
_ENTRY_VALUES = ", ".join(f"${n}" for n in range(1, _ENTRY_COUNT + 1))
_UNDO_VALUES = ", ".join(f"${n}" for n in range(1, 15))

# A command's whole write in one statement (one round trip, atomic as any statement): the game
# moves on only if nobody wrote since it was loaded (the WHERE is an optimistic lock), and the entry
# (and its unshown mark, for an interaction's) go in only if it did. Returns (1, the game's newest
# checkpoint), or (0, ...) when stale. From schema 3 on it also sets when the game is due for a reminder.
def _delete_shown_sql(games: int) -> str:
    """The results seen (parameters ``$games``, ``$games + 1``: two arrays, ``_shown_arrays``) taken off
    the unshown list."""
    return (f"DELETE FROM unshown_entries u USING unnest(${games}::bigint[], ${games + 1}::integer[]) "
            "AS s(game_id, seq) WHERE u.game_id = s.game_id AND u.seq = s.seq")


def _shown_arrays(shown: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The parameters of ``_delete_shown_sql``: the games, then the seqs."""
    return [game for game, _ in shown], [seq for _, seq in shown]


def _write_sql(remind: bool) -> str:
    # the results this process saw since its last write go off the unshown list in the same
    # statement: no round trip of their own (a statement apart cost ~10% of /morale throughput and
    # raised p99 by half with 2-4 processes, bench/bench_scale.py)
    return (
        f"WITH shown AS ({_delete_shown_sql(25 if remind else 24)}), "
        "moved AS (UPDATE games SET state = $1, last_seq = $2, head_hash = $3, "
        "status = CASE WHEN $4 THEN 'ended' ELSE status END, ended_at = CASE WHEN $4 THEN $5 ELSE ended_at END"
        f"{', remind_due = $24::text' if remind else ''} "
        "WHERE id = $6 AND status = 'active' AND last_seq = $7 AND head_hash = $8 RETURNING id, channel_id), "
        f"logged AS (INSERT INTO log_entries ({_ENTRY_COLUMNS}) SELECT $9::bigint, $10::integer, $11::text, "
        "$12::bigint, $13::text, $14::text, $15::text, $16::boolean, $17::bytea, $18::text, $19::text, $20::text, "
        "$21::bigint, $22::integer, $23::text FROM moved RETURNING seq), "
        "unshown AS (INSERT INTO unshown_entries (game_id, seq, channel_id) SELECT id, $10::integer, channel_id "
        "FROM moved WHERE $21::bigint IS NOT NULL RETURNING seq) "
        "SELECT count(*), "
        f"{'(SELECT max(seq) FROM checkpoints WHERE game_id = $6)' if remind else 'NULL::integer'} FROM moved")


_WRITE, _WRITE_BEFORE_3 = _write_sql(True), _write_sql(False)
CHECKPOINTS_SCHEMA = 3  # pg_migrations/0003_checkpoints_and_reminders.sql
SEATS_SCHEMA = 5  # pg_migrations/0005_seats.sql
AWAY_SCHEMA = 6  # pg_migrations/0006_away.sql
NOTIFY_SCHEMA = 7  # pg_migrations/0007_notify.sql

_ACTIVE_GAME = f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = $1 AND status = 'active'"
_LOGGED_OR_ACTIVE = (
    f"SELECT {', '.join('e.' + c.strip() for c in _ENTRY_COLUMNS.split(','))}, "
    f"{', '.join('g.' + c.strip() for c in _GAME_COLUMNS.split(','))} "
    "FROM log_entries e JOIN games g ON g.id = e.game_id WHERE e.interaction_id = $2 UNION ALL "
    "SELECT NULL::bigint, NULL::integer, NULL::text, NULL::bigint, NULL::text, NULL::text, NULL::text, "
    "NULL::boolean, NULL::bytea, NULL::text, NULL::text, NULL::text, NULL::bigint, NULL::integer, NULL::text, "
    f"{', '.join('g.' + c.strip() for c in _GAME_COLUMNS.split(','))} FROM games g "
    "WHERE g.channel_id = $1 AND g.status = 'active'")

# The same with, for a command's dice (schema 2 on; StoredGame.head and .seed), the newest entry's
# order and dice proof and the held secret of the dice commitment in force after it (the turn's
# seed): a cold command's dice state and seed in the load's round trip (issue 14), where SQLite reads
# them on its thread. The service checks both before use (the entry's seq and hash, the seed's hash).
_GAME_COUNT = _GAME_COLUMNS.count(",") + 1
_HEAD_JOINS = ("LEFT JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq AND e.hash = g.head_hash "
               "LEFT JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(p.proof) <> 'object' THEN NULL "
               "WHEN p.proof ? 'reveal' THEN p.proof ->> 'next' ELSE p.proof ->> 'commitment' END AS commitment "
               "FROM (SELECT e.dice_proof::jsonb AS proof) p) c ON true "
               "LEFT JOIN held_secrets s ON s.commitment = c.commitment")
_HEAD_COLUMNS = "e.seq, e.order_json, e.dice_proof, c.commitment, s.secret"
_ACTIVE_GAME_HEAD = (f"SELECT {', '.join('g.' + c.strip() for c in _GAME_COLUMNS.split(','))}, {_HEAD_COLUMNS} "
                     f"FROM games g {_HEAD_JOINS} WHERE g.channel_id = $1 AND g.status = 'active'")
_LOGGED_OR_ACTIVE_HEAD = (
    _LOGGED_OR_ACTIVE.replace(" FROM log_entries e JOIN games g",
                              ", NULL::integer, NULL::text, NULL::text, NULL::text, NULL::bytea "
                              "FROM log_entries e JOIN games g", 1)
    .replace(" FROM games g WHERE", f", {_HEAD_COLUMNS} FROM games g {_HEAD_JOINS} WHERE", 1))

# the connection the current task holds with a channel's (or server's) lock: (task, connection,
# store, the lock keys it holds)
_HELD: ContextVar[tuple[asyncio.Task[Any] | None, Any, PostgresStore, frozenset[int]] | None] = ContextVar(
    "referee_pg_held", default=None)


def is_postgres(database: str | Path) -> bool:
    """Does the database setting name a PostgreSQL server (``postgresql://`` or ``postgres://``)?"""
    return str(database).startswith(("postgresql://", "postgres://"))


def redacted(dsn: str) -> str:
    """The DSN without its password, for logs and messages."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def pg_migrations() -> list[tuple[int, str, str]]:
    return migrations(MIGRATIONS_DIR)


def _entry_row(entry: LogEntry) -> tuple[Any, ...]:
    params = list(_entry_params(entry))  # the same values SQLite stores (outcome compressed)
    params[7] = bool(params[7])  # manual: BOOLEAN here
    return tuple(params)


def _unreachable(exc: BaseException) -> StorageUnavailable:
    return StorageUnavailable("The game's database cannot be reached just now, so this order was not saved "
                              "(nothing changed): give it again in a minute.", "unreachable")


# A connection lost on the client's side: the socket (OSError, a timeout among them), the driver's own
# view of it (InterfaceError), or a protocol left mid-error by the server ending the session under it
# (InternalClientError "cannot switch to state ...": seen on PostgreSQL's `restart -m fast`, issue 28)
_LOST: tuple[type[BaseException], ...] = (OSError,) if asyncpg is None else (
    OSError, asyncpg.InterfaceError, asyncpg.InternalClientError)


def _timed_out() -> StorageUnavailable:
    return StorageUnavailable("The game's database took too long to answer, so this order was not saved "
                              "(nothing changed): give it again in a minute.", "slow")


def _fault(exc: BaseException) -> StorageUnavailable | None:
    """The players' side of a database that cannot take a command, or None for anything else. The
    caller's own check comes first where a write may have committed before the fault (the service
    answers from the log when the order is there: ``RefereeTree._saved_after_all``)."""
    if asyncpg is None:
        return None
    if isinstance(exc, asyncpg.DiskFullError):
        return StorageUnavailable("The bot's database disk is full, so this order was not saved (nothing "
                                  "changed). The bot's host has been told; give the order again once there is "
                                  "room.", "full")
    if isinstance(exc, asyncpg.QueryCanceledError):  # the statement timeout (REFEREE_DATABASE_STATEMENT_TIMEOUT)
        return _timed_out()
    # the server shutting down (fast: AdminShutdown; immediate: CrashShutdown), starting up, full
    if isinstance(exc, (*_LOST, asyncpg.PostgresConnectionError, asyncpg.OperatorInterventionError,
                        asyncpg.TooManyConnectionsError)):
        return _unreachable(exc)
    return None


def _end_session(conn: Any, why: str) -> None:
    """End a connection's session (and every advisory lock it holds) without going back to the
    pool. A connection the pool has already taken back (after the server went away) refuses
    ``terminate``; its session is gone already, which is all this asks."""
    log.warning("ending a database session: %s", why)
    try:
        conn.terminate()
    except Exception as exc:
        log.warning("the session had ended already (%s: %s)", type(exc).__name__, exc)


async def _lock_on(conn: Any, key: int) -> None:
    """Wait for the session advisory lock ``key`` on ``conn``. Cancelled or failed while waiting, the
    session ends (the lock may have been granted meanwhile: the connection must not go back to the
    pool perhaps holding it); a database fault is the players' StorageUnavailable, nothing changed."""
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", key)
    except BaseException as exc:
        _end_session(conn, f"waiting for the lock {key} ended ({type(exc).__name__})")
        if isinstance(exc, Exception) and (fault := _fault(exc)) is not None:
            raise fault from None  # the command has not begun
        raise


async def _give_back(acquired: Any) -> None:
    """Leave a pool's ``acquire()`` context; a connection that broke is the pool's to replace."""
    try:
        await acquired.__aexit__(None, None, None)
    except Exception as exc:
        log.warning("a connection could not go back to the pool (%s: %s)", type(exc).__name__, exc)


async def _reset(conn: Any) -> None:
    """What the pool does to a connection given back: nothing but ending a transaction left open
    (none is: every one is a context manager). asyncpg's default (unlock every advisory lock, RESET
    ALL, ...) costs a round trip per read; the store sets no session state, and the channel's lock
    is let go explicitly (``channel_lock``)."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


class PostgresStore(Store):
    def __init__(self, pool: Any, *, max_entries: int = MAX_LOG_ENTRIES, label: str = "postgresql",
                 checkpoint_every: int | None = CHECKPOINT_EVERY, track_seats: bool = True,
                 keeps_away: bool = True, keeps_notify: bool = True):
        self._pool = pool
        self.keeps_away = keeps_away  # schema 6 on: the away table (pg_migrations/0006_away.sql)
        self.keeps_notify = keeps_notify  # schema 7 on: the notify table (pg_migrations/0007_notify.sql)
        self.track_seats = track_seats  # schema 5 on: the seats index (pg_migrations/0005_seats.sql)
        self.max_entries = max_entries
        # a checkpoint every this many entries, and reminders by their indexed due time (schema 3 on);
        # None: neither (a store held at an earlier schema by ``open(upto=...)``)
        self.checkpoint_every = checkpoint_every
        self.label = label  # the DSN without its password
        self._shown: list[tuple[int, int]] = []
        self._shown_flush: asyncio.TimerHandle | None = None
        self._flushing: set[asyncio.Task[None]] = set()
        self.kept = KeptGames()  # the Game each game's newest write saved, for its next command

    @classmethod
    async def open(cls, dsn: str, *, max_entries: int = MAX_LOG_ENTRIES, upto: int | None = None,
                   pool_min: int = POOL_MIN, pool_max: int = POOL_MAX, statement_timeout: float = STATEMENT_TIMEOUT,
                   processes: int = 1, checkpoint_every: int = CHECKPOINT_EVERY) -> PostgresStore:
        """Connect a pool to ``dsn`` and migrate the schema (up to ``upto``). A server that cannot
        serve (unreachable, no such database, refused login, too few connections for the pool, a
        transaction-mode pooler in between: ``pg_checks``) raises DatabaseUnusable: one line naming
        it (without the password) and what to do. ``pool_min``/``pool_max``: the pool's size (of
        ``processes`` such pools, checked against max_connections); ``statement_timeout``: seconds
        the server lets one statement run (the migrations excepted)."""
        if asyncpg is None:
            raise DatabaseUnusable("REFEREE_DATABASE names a PostgreSQL server, but asyncpg is not installed: "
                                   "install the bot with its postgres extra (pip install 'referee[postgres]')")
        label = redacted(dsn)
        timeout_ms = round(statement_timeout * 1000)

        async def init(conn: Any) -> None:  # each new connection of the pool: one round trip
            # the server's own bound on a statement; and a commit durable before it returns, whatever
            # the server's default: the bot answers an order as saved once its commit returns, and with
            # synchronous_commit off a crash of the server loses commits already answered (issue 28)
            await conn.execute(_SESSION_SETTINGS, str(timeout_ms))

        try:
            # the client's bound comes after the server's: a server that does not answer at all
            pool = await asyncpg.create_pool(dsn, min_size=min(pool_min, pool_max), max_size=pool_max,
                                             command_timeout=statement_timeout + CLIENT_TIMEOUT_MARGIN,
                                             reset=_reset, init=init)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, asyncio.TimeoutError) as exc:
            raise DatabaseUnusable(f"database {label} cannot be used ({type(exc).__name__}: {exc}): check the "
                                   "server is running, the database exists and the user may log in") from None
        try:
            async with pool.acquire() as conn:
                await pg_checks.check_sessions(conn, dsn, label=label)
                await pg_checks.check_room(conn, pool_max=pool_max, processes=processes, label=label)
                before = await schema_version(conn)
                reached = await migrate(conn, upto=upto)
                if 0 < before < SEATS_SCHEMA <= reached:
                    await _seat_every_game(conn)  # a schema older than the seats index: its games read once
        except BaseException:
            await pool.close()
            raise
        held_before_3 = upto is not None and upto < CHECKPOINTS_SCHEMA
        return cls(pool, max_entries=max_entries, label=label,
                   checkpoint_every=None if held_before_3 else checkpoint_every,
                   track_seats=upto is None or upto >= SEATS_SCHEMA,
                   keeps_away=upto is None or upto >= AWAY_SCHEMA,
                   keeps_notify=upto is None or upto >= NOTIFY_SCHEMA)

    async def close(self) -> None:
        if self._shown_flush is not None:
            self._shown_flush.cancel()
            self._shown_flush = None
        if self._flushing:
            await asyncio.gather(*self._flushing, return_exceptions=True)
        if self._shown:
            with contextlib.suppress(Exception):
                await self._flush_shown_now()
        await self._pool.close()

    async def version(self) -> int:
        async with self._connection() as conn:
            return await schema_version(conn)

    # --- connections and the channel's lock ---

    def _held(self) -> Any:
        held = _HELD.get()
        if held is not None and held[2] is self and held[0] is asyncio.current_task():
            return held[1]
        return None

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[Any]:
        """The connection this task holds with a channel's lock, else one from the pool; a
        connection lost or refused becomes StorageUnavailable (the players' words), and the pool's
        other connections, likely lost with it (a server restart), are replaced as they are next used."""
        held = self._held()
        try:
            if held is not None:
                yield held
                return
            async with self._pool.acquire() as conn:
                yield conn
        except (StorageUnavailable, asyncpg.PostgresError) as exc:
            if isinstance(exc, StorageUnavailable) or (fault := _fault(exc)) is None:
                raise
            if fault.kind == "unreachable":
                await self._pool.expire_connections()
            raise fault from None
        except _LOST as exc:
            await self._pool.expire_connections()
            raise _unreachable(exc) from None

    def channel_lock(self, channel_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold the channel across every process on this database (a session advisory lock) for
        the whole command; the command's reads and writes use the connection holding it."""
        return self._advisory(channel_id)

    def server_lock(self, guild_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold the server across every process (its games counted against its caps and the new
        one created under it); keyed apart from the channels (negative keys)."""
        return self._advisory(-guild_id)

    @contextlib.asynccontextmanager
    async def _advisory(self, key: int) -> AsyncIterator[None]:
        """A session advisory lock on ``key``, on the connection this task already holds (a lock
        taken inside another: the server's, then the channel's) or on one from the pool, which the
        task's store calls then use until the outermost lock is let go."""
        held = _HELD.get()
        mine = held is not None and held[2] is self and held[0] is asyncio.current_task()
        if mine and key in held[3]:  # already held by this task
            yield
            return
        if mine:
            conn, acquired = held[1], None
            await _lock_on(conn, key)
        else:
            conn, acquired = await self._locked_connection(key)
        try:
            keys = (held[3] if mine else frozenset()) | {key}
            token = _HELD.set((asyncio.current_task(), conn, self, keys))
            try:
                yield
            finally:
                _HELD.reset(token)
                try:
                    await conn.execute("SELECT pg_advisory_unlock($1)", key)
                except BaseException as exc:
                    # The command's work is done (its write committed, or it failed on its own), so
                    # this is never its error: a player told "nothing was changed" about an order
                    # saved would give it twice. The session ends instead, and its locks with it.
                    _end_session(conn, f"the lock {key} could not be let go ({type(exc).__name__}: {exc})")
                    if not isinstance(exc, Exception):
                        raise  # cancelled, or the process is stopping
        finally:
            if acquired is not None:
                await _give_back(acquired)

    async def _locked_connection(self, key: int) -> tuple[Any, Any]:
        """A connection from the pool holding the advisory lock ``key``, and its pool context. The
        command has not begun, so a database that cannot be reached is waited for a moment: a
        connection found dead as the lock is asked for (the server restarted since it was last used)
        is one of many, so the pool drops them all and the lock is asked for at once on a new one; a
        server restarting (refusing connections, shutting down) is tried again with growing pauses
        for RECONNECT_SECONDS before the command is refused, nothing changed."""
        loop = asyncio.get_running_loop()
        deadline, pause, expired = loop.time() + RECONNECT_SECONDS, 0.05, False
        while True:
            try:
                acquired = self._pool.acquire()
                conn = await acquired.__aenter__()
            except (*_LOST, asyncpg.PostgresError) as exc:
                fault = _fault(exc) or _unreachable(exc)
            else:
                try:
                    await _lock_on(conn, key)
                    return conn, acquired
                except StorageUnavailable as exc:
                    await _give_back(acquired)
                    fault = exc
                except BaseException:
                    await _give_back(acquired)
                    raise
                if fault.kind == "unreachable" and not expired:
                    log.warning("a pooled database connection was found dead (the server restarted?): the pool "
                                "opens new ones")
                    await self._pool.expire_connections()
                    expired = True
                    continue
            if fault.kind != "unreachable" or loop.time() + pause > deadline:
                raise fault
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.5)

    # --- games ---

    async def load_active(self, channel_id: int) -> StoredGame | None:
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = $1 AND status = 'active'",
                                      channel_id)
        return self._stored(row)

    async def load_latest(self, channel_id: int) -> StoredGame | None:
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = $1 "
                                      "ORDER BY status = 'active' DESC, id DESC LIMIT 1", channel_id)
        return self._stored(row)

    async def load_game(self, game_id: int) -> StoredGame | None:
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = $1", game_id)
        return self._stored(row)

    def _stored(self, row: Any) -> StoredGame | None:
        """A game row as a StoredGame, with the Game its last write kept when the row is still that write's."""
        return _stored(self.kept.row(tuple(row))) if row else None

    async def load_for_command(self, channel_id: int, interaction_id: int | None, *,
                               head_for: HeadFor | None = None) -> tuple[LogEntry | None, StoredGame | None]:
        """One round trip: the entry already logged for ``interaction_id`` with its game (a row
        whose entry columns are set), and the channel's active game (a row whose are NULL), with
        its newest entry's order and dice proof and the turn's seed when ``head_for`` asks for
        them (``_ACTIVE_GAME_HEAD``: in the same statement)."""
        heads = head_for is not None and self.checkpoint_every is not None  # schema 2 on: dice proofs
        async with self._connection() as conn:
            if interaction_id is None:
                row = await conn.fetchrow(_ACTIVE_GAME_HEAD if heads else _ACTIVE_GAME, channel_id)
                return None, self._headed(tuple(row), head_for) if row and heads else self._stored(row)
            rows = await conn.fetch(_LOGGED_OR_ACTIVE_HEAD if heads else _LOGGED_OR_ACTIVE, channel_id, interaction_id)
        for row in rows:
            if row[0] is not None:
                values = tuple(row)
                return _entry(values[:_ENTRY_COUNT]), self._stored(values[_ENTRY_COUNT:_ENTRY_COUNT + _GAME_COUNT])
        if not rows:
            return None, None
        active = tuple(rows[0])[_ENTRY_COUNT:]
        return None, self._headed(active, head_for) if heads else self._stored(active)

    def _headed(self, values: tuple[Any, ...], head_for: HeadFor | None) -> StoredGame | None:
        """An active game's row read with ``_HEAD_COLUMNS``: with its head and seed if ``head_for``
        asks for them and the newest entry is there."""
        game = values[:_GAME_COUNT]
        seq, order, proof, commitment, secret = values[_GAME_COUNT:]
        if seq is None or head_for is None or not head_for(game[0], game[7], game[8]):
            return self._stored(game)
        head = (game[7], game[8], json.loads(order), None if proof is None else json.loads(proof))
        seed = (commitment, bytes(secret)) if commitment is not None and secret is not None else None
        return _stored(self.kept.row(game), head, seed)

    async def head_dice(self, game_id: int, seq: int) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        if self.checkpoint_every is None:  # a store held at an earlier schema (perhaps no dice_proof column)
            return await super().head_dice(game_id, seq)
        async with self._connection() as conn:
            row = await conn.fetchrow("SELECT order_json, dice_proof FROM log_entries WHERE game_id = $1 AND seq = $2",
                                      game_id, seq)
        return _order_and_proof(row)

    async def create_game(self, channel_id: int, guild_id: int | None, game: Game,
                          first_entry: FirstEntries) -> tuple[StoredGame, LogEntry]:
        state, created_at = self._state(game), _utc_now()
        sealed: list[LogEntry] = []
        try:
            async with self._connection() as conn, conn.transaction():
                game_id = await conn.fetchval(
                    "INSERT INTO games (channel_id, guild_id, ruleset, created_at, state, head_hash) "
                    "VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                    channel_id, guild_id, game.ruleset, created_at, state, GENESIS_HASH)
                # sealed here, inside the transaction: the entries' hashes cover the new game's id
                sealed.extend(creation_entries(first_entry(game_id), self.max_entries))
                for entry in sealed:
                    await self._insert_entry(conn, entry)
                last = sealed[-1]
                if self.checkpoint_every is None:
                    await conn.execute("UPDATE games SET last_seq = $1, head_hash = $2 WHERE id = $3",
                                       last.seq, last.hash, game_id)
                else:
                    await conn.execute("UPDATE games SET last_seq = $1, head_hash = $2, remind_due = $3 WHERE id = $4",
                                       last.seq, last.hash, remind_due(game, last.time), game_id)
                if self.track_seats and seated(game):
                    await _seat(conn, game_id, game)
        except asyncpg.UniqueViolationError as exc:
            raise self._unique(exc, sealed[0].interaction_id if sealed else None) from None
        finally:
            release_state(game)  # the row was written before the entries were sealed (bot/record/chain.py)
        return StoredGame(id=last.game_id, channel_id=channel_id, guild_id=guild_id, ruleset=game.ruleset,
                          status="active", created_at=created_at, game=game, last_seq=last.seq,
                          head_hash=last.hash), sealed[0]

    async def _write(self, stored: StoredGame, game: Game, entry: LogEntry, *, end: bool,
                     undo: tuple[int, int] | None = None) -> StoredGame:
        """State + entry (+ accepting the undo request ``undo`` = (id, answered_by)) atomically. A
        command's write is one statement (``_WRITE``: one round trip, its own transaction); an undo's
        takes a transaction of several."""
        if entry.seq > self.max_entries + (1 if end else 0):
            raise LogFull(f"the log holds {self.max_entries} entries, the most one game may have")
        saved = saved_state(game, take=True)  # the dump the entry's state hash covered: not dumped again
        moved_params = (saved.ordered, entry.seq, entry.hash, end, entry.time, stored.id, entry.seq - 1,
                        entry.prev_hash)
        remind = self.checkpoint_every is not None
        sql, extra = (_WRITE, (remind_due(game, entry.time),)) if remind else (_WRITE_BEFORE_3, ())
        shown, self._shown = self._shown, []  # the results seen meanwhile go off the list with this write
        params = (*moved_params, *_entry_row(entry), *extra, *_shown_arrays(shown))
        # a join, a leave, an undo of one: the seats index changes with the state, in its transaction
        reseat = self.track_seats and seated(stored.game) != seated(game)
        try:
            async with self._connection() as conn:
                if undo is None and not reseat:
                    moved, since = await conn.fetchrow(sql, *params)
                else:
                    async with conn.transaction():
                        moved, since = await conn.fetchrow(sql, *params)
                        if moved == 1 and undo is not None:
                            accepted = await conn.execute(
                                "UPDATE undo_requests SET status = 'accepted', answered_by = $1, answered_at = $2 "
                                "WHERE id = $3 AND status = 'pending'", undo[1], entry.time, undo[0])
                            if accepted != "UPDATE 1":
                                raise StaleGame(f"undo request {undo[0]} is no longer pending")
                        if moved == 1 and reseat:
                            await _seat(conn, stored.id, game)
                if moved != 1:
                    # another process logged this very interaction first: answer from the log
                    if entry.interaction_id is not None and await conn.fetchval(
                            "SELECT 1 FROM log_entries WHERE interaction_id = $1", entry.interaction_id):
                        raise DuplicateInteraction(entry.interaction_id)
                    raise StaleGame(f"game {stored.id} changed since it was loaded")
                if remind and entry.seq - (since or 0) >= self.checkpoint_every:
                    try:
                        await self._checkpoint(conn, stored.id, entry, pack_state(saved), since or 0)
                    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                        # the command is saved: it is answered as saved, and the next entry writes the checkpoint
                        log.warning("game %s: the checkpoint after entry %s was not written (%s): the next entry's "
                                    "write tries again", stored.id, entry.seq, exc)
        except asyncpg.UniqueViolationError as exc:
            self.kept.forget(stored.id)
            self._shown[:0] = shown  # rolled back with the write: they go with the next one (or the timer)
            raise self._unique(exc, entry.interaction_id) from None
        except BaseException:
            self.kept.forget(stored.id)
            self._shown[:0] = shown
            raise
        self.kept.keep(stored.id, entry.seq, entry.hash, saved.ordered, game)
        return StoredGame(id=stored.id, channel_id=stored.channel_id, guild_id=stored.guild_id,
                          ruleset=stored.ruleset, status="ended" if end else stored.status,
                          created_at=stored.created_at, game=game, last_seq=entry.seq, head_hash=entry.hash)

    def _state(self, game: Game) -> str:
        """The state's JSON as this store writes it, in the game's own order: the dump its entry's
        state hash covered (``saved_state``), not a second one."""
        return saved_state(game, take=True).ordered

    async def _checkpoint(self, conn: Any, game_id: int, entry: LogEntry, state: bytes, since: int) -> None:
        """The state after ``entry`` as a checkpoint, ``checkpoint_every`` entries past the game's last
        one (a game logged before schema 3 gets its first with its next entry). Written right after the
        entry's own statement, on the same connection (under the channel's lock), not in its
        transaction: a command's write stays one round trip, and every K-th pays three more (two reads
        and the insert, itself atomic). Nothing depends on it being there: a checkpoint lost to a crash
        or a fault in between is written with the next entry (it is then still ``checkpoint_every`` or
        more past the last), and each is checked against its entry before use."""
        every = self.checkpoint_every
        assert every is not None
        last = await conn.fetchval("SELECT live FROM checkpoints WHERE game_id = $1 AND seq = $2", game_id, since)
        kept = _live(last) if last is not None else {"top": [], "whole": True}
        rows = await conn.fetch("SELECT seq, order_json::jsonb ->> 'action', order_json::jsonb ->> 'undoes' "
                                "FROM log_entries WHERE game_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq",
                                game_id, since, entry.seq)
        # deep enough for every undo among the entries up to the next checkpoint
        top, whole = advance_live(kept["top"], kept["whole"], [tuple(row) for row in rows], keep=every + 1)
        await conn.execute("INSERT INTO checkpoints (game_id, seq, state, live) VALUES ($1, $2, $3, $4) "
                           "ON CONFLICT DO NOTHING", game_id, entry.seq, state,
                           canonical_json({"runs": _runs(top), "whole": whole}))

    async def checkpoint_before(self, game_id: int, seq: int) -> Checkpoint | None:
        if self.checkpoint_every is None:
            return None
        async with self._connection() as conn:
            found = await conn.fetchrow("SELECT seq, state, live FROM checkpoints WHERE game_id = $1 AND seq <= $2 "
                                        "ORDER BY seq DESC LIMIT 1", game_id, seq)
            if found is None:
                return None
            live = _live(found[2])
            top = live["top"]
            hashes = dict(await conn.fetch("SELECT seq, state_hash FROM log_entries WHERE game_id = $1 AND "
                                           "seq >= $2 AND seq <= $3", game_id, top[0], top[-1])) if top else {}
            entry = await conn.fetchrow(f"SELECT {_ENTRY_COLUMNS} FROM log_entries WHERE game_id = $1 AND seq = $2",
                                        game_id, found[0])
        if entry is None or any(seq not in hashes for seq in top):
            return None  # the log lacks an entry the checkpoint names: replay from entry 1
        try:
            game = unpack_state(bytes(found[1]))
        except (ValueError, zlib.error):
            return None  # not a state this bot wrote: replay from entry 1
        return Checkpoint(state=game, entry=_entry(entry), top=tuple((seq, hashes[seq]) for seq in top),
                          whole=bool(live["whole"]))

    async def reopen_game(self, stored: StoredGame, entry: LogEntry) -> StoredGame:
        if entry.seq > self.max_entries + 1:
            raise LogFull(f"the log holds {self.max_entries} entries, the most one game may have")
        self.kept.forget(stored.id)
        try:
            async with self._connection() as conn:
                async with conn.transaction():
                    moved = await conn.execute(
                        "UPDATE games SET status = 'active', ended_at = NULL, last_seq = $1, head_hash = $2 "
                        "WHERE id = $3 AND status = 'ended' AND last_seq = $4 AND head_hash = $5",
                        entry.seq, entry.hash, stored.id, entry.seq - 1, entry.prev_hash)
                    if moved != "UPDATE 1":
                        raise StaleGame(f"game {stored.id} changed since it was loaded")
                    await self._insert_entry(conn, entry)
        except asyncpg.UniqueViolationError as exc:
            raise self._unique(exc, entry.interaction_id) from None
        return StoredGame(id=stored.id, channel_id=stored.channel_id, guild_id=stored.guild_id,
                          ruleset=stored.ruleset, status="active", created_at=stored.created_at, game=stored.game,
                          last_seq=entry.seq, head_hash=entry.hash)

    async def _insert_entry(self, conn: Any, entry: LogEntry) -> None:
        await conn.execute(f"INSERT INTO log_entries ({_ENTRY_COLUMNS}) VALUES ({_ENTRY_VALUES})", *_entry_row(entry))
        if entry.interaction_id is not None:  # listed as unshown until its result reaches the channel
            await conn.execute("INSERT INTO unshown_entries (game_id, seq, channel_id) "
                               "SELECT id, $2, channel_id FROM games WHERE id = $1", entry.game_id, entry.seq)

    @staticmethod
    def _unique(exc: Any, entry_interaction: int | None) -> Exception:
        name = getattr(exc, "constraint_name", "") or ""
        if name == "log_entries_interaction" and entry_interaction is not None:
            return DuplicateInteraction(entry_interaction)
        if name == "games_one_active_per_channel":
            return ActiveGameExists("the channel already has an active game")
        return exc

    # --- results saved but not yet seen ---

    async def entry_shown(self, game_id: int, seq: int) -> None:
        """Off the unshown list with this process's next command write (in the write's own statement,
        ``_write_sql``: after a crash only the results seen since the last write are posted again),
        or within SHOWN_FLUSH_SECONDS when no write comes; one statement for all seen meanwhile."""
        self._shown.append((game_id, seq))
        if self._shown_flush is None:
            self._shown_flush = asyncio.get_running_loop().call_later(SHOWN_FLUSH_SECONDS, self._flush_shown)

    def _flush_shown(self) -> None:
        self._shown_flush = None
        task = asyncio.ensure_future(self._flush_shown_now())
        self._flushing.add(task)
        task.add_done_callback(self._flushing.discard)
        task.add_done_callback(lambda t: t.cancelled() or t.exception() and log.warning(
            "results seen stay listed as unshown: %s", t.exception()))

    async def _flush_shown_now(self) -> None:
        """The results seen off the unshown list when no write took them: one statement, committed on
        its own (a mark is safe to send twice). A failure keeps them for the next try."""
        shown, self._shown = self._shown, []
        if not shown:
            return
        try:
            async with self._pool.acquire() as conn:
                await conn.execute(_delete_shown_sql(1), *_shown_arrays(shown))
        except BaseException:
            self._shown[:0] = shown
            raise

    async def unshown_entries(self, limit: int = 100, *, before: datetime | None = None,
                              shards: Shards | None = None) -> list[tuple[int, LogEntry]]:
        columns = ", ".join("e." + c.strip() for c in _ENTRY_COLUMNS.split(","))
        async with self._connection() as conn:
            rows = await conn.fetch(
                f"SELECT u.channel_id, {columns} FROM unshown_entries u JOIN log_entries e "
                "ON e.game_id = u.game_id AND e.seq = u.seq JOIN games g ON g.id = u.game_id "
                "WHERE ($2::timestamptz IS NULL OR e.time::timestamptz < $2) "
                "AND ($3::bigint IS NULL OR (coalesce(g.guild_id, 0) >> 22) % $3 = ANY($4::bigint[])) "
                "ORDER BY e.time, e.seq LIMIT $1", limit, before,
                None if shards is None else shards.count, None if shards is None else list(shards.ids))
        return [(row[0], _entry(tuple(row)[1:])) for row in rows]

    # --- the log ---

    async def entries(self, game_id: int, *, after_seq: int = 0, limit: int = 50) -> list[LogEntry]:
        async with self._connection() as conn:
            rows = await conn.fetch(f"SELECT {_ENTRY_COLUMNS} FROM log_entries WHERE game_id = $1 AND seq > $2 "
                                    "ORDER BY seq LIMIT $3", game_id, after_seq, limit)
        return [_entry(row) for row in rows]

    async def load_recorded(self, interaction_id: int) -> tuple[LogEntry, StoredGame] | None:
        entry_columns = ", ".join("e." + c.strip() for c in _ENTRY_COLUMNS.split(","))
        game_columns = ", ".join("g." + c.strip() for c in _GAME_COLUMNS.split(","))
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {entry_columns}, {game_columns} FROM log_entries e "
                                      "JOIN games g ON g.id = e.game_id WHERE e.interaction_id = $1", interaction_id)
        if row is None:
            return None
        values = tuple(row)
        count = _ENTRY_COLUMNS.count(",") + 1
        return _entry(values[:count]), _stored(values[count:])

    async def entry_by_interaction(self, interaction_id: int) -> LogEntry | None:
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {_ENTRY_COLUMNS} FROM log_entries WHERE interaction_id = $1",
                                      interaction_id)
        return _entry(row) if row else None

    # --- moving a server between stores ---

    async def game_ids(self) -> list[int]:
        async with self._connection() as conn:
            return [row[0] for row in await conn.fetch("SELECT id FROM games ORDER BY id")]

    async def undo_requests(self, game_id: int) -> list[UndoRequest]:
        async with self._connection() as conn:
            rows = await conn.fetch(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE game_id = $1 ORDER BY id",
                                    game_id)
        return [_undo(row) for row in rows]

    async def game_extras(self, game_id: int) -> GameExtras:
        async with self._connection() as conn:
            reminded = await conn.fetchrow("SELECT seq, sent_at FROM pacing_reminders WHERE game_id = $1", game_id)
            unshown = await conn.fetch("SELECT seq, channel_id FROM unshown_entries WHERE game_id = $1 ORDER BY seq",
                                       game_id)
            checkpoints = await conn.fetch("SELECT seq, state, live FROM checkpoints WHERE game_id = $1 ORDER BY seq",
                                           game_id) if self.checkpoint_every is not None else []
        return GameExtras(reminded=tuple(reminded) if reminded else None, unshown=tuple(map(tuple, unshown)),
                          checkpoints=tuple((seq, bytes(state), live) for seq, state, live in checkpoints))

    async def restore_game(self, stored: StoredGame, entries: list[LogEntry], undos: list[UndoRequest],
                           extras: GameExtras = GameExtras()) -> None:
        ended_at = entries[-1].time if stored.status == "ended" and entries else None
        self.kept.forget(stored.id)
        try:
            async with self._connection() as conn, conn.transaction():
                if await conn.fetchval("SELECT 1 FROM games WHERE id = $1", stored.id):
                    raise StoreError(f"game {stored.id} already exists in the target database")
                await conn.execute(
                    f"INSERT INTO games ({_GAME_COLUMNS}, ended_at) OVERRIDING SYSTEM VALUE "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    stored.id, stored.channel_id, stored.guild_id, stored.ruleset, stored.status, stored.created_at,
                    self._state(stored.game), stored.last_seq, stored.head_hash, ended_at)
                await conn.executemany(f"INSERT INTO log_entries ({_ENTRY_COLUMNS}) VALUES ({_ENTRY_VALUES})",
                                       [_entry_row(entry) for entry in entries])
                await conn.executemany(
                    f"INSERT INTO undo_requests ({_UNDO_COLUMNS}) OVERRIDING SYSTEM VALUE VALUES "
                    f"({_UNDO_VALUES}, $15)", [_undo_params(undo) for undo in undos])
                if extras.reminded is not None:
                    await conn.execute("INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES ($1, $2, $3)",
                                       stored.id, *extras.reminded)
                if self.track_seats:
                    await _seat(conn, stored.id, stored.game)
                await conn.executemany("INSERT INTO unshown_entries (game_id, seq, channel_id) VALUES ($1, $2, $3)",
                                       [(stored.id, seq, channel) for seq, channel in extras.unshown])
                if self.checkpoint_every is not None:
                    await conn.executemany(
                        "INSERT INTO checkpoints (game_id, seq, state, live) VALUES ($1, $2, $3, $4)",
                        [(stored.id, *checkpoint) for checkpoint in extras.checkpoints])
                    if stored.status == "active" and entries and (
                            extras.reminded is None or extras.reminded[0] != stored.last_seq):
                        # due for a reminder as it would be had its last entry been written here, unless
                        # it was reminded of this silence already (schema 3)
                        await conn.execute("UPDATE games SET remind_due = $1 WHERE id = $2",
                                           remind_due(stored.game, entries[-1].time), stored.id)
                # the ids handed out next start after the copied ones
                for table in ("games", "undo_requests"):
                    await conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                       f"greatest((SELECT max(id) FROM {table}), 1))")
        except asyncpg.UniqueViolationError as exc:
            raise StoreError(f"game {stored.id} cannot be copied here: {exc}") from None

    # --- undo by consent ---

    async def create_undo(self, request: UndoRequest) -> UndoRequest:
        columns = _UNDO_COLUMNS.removeprefix("id, ")
        try:
            async with self._connection() as conn:
                request_id = await conn.fetchval(
                    f"INSERT INTO undo_requests ({columns}) VALUES ({_UNDO_VALUES}) RETURNING id",
                    *_undo_params(request)[1:])
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "undo_requests_interaction" and request.interaction_id is not None:
                raise DuplicateInteraction(request.interaction_id) from None
            raise
        return UndoRequest(**{**request.__dict__, "id": request_id})

    async def undo_request(self, request_id: int) -> UndoRequest | None:
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE id = $1", request_id)
        return _undo(row) if row else None

    async def undo_by_interaction(self, interaction_id: int) -> UndoRequest | None:
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE interaction_id = $1",
                                      interaction_id)
        return _undo(row) if row else None

    async def pending_undo(self, game_id: int) -> UndoRequest | None:
        async with self._connection() as conn:
            row = await conn.fetchrow(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE game_id = $1 AND "
                                      "status = 'pending' ORDER BY id DESC LIMIT 1", game_id)
        return _undo(row) if row else None

    async def settle_undo(self, request_id: int, status: UndoStatus, answered_by: int | None,
                          answered_at: str) -> bool:
        async with self._connection() as conn:
            done = await conn.execute("UPDATE undo_requests SET status = $1, answered_by = $2, answered_at = $3 "
                                      "WHERE id = $4 AND status = 'pending'", status, answered_by, answered_at,
                                      request_id)
        return done == "UPDATE 1"

    async def set_undo_message(self, request_id: int, channel_id: int, message_id: int) -> None:
        async with self._connection() as conn:
            await conn.execute("UPDATE undo_requests SET channel_id = $1, message_id = $2 WHERE id = $3",
                               channel_id, message_id, request_id)

    async def overdue_undos(self, now: str) -> list[UndoRequest]:
        async with self._connection() as conn:
            rows = await conn.fetch(f"SELECT {_UNDO_COLUMNS} FROM undo_requests WHERE status = 'pending' "
                                    "AND expires_at <= $1 ORDER BY id", now)
        return [_undo(row) for row in rows]

    async def apply_undo(self, stored: StoredGame, game: Game, entry: LogEntry, request_id: int,
                         answered_by: int) -> StoredGame:
        return await self._write(stored, game, entry, end=False, undo=(request_id, answered_by))

    async def undone(self, game_id: int, *, after_seq: int = 0) -> dict[int, int]:
        async with self._connection() as conn:
            rows = await conn.fetch(
                "SELECT order_json::jsonb -> 'undoes', seq FROM log_entries WHERE game_id = $1 AND seq > $2 "
                "AND order_json::jsonb ->> 'action' = 'undo'", game_id, after_seq)
        found = {}
        for target, seq in rows:
            target = json.loads(target) if target is not None else None
            if isinstance(target, int) and not isinstance(target, bool):
                found[target] = seq
        return found

    # --- pacing ---

    async def server_games(self, guild_id: int, window: float) -> ServerGames:
        since = (datetime.now(timezone.utc) - timedelta(seconds=window)).isoformat(timespec="milliseconds")
        async with self._connection() as conn:
            row = await conn.fetchrow(
                "SELECT (SELECT count(*) FROM games WHERE guild_id = $1 AND status = 'active'), "
                "count(*), min(created_at) FROM games WHERE guild_id = $1 AND created_at >= $2", guild_id, since)
        return ServerGames(running=row[0], started=row[1], first_started=row[2])

    async def quiet_games(self, due_by: str | None = None) -> list[QuietGame]:
        """The games due for a reminder (by ``due_by``, or any time), soonest due first: through the
        index games_reminder_due (pg_migrations/0003), so only the games due are read and parsed."""
        columns = ", ".join("g." + c.strip() for c in _GAME_COLUMNS.split(","))
        joins = ("FROM games g JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq "
                 "LEFT JOIN pacing_reminders r ON r.game_id = g.id")
        async with self._connection() as conn:
            if self.checkpoint_every is None:  # a store held before schema 3: computed from every game's option
                rows = await conn.fetch(
                    f"SELECT {columns}, q.time, q.reminded FROM (SELECT g.id, e.time, r.seq AS reminded, "
                    "e.time::timestamptz + CASE WHEN o.hours ~ '^ *[0-9]+(\\.[0-9]+)? *$' "
                    f"THEN o.hours::double precision END * interval '1 hour' AS due {joins} "
                    "CROSS JOIN LATERAL (SELECT g.state::jsonb #>> '{options,remind_after_hours}' AS hours) o "
                    "WHERE g.status = 'active' AND r.seq IS DISTINCT FROM g.last_seq) q "
                    "JOIN games g ON g.id = q.id "
                    "WHERE q.due > q.time::timestamptz AND ($1::text IS NULL OR q.due <= $1::timestamptz) "
                    "ORDER BY q.due, g.id", due_by)
            else:
                # a range on the index (a bound given as a parameter, not coalesce(), which no index serves)
                due = "AND g.remind_due <= $1 " if due_by is not None else ""
                rows = await conn.fetch(
                    f"SELECT {columns}, e.time, r.seq {joins} WHERE g.status = 'active' AND g.remind_due IS NOT NULL "
                    f"{due}ORDER BY g.remind_due, g.id", *([due_by] if due_by is not None else []))
        return [QuietGame(_stored(tuple(row)[:9]), row[9], row[10]) for row in rows]

    async def player_games(self, user_id: int) -> list[PlayerGame]:
        if not self.track_seats:
            return []  # a store held before schema 5 has no seats index
        columns = ", ".join("g." + c.strip() for c in _GAME_COLUMNS.split(","))
        async with self._connection() as conn:
            rows = await conn.fetch(
                f"SELECT {columns}, e.time FROM seats s JOIN games g ON g.id = s.game_id "
                "JOIN log_entries e ON e.game_id = g.id AND e.seq = g.last_seq "
                "WHERE s.user_id = $1 AND g.status = 'active' ORDER BY e.time, g.id", user_id)
        return [PlayerGame(_stored(tuple(row)[:9]), row[9]) for row in rows]

    async def set_away(self, away: Away) -> None:
        async with self._connection() as conn:
            await conn.execute("INSERT INTO away (user_id, since, until, reason) VALUES ($1, $2, $3, $4) "
                               "ON CONFLICT (user_id) DO UPDATE SET since = excluded.since, until = excluded.until, "
                               "reason = excluded.reason", away.user_id, away.since, away.until, away.reason)

    async def aways(self, user_ids: Iterable[int]) -> dict[int, Away]:
        users = sorted(set(user_ids))
        if not users or not self.keeps_away:
            return {}
        async with self._connection() as conn:
            rows = await conn.fetch("SELECT user_id, since, until, reason FROM away WHERE user_id = ANY($1::bigint[])",
                                    users)
        return {row[0]: Away(*row) for row in rows}

    async def set_notify(self, user_id: int, dm: bool) -> None:
        async with self._connection() as conn:
            await conn.execute("INSERT INTO notify (user_id, dm) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE "
                               "SET dm = excluded.dm", user_id, dm)

    async def dm_users(self, user_ids: Iterable[int]) -> set[int]:
        users = sorted(set(user_ids))
        if not users or not self.keeps_notify:
            return set()
        async with self._connection() as conn:
            rows = await conn.fetch("SELECT user_id FROM notify WHERE dm AND user_id = ANY($1::bigint[])", users)
        return {row[0] for row in rows}

    async def player_settings(self) -> tuple[list[Away], dict[int, bool]]:
        async with self._connection() as conn:
            aways = await conn.fetch("SELECT user_id, since, until, reason FROM away ORDER BY user_id") \
                if self.keeps_away else []
            choices = await conn.fetch("SELECT user_id, dm FROM notify ORDER BY user_id") if self.keeps_notify else []
        return [Away(*row) for row in aways], {row[0]: bool(row[1]) for row in choices}

    async def keep_secret(self, commitment: str, secret: bytes) -> None:
        async with self._connection() as conn:
            await conn.execute("INSERT INTO held_secrets (commitment, secret, kept_at) VALUES ($1, $2, $3) "
                               "ON CONFLICT (commitment) DO NOTHING", commitment, bytes(secret),
                               datetime.now(timezone.utc).isoformat(timespec="milliseconds"))

    async def held_secret(self, commitment: str) -> bytes | None:
        async with self._connection() as conn:
            secret = await conn.fetchval("SELECT secret FROM held_secrets WHERE commitment = $1", commitment)
        return None if secret is None else bytes(secret)

    async def mark_reminded(self, game_id: int, seq: int, sent_at: str) -> None:
        async with self._connection() as conn, conn.transaction():
            await conn.execute("INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES ($1, $2, $3) "
                               "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, sent_at = excluded.sent_at",
                               game_id, seq, sent_at)
            if self.checkpoint_every is not None:  # reminded of this silence: due again after its next entry
                await conn.execute("UPDATE games SET remind_due = NULL WHERE id = $1 AND last_seq = $2", game_id, seq)

    async def claim_reminder(self, game_id: int, seq: int, sent_at: str, then_due: str | None = None) -> bool:
        """One statement: the claim, and (schema 3 on) the game no longer due until its next entry (or
        due at ``then_due``: its deadline)."""
        return await self._claim_pacing(game_id, seq, sent_at, seq, then_due)

    async def claim_deadline_notice(self, game_id: int, seq: int, sent_at: str) -> bool:
        """One statement, as ``claim_reminder``: the claim (kept as ``-seq``, apart from that silence's
        half-time reminder), and (schema 3 on) the game no longer due until its next entry."""
        return await self._claim_pacing(game_id, -seq, sent_at, seq, None)

    async def _claim_pacing(self, game_id: int, claimed: int, sent_at: str, seq: int, then_due: str | None) -> bool:
        """Claim the pacing row of ``game_id`` as ``claimed`` (once across processes: another process
        holding the same claim gets False) and, with checkpoints (schema 3 on), set the game's next due
        time to ``then_due`` while its newest entry is still ``seq``."""
        claim = ("INSERT INTO pacing_reminders (game_id, seq, sent_at) VALUES ($1, $2, $3) "
                 "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, sent_at = excluded.sent_at "
                 "WHERE pacing_reminders.seq <> excluded.seq RETURNING game_id")
        async with self._connection() as conn:
            if self.checkpoint_every is None:
                return await conn.fetchval(claim, game_id, claimed, sent_at) is not None
            claim = (f"WITH claimed AS ({claim}), undue AS (UPDATE games SET remind_due = $5::text WHERE id IN "
                     "(SELECT game_id FROM claimed) AND last_seq = $4 RETURNING id) SELECT game_id FROM claimed")
            return await conn.fetchval(claim, game_id, claimed, sent_at, seq, then_due) is not None


async def schema_version(conn: Any) -> int:
    exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_migrations"))


async def _seat(conn: Any, game_id: int, game: Game) -> None:
    """The game's rows of the seats index, rewritten for the players seated in ``game`` (inside the
    caller's transaction)."""
    await conn.execute("DELETE FROM seats WHERE game_id = $1", game_id)
    await conn.executemany("INSERT INTO seats (user_id, game_id) VALUES ($1, $2)", [(u, game_id) for u in seated(game)])


async def _seat_every_game(conn: Any) -> None:
    """Fill the seats index from every active game's state, once, as a schema older than it is
    upgraded (idempotent: a process starting at the same moment may do it too)."""
    rows = await conn.fetch("SELECT id, state FROM games WHERE status = 'active'")
    seats = [(user, row[0]) for row in rows for user in seated(unpack_state(row[1]))]
    async with conn.transaction():
        await conn.executemany("INSERT INTO seats (user_id, game_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", seats)


async def migrate(conn: Any, *, upto: int | None = None) -> int:
    """Apply the migrations the schema lacks (up to ``upto``) in one transaction, under an
    advisory lock so that processes starting together migrate once; returns the version reached."""
    known = pg_migrations()
    async with conn.transaction():
        # a migration over a large log may run long: not bound by REFEREE_DATABASE_STATEMENT_TIMEOUT
        await conn.execute("SET LOCAL statement_timeout = 0")
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK, timeout=MIGRATION_TIMEOUT)
        await conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                           "name TEXT NOT NULL, applied_at TEXT NOT NULL)")
        current = await schema_version(conn)
        if current > len(known):
            raise SchemaTooNew(f"the database is at schema version {current}, newer than this bot knows "
                               f"({len(known)}): run a newer version of the bot")
        target = len(known) if upto is None else upto
        for number, name, sql in known[current:target]:
            await conn.execute(sql, timeout=MIGRATION_TIMEOUT)
            await conn.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                               number, name, _utc_now())
    return await schema_version(conn)
