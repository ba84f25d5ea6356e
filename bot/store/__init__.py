"""Persistence: games and their hash-chained logs behind a small interface (``Store``).

``SqliteStore`` (a file, one bot process) is the default; ``PostgresStore`` (asyncpg, the
``postgres`` extra) serves several bot processes on one server. ``open_store`` picks one from the
database setting; ``bot.service.Referee`` is the stores' only caller. What an entry means (its
hash chain, its replay) is ``bot.record``'s, shared by every store.
"""

from pathlib import Path

from .base import (MAX_LOG_ENTRIES, ActiveGameExists, Away, DatabaseUnusable, DuplicateInteraction, GameExtras, LogFull,
                   PlayerGame, QuietGame, SchemaTooNew, ServerGames, StaleGame, StorageUnavailable, Store, StoredGame,
                   StoreError, UndoRequest)
from .postgres import PostgresStore, is_postgres
from .sqlite import SqliteStore, migrations


async def open_store(database: "str | Path", *, max_entries: int = MAX_LOG_ENTRIES, pool: "dict | None" = None,
                     **kwargs) -> Store:
    """The store the database setting names: ``postgresql://...`` a PostgreSQL server, anything
    else an SQLite file's path. Opened, checked and migrated. ``pool``: PostgreSQL's pool settings
    (``Settings.pool()``), which an SQLite file has no use for."""
    if is_postgres(database):
        return await PostgresStore.open(str(database), max_entries=max_entries, **(pool or {}), **kwargs)
    return await SqliteStore.open(database, max_entries=max_entries, **kwargs)


__all__ = [
    "MAX_LOG_ENTRIES", "ActiveGameExists", "Away", "DatabaseUnusable", "DuplicateInteraction", "GameExtras", "LogFull",
    "PlayerGame",
    "QuietGame",
    "PostgresStore", "SchemaTooNew", "ServerGames", "SqliteStore", "StaleGame", "StorageUnavailable", "Store", "StoreError", "StoredGame",
    "UndoRequest", "is_postgres", "migrations", "open_store",
]
