"""Persistence: games and their hash-chained logs behind a small interface (``Store``).

``SqliteStore`` is the implementation used today; ``bot.service.Referee`` is its only caller.
What an entry means (its hash chain, its replay) is ``bot.record``'s, shared by every store.
"""

from .base import (MAX_LOG_ENTRIES, ActiveGameExists, DatabaseUnusable, DuplicateInteraction, LogFull, QuietGame,
                   SchemaTooNew, ServerGames, StaleGame, StorageUnavailable, Store, StoredGame, StoreError, UndoRequest)
from .sqlite import SqliteStore, migrations

__all__ = [
    "MAX_LOG_ENTRIES", "ActiveGameExists", "DatabaseUnusable", "DuplicateInteraction", "LogFull", "QuietGame",
    "SchemaTooNew", "ServerGames", "SqliteStore", "StaleGame", "StorageUnavailable", "Store", "StoreError", "StoredGame",
    "UndoRequest", "migrations",
]
